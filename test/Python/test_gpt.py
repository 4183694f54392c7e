"""The character-level GPT of examples/python/train_gpt.py trains as the
same model does in PyTorch: from the same weights and batches, with
dropout 0, AdamW, gradient clipping and a cosine learning rate, the loss
curves agree within 1e-4 (relative) over 30 steps, and kiln compiles
nothing from step 3 on."""

import importlib.util
import math
import os

import numpy as np
import pytest

import kiln

torch = pytest.importorskip("torch")

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
spec = importlib.util.spec_from_file_location(
    "train_gpt", os.path.join(ROOT, "examples", "python", "train_gpt.py"))
train_gpt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(train_gpt)

tnn, tF = torch.nn, torch.nn.functional


class TorchBlock(tnn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.ln_1 = tnn.LayerNorm(n_embd)
        self.attn = tnn.Module()
        self.attn.c_attn = tnn.Linear(n_embd, 3 * n_embd)
        self.attn.c_proj = tnn.Linear(n_embd, n_embd)
        self.attn.register_buffer("bias", torch.tril(torch.ones(
            block_size, block_size)).view(1, 1, block_size, block_size))
        self.ln_2 = tnn.LayerNorm(n_embd)
        self.mlp = tnn.Module()
        self.mlp.c_fc = tnn.Linear(n_embd, 4 * n_embd)
        self.mlp.c_proj = tnn.Linear(4 * n_embd, n_embd)
        self.n_head, self.n_embd = n_head, n_embd

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.attn.c_attn(self.ln_1(x)).split(self.n_embd, dim=2)
        hs = C // self.n_head
        k = k.view(B, T, self.n_head, hs).transpose(1, 2)
        q = q.view(B, T, self.n_head, hs).transpose(1, 2)
        v = v.view(B, T, self.n_head, hs).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
        att = att.masked_fill(self.attn.bias[:, :, :T, :T] == 0,
                              float("-inf"))
        y = tF.softmax(att, dim=-1) @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.attn.c_proj(y)
        return x + self.mlp.c_proj(tF.gelu(self.mlp.c_fc(self.ln_2(x))))


class TorchGPT(tnn.Module):
    def __init__(self, vocab, block_size, n_layer, n_head, n_embd):
        super().__init__()
        self.transformer = tnn.ModuleDict(dict(
            wte=tnn.Embedding(vocab, n_embd),
            wpe=tnn.Embedding(block_size, n_embd),
            h=tnn.ModuleList([TorchBlock(n_embd, n_head, block_size)
                              for _ in range(n_layer)]),
            ln_f=tnn.LayerNorm(n_embd)))
        self.lm_head = tnn.Linear(n_embd, vocab, bias=False)
        self.transformer.wte.weight = self.lm_head.weight

    def forward(self, idx, targets):
        t = idx.size(1)
        x = self.transformer.wte(idx) + self.transformer.wpe(
            torch.arange(0, t))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        return tF.cross_entropy(logits.view(-1, logits.size(-1)),
                                targets.view(-1))


def torch_optimizer(model, lr):
    decay = [p for p in model.parameters() if p.ndim >= 2]
    rest = [p for p in model.parameters() if p.ndim < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                              {"params": rest, "weight_decay": 0.0}],
                             lr=lr, betas=(0.9, 0.99))


def test_loss_curve_matches_pytorch():
    with open(train_gpt.DEFAULT_TEXT, encoding="utf-8") as f:
        text = f.read()
    chars = sorted(set(text))
    data = np.array([chars.index(c) for c in text[:20000]], np.int64)
    config = dict(block_size=16, n_layer=2, n_head=2, n_embd=32)
    steps, batch, lr = 30, 4, 3e-3

    kiln.manual_seed(0)
    model = train_gpt.GPT(len(chars), dropout=0.0, **config)
    opt = train_gpt.configure(model, lr, 0.1)
    sched = kiln.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps,
                                                      eta_min=lr / 10)
    step = kiln.jit(train_gpt.make_step(model, opt, clip=1.0))

    reference = TorchGPT(len(chars), **config)
    weights = {k: torch.tensor(v.numpy())
               for k, v in model.state_dict().items()}
    missing = reference.load_state_dict(weights, strict=False)
    assert not missing.missing_keys, missing
    topt = torch_optimizer(reference, lr)
    tsched = torch.optim.lr_scheduler.CosineAnnealingLR(
        topt, T_max=steps, eta_min=lr / 10)

    rng = np.random.default_rng(0)
    ours, theirs, compiles = [], [], []
    for i in range(steps):
        ix = rng.integers(0, len(data) - 17, batch)
        x = np.stack([data[j:j + 16] for j in ix])
        y = np.stack([data[j + 1:j + 17] for j in ix])
        before = kiln.metrics()["compiles"]
        ours.append(float(step(x, y)))
        sched.step()
        compiles.append(kiln.metrics()["compiles"] - before)

        loss = reference(torch.tensor(x), torch.tensor(y))
        topt.zero_grad()
        loss.backward()
        tnn.utils.clip_grad_norm_(reference.parameters(), 1.0)
        topt.step()
        tsched.step()
        theirs.append(loss.item())
    relative = np.abs(np.array(ours) - theirs) / np.abs(theirs)
    assert relative.max() < 1e-4, list(zip(ours, theirs))
    assert ours[-1] < ours[0] - 0.5  # it learns
    assert sum(compiles[3:]) == 0, compiles
    assert step.replays >= steps - 3
