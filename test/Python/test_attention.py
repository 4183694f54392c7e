"""Attention as models write it, against PyTorch in float64: forward and
the gradients of q, k, v (and of a learned additive mask). The shapes span
several of the CPU kernel's 64 x 128 blocks, so the online softmax meets
rows whose first blocks are all masked; -kiln-fuse-attention makes each
of these one kiln.attention (test/Dialect/Kiln/fuse-attention.mlir checks
the recognition on the IR these record)."""

import math

import numpy as np
import pytest

import kiln
import kiln.nn.functional as F

torch = pytest.importorskip("torch")


def torch_attention(q, k, v, mask=None, causal=False, scale=None):
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = (q @ k.transpose(-2, -1)) * scale
    if causal:
        n, m = q.shape[-2], k.shape[-2]
        hide = torch.ones(n, m, dtype=torch.bool).triu(1)
        s = s.masked_fill(hide, -math.inf)
    if mask is not None:
        s = s.masked_fill(~mask, -math.inf) if mask.dtype == torch.bool \
            else s + mask
    return torch.softmax(s, -1) @ v


def check(shape_q, shape_k, dv, seed, mask_kind=None, causal=False,
          scale=None, learned_mask=False):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(shape_q).astype(np.float32)
    k = rng.standard_normal(shape_k).astype(np.float32)
    v = rng.standard_normal(shape_k[:-1] + (dv,)).astype(np.float32)
    dout = rng.standard_normal(shape_q[:-1] + (dv,)).astype(np.float32)
    tq, tk = shape_q[-2], shape_k[-2]
    mask = None
    if mask_kind == "bool":
        mask = rng.random((tq, tk)) < 0.8
        mask[:, 0] = True  # every row sees a key
    elif mask_kind == "float":
        mask = rng.standard_normal((tq, tk)).astype(np.float32)

    kq = kiln.tensor(q, requires_grad=True)
    kk = kiln.tensor(k, requires_grad=True)
    kv = kiln.tensor(v, requires_grad=True)
    km = None
    if mask is not None:
        km = kiln.tensor(mask, requires_grad=learned_mask)
    out = F.scaled_dot_product_attention(kq, kk, kv, attn_mask=km,
                                         is_causal=causal, scale=scale)
    (out * kiln.tensor(dout)).sum().backward()

    tq_, tk_, tv_ = (torch.tensor(x, dtype=torch.float64, requires_grad=True)
                     for x in (q, k, v))
    tm = None
    if mask is not None:
        tm = torch.tensor(mask) if mask.dtype == bool else torch.tensor(
            mask, dtype=torch.float64, requires_grad=learned_mask)
    ref = torch_attention(tq_, tk_, tv_, tm, causal, scale)
    (ref * torch.tensor(dout, dtype=torch.float64)).sum().backward()

    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-4,
                               atol=2e-5)
    for got, want in ((kq, tq_), (kk, tk_), (kv, tv_)):
        np.testing.assert_allclose(got.grad.numpy(), want.grad.numpy(),
                                   rtol=1e-3, atol=1e-4)
    if learned_mask:
        np.testing.assert_allclose(km.grad.numpy(), tm.grad.numpy(),
                                   rtol=1e-3, atol=1e-4)


def test_causal_gpt_heads():
    # [B, h, T, d], T over two query blocks and two key blocks.
    check((2, 3, 150, 16), (2, 3, 150, 16), 16, 1, causal=True)


def test_bool_mask():
    check((2, 2, 70, 8), (2, 2, 140, 8), 8, 2, mask_kind="bool")


def test_additive_mask_and_scale():
    check((3, 40, 8), (3, 40, 8), 8, 3, mask_kind="float", scale=0.3)


def test_cross_attention():
    # Other query and key counts, values of another width.
    check((2, 65, 12), (2, 130, 12), 5, 4)


def test_learned_additive_mask():
    # A mask that gets a gradient takes the decomposed derivative.
    check((2, 2, 20, 8), (2, 2, 20, 8), 8, 5, mask_kind="float",
          learned_mask=True)


def test_gradient_of_gradient():
    # sum(dq * w) differentiated again: the derivative of attention_grad.
    rng = np.random.default_rng(6)
    arrays = [rng.standard_normal((2, 9, 4)).astype(np.float32)
              for _ in range(4)]
    q, k, v, w = arrays
    kq = kiln.tensor(q, requires_grad=True)
    kk = kiln.tensor(k, requires_grad=True)
    kv = kiln.tensor(v, requires_grad=True)
    out = F.scaled_dot_product_attention(kq, kk, kv)
    (dq,) = kiln.autograd.grad(out.sum(), [kq], create_graph=True)
    (dq * kiln.tensor(w)).sum().backward()

    tq_, tk_, tv_ = (torch.tensor(x, dtype=torch.float64, requires_grad=True)
                     for x in (q, k, v))
    ref = torch_attention(tq_, tk_, tv_)
    (tdq,) = torch.autograd.grad(ref.sum(), [tq_], create_graph=True)
    (tdq * torch.tensor(w, dtype=torch.float64)).sum().backward()
    for got, want in ((kq, tq_), (kk, tk_), (kv, tv_)):
        np.testing.assert_allclose(got.grad.numpy(), want.grad.numpy(),
                                   rtol=1e-3, atol=1e-4)
