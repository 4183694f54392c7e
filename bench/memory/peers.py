"""PyTorch eager's side of bench/memory/run.py (the peers python of
../shared/peers/setup.sh): the same GPT step (torch.nn, AdamW,
clip_grad_norm_), plain or with torch.utils.checkpoint on every block, one
process per mode; the process's peak RSS as workload.measure reads it."""

import json
import math
import sys

from workload import BATCH, CLIP, CONFIG, LR, STEPS, WARMUP, batches, \
    load_data, measure


def main():
    import torch
    from torch import nn
    from torch.utils.checkpoint import checkpoint
    F = nn.functional
    mode = sys.argv[1]
    torch.set_num_threads(2)
    torch.manual_seed(0)
    C, H, T, L = (CONFIG["n_embd"], CONFIG["n_head"], CONFIG["block_size"],
                  CONFIG["n_layer"])
    data, vocab = load_data()

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(C), nn.LayerNorm(C)
            self.c_attn, self.c_proj = nn.Linear(C, 3 * C), nn.Linear(C, C)
            self.c_fc, self.mlp_proj = nn.Linear(C, 4 * C), nn.Linear(4 * C, C)
            self.register_buffer("bias", torch.tril(torch.ones(T, T)).view(
                1, 1, T, T))

        def forward(self, x):
            B, T_, _ = x.size()
            q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
            q, k, v = (z.view(B, T_, H, C // H).transpose(1, 2)
                       for z in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(C // H))
            att = att.masked_fill(self.bias[:, :, :T_, :T_] == 0,
                                  float("-inf"))
            y = F.softmax(att, dim=-1) @ v
            y = y.transpose(1, 2).contiguous().view(B, T_, C)
            x = x + self.c_proj(y)
            return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, C), nn.Embedding(T, C)
            self.h = nn.ModuleList([Block() for _ in range(L)])
            self.ln_f = nn.LayerNorm(C)
            self.lm_head = nn.Linear(C, vocab, bias=False)
            self.wte.weight = self.lm_head.weight

        def forward(self, idx, targets):
            x = self.wte(idx) + self.wpe(torch.arange(idx.size(1)))
            for block in self.h:
                x = (checkpoint(block, x, use_reentrant=False)
                     if mode == "checkpoint" else block(x))
            logits = self.lm_head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, logits.size(-1)),
                                   targets.view(-1))

    model = GPT()
    decay = [p for p in model.parameters() if p.ndim >= 2]
    rest = [p for p in model.parameters() if p.ndim < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": rest, "weight_decay": 0.0}],
                            lr=LR, betas=(0.9, 0.99))

    def step(x, y):
        loss = model(torch.from_numpy(x), torch.from_numpy(y))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        opt.step()
        return float(loss)

    result = measure(step, batches(data, WARMUP + STEPS))
    result["mode"] = mode
    print(json.dumps(result))


if __name__ == "__main__":
    main()
