"""A character-level GPT, written as nanoGPT writes it, trained with kiln.

    PYTHONPATH=build/python python3 examples/python/train_gpt.py [TEXT]

TEXT defaults to /usr/share/common-licenses/GPL-3, which every Debian
machine has. The model has token and position embeddings, causal
self-attention, dropout and tied input/output embeddings; it trains with
AdamW, gradient clipping and nanoGPT's learning rate (a linear warmup,
then a cosine; data: it never recompiles), under kiln.jit. It saves a
checkpoint (--checkpoint), can resume from one (--resume), and samples
text with argmax. The last line printed is a JSON summary.
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np

import kiln
import kiln.nn as nn
import kiln.nn.functional as F
from kiln.utils.checkpoint import checkpoint

DEFAULT_TEXT = "/usr/share/common-licenses/GPL-3"


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        self.n_head, self.n_embd = n_head, n_embd
        self.register_buffer("bias", kiln.tril(kiln.ones(
            block_size, block_size)).view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        hs = C // self.n_head
        k = k.view(B, T, self.n_head, hs).transpose(1, 2)
        q = q.view(B, T, self.n_head, hs).transpose(1, 2)
        v = v.view(B, T, self.n_head, hs).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, n_embd, dropout):
        super().__init__()
        self.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * n_embd, n_embd)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size, dropout)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = MLP(n_embd, dropout)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size, block_size=64, n_layer=4, n_head=4,
                 n_embd=128, dropout=0.1, checkpoint_blocks=False):
        super().__init__()
        self.block_size = block_size
        # Activation checkpointing: each block's values are recomputed by
        # the backward instead of kept (kiln.utils.checkpoint).
        self.checkpoint_blocks = checkpoint_blocks
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab_size, n_embd),
            wpe=nn.Embedding(block_size, n_embd),
            drop=nn.Dropout(dropout),
            h=nn.ModuleList([Block(n_embd, n_head, block_size, dropout)
                             for _ in range(n_layer)]),
            ln_f=nn.LayerNorm(n_embd),
        ))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying
        # nanoGPT's initialisation.
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * n_layer))
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0.0, 0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Embedding):
                nn.init.normal_(m.weight, 0.0, 0.02)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = kiln.arange(0, t)
        x = self.transformer.drop(self.transformer.wte(idx) +
                                  self.transformer.wpe(pos))
        for block in self.transformer.h:
            if self.checkpoint_blocks and self.training:
                x = checkpoint(block, x, use_reentrant=False)
            else:
                x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        if targets is None:
            return logits, None
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)),
                               targets.view(-1))
        return logits, loss


def configure(model, lr, weight_decay):
    """nanoGPT's groups: matrices decay, biases and norms do not."""
    decay = [p for p in model.parameters() if p.ndim >= 2]
    rest = [p for p in model.parameters() if p.ndim < 2]
    return kiln.optim.AdamW([{"params": decay, "weight_decay": weight_decay},
                             {"params": rest, "weight_decay": 0.0}],
                            lr=lr, betas=(0.9, 0.99))


def make_step(model, opt, clip):
    def step(x, y):
        _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        return loss
    return step


def sample(model, context, length):
    """Greedy decoding (argmax) over a window of block_size characters:
    one program for every new character."""
    model.eval()
    window = list(context[-model.block_size:])
    out = []
    with kiln.no_grad():
        for _ in range(length):
            logits, _ = model(kiln.tensor([window]))
            nxt = int(logits[0, -1].argmax())
            out.append(nxt)
            window = window[1:] + [nxt]
    model.train()
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("text", nargs="?", default=DEFAULT_TEXT)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--block-size", type=int, default=64)
    parser.add_argument("--n-layer", type=int, default=4)
    parser.add_argument("--n-head", type=int, default=4)
    parser.add_argument("--n-embd", type=int, default=128)
    parser.add_argument("--dropout", type=float, default=0.1)
    parser.add_argument("--lr", type=float, default=6e-3)
    parser.add_argument("--min-lr", type=float, default=6e-4)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--clip", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1337)
    parser.add_argument("--checkpoint", default=None,
                        help="save model and optimizer here at the end")
    parser.add_argument("--resume", default=None,
                        help="resume from a checkpoint saved with "
                             "--checkpoint")
    parser.add_argument("--sample", type=int, default=80)
    args = parser.parse_args(argv)

    with open(args.text, encoding="utf-8", errors="replace") as f:
        text = f.read()
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = np.array([stoi[c] for c in text], np.int64)
    split = int(0.9 * len(data))
    train, val = data[:split], data[split:]

    kiln.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    model = GPT(len(chars), args.block_size, args.n_layer, args.n_head,
                args.n_embd, args.dropout)
    opt = configure(model, args.lr, 0.1)
    def lr_factor(it):
        # nanoGPT's get_lr, as a factor of --lr: a linear warmup over the
        # first --warmup steps, then a cosine down to --min-lr.
        if it < args.warmup:
            return (it + 1) / args.warmup
        progress = min(1.0, (it - args.warmup) /
                       max(1, args.steps - args.warmup))
        lr = args.min_lr + 0.5 * (args.lr - args.min_lr) * (
            1 + math.cos(math.pi * progress))
        return lr / args.lr
    sched = kiln.optim.lr_scheduler.LambdaLR(opt, lr_factor)
    start = 0
    if args.resume:
        ckpt = kiln.load(args.resume)
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optim"])
        sched.load_state_dict(ckpt["sched"])
        start = ckpt["step"]
        rng = np.random.default_rng(args.seed + start)

    def batch(source):
        ix = rng.integers(0, len(source) - args.block_size - 1, args.batch)
        x = np.stack([source[i:i + args.block_size] for i in ix])
        y = np.stack([source[i + 1:i + 1 + args.block_size] for i in ix])
        return x, y

    step = kiln.jit(make_step(model, opt, args.clip))
    losses, compiles_per_step = [], []
    began = time.perf_counter()
    for it in range(start, args.steps):
        before = kiln.metrics()["compiles"]
        x, y = batch(train)
        loss = step(x, y)
        sched.step()
        losses.append(float(loss))
        compiles_per_step.append(kiln.metrics()["compiles"] - before)
        if it % 50 == 0 or it == args.steps - 1:
            print(f"step {it:4d}  loss {losses[-1]:.4f}  "
                  f"lr {opt.param_groups[0]['lr']:.2e}", flush=True)
    seconds = time.perf_counter() - began

    model.eval()
    with kiln.no_grad():
        vx, vy = batch(val)
        _, val_loss = model(kiln.tensor(vx), kiln.tensor(vy))
        val_loss = float(val_loss)
    model.train()
    if args.checkpoint:
        kiln.save({"model": model.state_dict(), "optim": opt.state_dict(),
                   "sched": sched.state_dict(), "step": args.steps},
                  args.checkpoint)
    prompt = data[:args.block_size].tolist()
    text_out = "".join(chars[i] for i in sample(model, prompt, args.sample))
    print("sample:", repr(text_out))
    summary = {
        "steps": len(losses), "first_loss": losses[0] if losses else None,
        "last_loss": losses[-1] if losses else None,
        "mean_last_10": float(np.mean(losses[-10:])) if losses else None,
        "val_loss": val_loss, "seconds": seconds,
        "compiles_after_step_3": int(sum(compiles_per_step[3:])),
        "replays": step.replays, "vocab": len(chars),
    }
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
