"""kiln.utils.checkpoint, as torch.utils.checkpoint: the same values and
gradients, the forward's values inside recomputed by the backward, and less
memory for it."""

import numpy as np
import pytest

import kiln
from kiln import nn
from kiln.utils.checkpoint import checkpoint, checkpoint_sequential
from conftest import assert_close


def residual_block(h, w, scale=2.0):
    return kiln.tanh(kiln.matmul(h, w)) * scale + h


def blocks(rng, n, size):
    return [kiln.tensor(rng.standard_normal((size, size)).astype(np.float32)
                        * 0.2, requires_grad=True) for _ in range(n)]


def grads_of(x, ws, checkpointed, **kwargs):
    h = x
    for w in ws:
        h = (checkpoint(residual_block, h, w, use_reentrant=False, **kwargs)
             if checkpointed else residual_block(h, w, **kwargs))
    loss = (h * h).mean()
    return [loss.numpy()] + [g.numpy() for g in kiln.grad(loss, ws)]


def test_same_values_and_gradients(rng):
    x = kiln.tensor(rng.standard_normal((16, 32)).astype(np.float32))
    ws = blocks(rng, 4, 32)
    plain = grads_of(x, ws, False)
    checkpointed = grads_of(x, ws, True, scale=0.5)
    rescaled = grads_of(x, ws, False, scale=0.5)
    for got, want in zip(checkpointed, rescaled):
        assert_close(got, want, rtol=1e-5, atol=1e-6)
    # The keyword argument reached the function.
    assert not np.allclose(plain[0], checkpointed[0])


def test_nn_modules_backward_and_sequential(rng):
    kiln.manual_seed(3)
    net = nn.Sequential(nn.Linear(24, 48), nn.GELU(), nn.LayerNorm(48),
                        nn.Linear(48, 48), nn.Tanh(), nn.Linear(48, 8))
    x = kiln.tensor(rng.standard_normal((10, 24)).astype(np.float32))

    def grads(forward):
        for p in net.parameters():
            p.grad = None
        out = forward(x)
        (out * out).sum().backward()
        return out.numpy(), [p.grad.numpy() for p in net.parameters()]

    want_out, want = grads(net)
    # Each module a segment of its own, and two chunks of three.
    got_out, got = grads(lambda v: _each(net, v))
    seq_out, seq = grads(lambda v: checkpoint_sequential(net, 2, v,
                                                         use_reentrant=False))
    for out, gs in [(got_out, got), (seq_out, seq)]:
        assert_close(out, want_out, rtol=1e-5, atol=1e-5)
        for g, w in zip(gs, want):
            assert_close(g, w, rtol=1e-4, atol=1e-5)


def _each(net, v):
    for module in net.children():
        v = checkpoint(module, v, use_reentrant=True)
    return v


def test_several_outputs_nesting_and_dropout(rng):
    a = kiln.tensor(rng.standard_normal((8, 8)).astype(np.float32),
                    requires_grad=True)
    b = kiln.tensor(rng.standard_normal((8, 8)).astype(np.float32),
                    requires_grad=True)

    def inner(u):
        return kiln.exp(u * 0.1).sum(1, keepdim=True) * u

    def outer(u, v, nested):
        p = kiln.matmul(u, v)
        q = checkpoint(inner, p, use_reentrant=False) if nested else inner(p)
        return q.tanh(), nn.functional.dropout(p, 0.25) + v

    def run(checkpointed):
        kiln.manual_seed(11)  # the same dropout mask both ways
        if checkpointed:
            y, z = checkpoint(outer, a, b, True, use_reentrant=False)
        else:
            y, z = outer(a, b, False)
        loss = (y * z).sum()
        return [loss.numpy()] + [g.numpy() for g in kiln.grad(loss, [a, b])]

    for got, want in zip(run(True), run(False)):
        assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_second_order_through_a_checkpoint(rng):
    x = kiln.tensor(rng.standard_normal((6,)).astype(np.float32),
                    requires_grad=True)

    def f(u):
        return (kiln.sin(u) * u).sum()

    def hessian_diagonal_sum(checkpointed):
        y = checkpoint(f, x, use_reentrant=False) if checkpointed else f(x)
        (g,) = kiln.grad(y, [x], create_graph=True)
        (h,) = kiln.grad(g.sum(), [x])
        return h.numpy()

    a = x.numpy()
    want = 2 * np.cos(a) - a * np.sin(a)  # d/du of sin(u) + u cos(u)
    assert_close(hessian_diagonal_sum(True), want, rtol=1e-5, atol=1e-5)
    assert_close(hessian_diagonal_sum(False), want, rtol=1e-5, atol=1e-5)


def test_the_backward_keeps_less(rng):
    # Eight residual blocks of [512, 256]: without checkpoints the backward
    # keeps each block's input and tanh; with them, only the inputs (the
    # tanh is recomputed when the backward reaches its block).
    x = kiln.tensor(rng.standard_normal((512, 256)).astype(np.float32))
    ws = blocks(rng, 8, 256)

    def peak(checkpointed):
        grads_of(x, ws, checkpointed)  # compiles
        kiln.reset_peak_memory_stats()
        live = kiln.metrics()["live_bytes"]
        grads_of(x, ws, checkpointed)
        return kiln.metrics()["peak_bytes"] - live

    plain, checkpointed = peak(False), peak(True)
    block = 512 * 256 * 4
    assert plain >= 16 * block
    assert checkpointed <= 0.75 * plain, (checkpointed, plain)


def test_attention_blocks_keep_at_most_half(rng):
    # Transformer-like blocks (causal attention, a projection, LayerNorm),
    # each checkpointed: the backward recomputes their values, the
    # attention's too (its fused kernel is part of the segment), next to
    # where it needs them. The step's peak above what was live, gradients
    # included, is at most half of the plain one.
    b, t, c = 4, 64, 64
    ws = [[kiln.tensor(rng.standard_normal((c, c)).astype(np.float32) * 0.1,
                       requires_grad=True) for _ in range(4)]
          for _ in range(6)]
    x = kiln.tensor(rng.standard_normal((b, t, c)).astype(np.float32))
    f = nn.functional

    def block(h, wq, wk, wv, wo):
        a = f.scaled_dot_product_attention(h @ wq, h @ wk, h @ wv,
                                           is_causal=True)
        return f.layer_norm(h + (a @ wo).tanh(), (c,))

    def grads(checkpointed):
        h = x
        for w in ws:
            h = (checkpoint(block, h, *w, use_reentrant=False)
                 if checkpointed else block(h, *w))
        loss = (h * h).mean()
        return [g.numpy() for g in kiln.grad(loss, [p for w in ws for p in w])]

    def peak(checkpointed):
        first = grads(checkpointed)  # compiles
        kiln.reset_peak_memory_stats()
        live = kiln.metrics()["live_bytes"]
        grads(checkpointed)
        return kiln.metrics()["peak_bytes"] - live, first

    (plain, expected), (checkpointed, got) = peak(False), peak(True)
    for a, b_ in zip(got, expected):
        assert_close(a, b_, rtol=1e-5, atol=1e-6)
    assert checkpointed <= 0.5 * plain, (checkpointed, plain)


def test_refusals():
    with pytest.raises(NotImplementedError, match="context_fn"):
        checkpoint(lambda v: v, kiln.tensor(np.ones(2, np.float32)),
                   context_fn=lambda: None)
    with pytest.raises(ValueError, match="segments"):
        checkpoint_sequential([lambda v: v], 0,
                              kiln.tensor(np.ones(2, np.float32)))
