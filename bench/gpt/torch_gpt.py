"""The GPT of examples/python/train_gpt.py in PyTorch (torch.nn), for the
peers of bench/gpt and bench/memory: token and position embeddings, causal
self-attention, GELU MLP, pre-LayerNorm blocks, tied embeddings, and
optionally torch.utils.checkpoint on every block."""

import math


def make_gpt(torch, vocab, n_layer, n_head, n_embd, block_size, dropout,
             checkpoint_blocks=False):
    """The model: called as model(idx, targets), it returns the loss."""
    from torch import nn
    from torch.utils.checkpoint import checkpoint
    F = nn.functional
    C, H, T = n_embd, n_head, block_size

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(C), nn.LayerNorm(C)
            self.c_attn, self.c_proj = nn.Linear(C, 3 * C), nn.Linear(C, C)
            self.c_fc, self.mlp_proj = nn.Linear(C, 4 * C), nn.Linear(4 * C, C)
            self.drop = nn.Dropout(dropout)
            self.register_buffer("bias", torch.tril(torch.ones(T, T)).view(
                1, 1, T, T))

        def forward(self, x):
            B, T_, _ = x.size()
            q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
            q, k, v = (t.view(B, T_, H, C // H).transpose(1, 2)
                       for t in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(C // H))
            att = att.masked_fill(self.bias[:, :, :T_, :T_] == 0,
                                  float("-inf"))
            att = self.drop(F.softmax(att, dim=-1))
            y = (att @ v).transpose(1, 2).contiguous().view(B, T_, C)
            x = x + self.drop(self.c_proj(y))
            return x + self.drop(self.mlp_proj(F.gelu(self.c_fc(
                self.ln_2(x)))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, C), nn.Embedding(T, C)
            self.h = nn.ModuleList([Block() for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(C)
            self.lm_head = nn.Linear(C, vocab, bias=False)
            self.wte.weight = self.lm_head.weight
            self.drop = nn.Dropout(dropout)

        def forward(self, idx, targets):
            x = self.drop(self.wte(idx) + self.wpe(torch.arange(
                idx.size(1))))
            for block in self.h:
                x = (checkpoint(block, x, use_reentrant=False)
                     if checkpoint_blocks else block(x))
            logits = self.lm_head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, vocab), targets.view(-1))

    return GPT()


def adamw(torch, model, lr):
    """nanoGPT's AdamW groups: matrices decay by 0.1, the rest not."""
    decay = [p for p in model.parameters() if p.ndim >= 2]
    rest = [p for p in model.parameters() if p.ndim < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                              {"params": rest, "weight_decay": 0.0}],
                             lr=lr, betas=(0.9, 0.99))


def make_step(torch, model, opt, clip, sched=None):
    """One training step on numpy ids and targets: the loss, gradients,
    clipping at `clip`, the optimizer (and scheduler) step; returns the
    loss as a float."""
    def step(x, y):
        loss = model(torch.from_numpy(x), torch.from_numpy(y))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        if sched is not None:
            sched.step()
        return loss.item()
    return step
