#!/usr/bin/env python3
"""The peers' side of bench/python/run.py (the peers python of
../shared/peers/setup.sh: PyTorch 1.13 and JAX 0.4.30): per-op cost of
PyTorch eager on tiny tensors, and the two training steps in PyTorch eager
(autograd, torch.optim) and as one jax.jit call. Prints one JSON line;
a peer that is missing gives an *_error field."""

import json
import sys

import numpy as np

from workloads import DEEP, LSTM, MLP, MLP_SGD, deep_batch, deep_weights, \
    lstm_batch, lstm_weights, mlp_batch, mlp_sgd_batch, mlp_sgd_weights, \
    mlp_weights, record_ops, time_loop


def torch_side(steps):
    import torch
    out = {"torch_version": torch.__version__,
           "torch_threads": torch.get_num_threads()}
    out["record"] = record_ops(torch.ones(4, 4), torch.ones(4, 4))

    # LSTM language model.
    w = [torch.tensor(a, requires_grad=True)
         for a in lstm_weights(np.random.default_rng(1))]
    embed, wx, wh, bias, wout, bout = w
    opt = torch.optim.SGD(w, lr=LSTM["lr"])
    rng = np.random.default_rng(2)
    data = [torch.from_numpy(lstm_batch(rng)) for _ in range(16)]
    bsz, hs = LSTM["batch"], LSTM["hidden"]

    def lstm_step(i):
        tokens = data[i % len(data)]
        opt.zero_grad()
        h = torch.zeros(bsz, hs)
        c = torch.zeros(bsz, hs)
        loss = 0
        for t in range(LSTM["seq"]):
            x = tokens[t] @ embed
            gates = x @ wx.T + h @ wh.T + bias
            i_, f, g, o = gates.chunk(4, 1)
            c = f.sigmoid() * c + i_.sigmoid() * g.tanh()
            h = o.sigmoid() * c.tanh()
            logits = h @ wout + bout
            loss = loss - (torch.log_softmax(logits, 1) * tokens[t + 1]).sum()
        loss = loss / (bsz * LSTM["seq"])
        loss.backward()
        opt.step()
        return loss

    out["lstm_step_us"], out["lstm_loss"] = time_loop(
        lstm_step, steps, lambda l: l.item())

    w = [torch.tensor(a, requires_grad=True)
         for a in mlp_weights(np.random.default_rng(1))]
    w1, b1, w2, b2 = w
    opt2 = torch.optim.Adam(w, lr=MLP["lr"])
    data2 = [tuple(torch.from_numpy(a) for a in mlp_batch(rng))
             for _ in range(16)]

    def mlp_step(i):
        x, y = data2[i % len(data2)]
        opt2.zero_grad()
        logits = (x @ w1 + b1).relu() @ w2 + b2
        loss = -(torch.log_softmax(logits, 1) * y).sum(1).mean()
        loss.backward()
        opt2.step()
        return loss

    out["mlp_step_us"], out["mlp_loss"] = time_loop(
        mlp_step, steps, lambda l: l.item())

    def classifier(w, make_opt, make_batch):
        params = [torch.tensor(a, requires_grad=True) for a in w]
        opt = make_opt(params)
        data = [tuple(torch.from_numpy(a) for a in make_batch(rng))
                for _ in range(16)]

        def step(i):
            x, y = data[i % len(data)]
            opt.zero_grad()
            h = x
            for k in range(0, len(params), 2):
                h = h @ params[k] + params[k + 1]
                if k + 2 < len(params):
                    h = h.tanh()
            loss = torch.nn.functional.cross_entropy(h, y)
            loss.backward()
            opt.step()
            return loss
        return time_loop(step, steps, lambda l: l.item())

    out["mlp_sgd_step_us"], out["mlp_sgd_loss"] = classifier(
        mlp_sgd_weights(np.random.default_rng(1)),
        lambda p: torch.optim.SGD(p, lr=MLP_SGD["lr"],
                                  momentum=MLP_SGD["momentum"]),
        mlp_sgd_batch)
    for name, layers in (("adam16", 8), ("adam64", 32)):
        out[f"{name}_step_us"], out[f"{name}_loss"] = classifier(
            deep_weights(np.random.default_rng(1), layers),
            lambda p: torch.optim.Adam(p, lr=DEEP["lr"]), deep_batch)
    return out


def jax_classifier(jax, jnp, steps, rng, weights, make_batch, opt):
    """One jax.jit call per step of a tanh classifier (softmax
    cross-entropy on class labels), its state donated (donate_argnums, as
    XLA users write it); `opt` is "sgd" (with momentum) or "adam"."""

    def loss_fn(w, x, y):
        h = x
        for k in range(0, len(w), 2):
            h = h @ w[k] + w[k + 1]
            if k + 2 < len(w):
                h = jnp.tanh(h)
        logp = jax.nn.log_softmax(h, 1)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], 1))

    if opt == "sgd":
        lr, mu = MLP_SGD["lr"], MLP_SGD["momentum"]

        def update(w, state, grads):
            buf = [mu * b + g for b, g in zip(state[0], grads)]
            return [p - lr * b for p, b in zip(w, buf)], (buf,)
        state = ([jnp.zeros_like(jnp.asarray(a)) for a in weights],)
    else:
        b1, b2, eps, lr = 0.9, 0.999, 1e-8, DEEP["lr"]

        def update(w, state, grads):
            m, v, count = state
            count = count + 1
            m = [b1 * mi + (1 - b1) * g for mi, g in zip(m, grads)]
            v = [b2 * vi + (1 - b2) * g * g for vi, g in zip(v, grads)]
            step_size = lr / (1 - b1 ** count)
            scale = jax.lax.rsqrt(1 - b2 ** count)
            w = [p - step_size * mi / (jnp.sqrt(vi) * scale + eps)
                 for p, mi, vi in zip(w, m, v)]
            return w, (m, v, count)
        zeros = [jnp.zeros_like(jnp.asarray(a)) for a in weights]
        state = (zeros, [jnp.zeros_like(z) for z in zeros], jnp.float32(0))

    def step(w, state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(w, x, y)
        w, state = update(w, state, grads)
        return w, state, loss

    jitted = jax.jit(step, donate_argnums=(0, 1))
    st = {"w": [jnp.asarray(a) for a in weights], "s": state}
    data = [tuple(jnp.asarray(a) for a in make_batch(rng)) for _ in range(16)]

    def call(i):
        x, y = data[i % len(data)]
        st["w"], st["s"], loss = jitted(st["w"], st["s"], x, y)
        return loss
    return time_loop(call, steps, lambda l: float(l.block_until_ready()))


def jax_side(steps):
    import jax
    import jax.numpy as jnp
    out = {"jax_version": jax.__version__}
    bsz, hs = LSTM["batch"], LSTM["hidden"]

    def lstm_loss(w, tokens):
        embed, wx, wh, bias, wout, bout = w
        h = jnp.zeros((bsz, hs))
        c = jnp.zeros((bsz, hs))
        loss = 0.0
        for t in range(LSTM["seq"]):
            x = tokens[t] @ embed
            gates = x @ wx.T + h @ wh.T + bias
            i_, f, g, o = jnp.split(gates, 4, axis=1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i_) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            logits = h @ wout + bout
            loss = loss - jnp.sum(jax.nn.log_softmax(logits, 1) *
                                  tokens[t + 1])
        return loss / (bsz * LSTM["seq"])

    @jax.jit
    def lstm_step(w, tokens):
        loss, grads = jax.value_and_grad(lstm_loss)(w, tokens)
        return [p - LSTM["lr"] * g for p, g in zip(w, grads)], loss

    rng = np.random.default_rng(2)
    data = [jnp.asarray(lstm_batch(rng)) for _ in range(16)]
    state = {"w": [jnp.asarray(a)
                   for a in lstm_weights(np.random.default_rng(1))]}

    def call_lstm(i):
        state["w"], loss = lstm_step(state["w"], data[i % len(data)])
        return loss

    out["lstm_step_us"], out["lstm_loss"] = time_loop(
        call_lstm, steps, lambda l: float(l.block_until_ready()))

    def mlp_loss(w, x, y):
        w1, b1, w2, b2 = w
        logits = jax.nn.relu(x @ w1 + b1) @ w2 + b2
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits, 1) * y, 1))

    b1_, b2_, eps, lr = 0.9, 0.999, 1e-8, MLP["lr"]

    @jax.jit
    def mlp_step(w, m, v, count, x, y):
        loss, grads = jax.value_and_grad(mlp_loss)(w, x, y)
        count = count + 1
        m = [b1_ * mi + (1 - b1_) * g for mi, g in zip(m, grads)]
        v = [b2_ * vi + (1 - b2_) * g * g for vi, g in zip(v, grads)]
        step_size = lr / (1 - b1_ ** count)
        scale = jax.lax.rsqrt(1 - b2_ ** count)
        w = [p - step_size * mi / (jnp.sqrt(vi) * scale + eps)
             for p, mi, vi in zip(w, m, v)]
        return w, m, v, count, loss

    w = [jnp.asarray(a) for a in mlp_weights(np.random.default_rng(1))]
    st = {"w": w, "m": [jnp.zeros_like(p) for p in w],
          "v": [jnp.zeros_like(p) for p in w], "count": jnp.float32(0)}
    data2 = [tuple(jnp.asarray(a) for a in mlp_batch(rng))
             for _ in range(16)]

    def call_mlp(i):
        x, y = data2[i % len(data2)]
        st["w"], st["m"], st["v"], st["count"], loss = mlp_step(
            st["w"], st["m"], st["v"], st["count"], x, y)
        return loss

    out["mlp_step_us"], out["mlp_loss"] = time_loop(
        call_mlp, steps, lambda l: float(l.block_until_ready()))

    out["mlp_sgd_step_us"], out["mlp_sgd_loss"] = jax_classifier(
        jax, jnp, steps, rng, mlp_sgd_weights(np.random.default_rng(1)),
        mlp_sgd_batch, "sgd")
    for name, layers in (("adam16", 8), ("adam64", 32)):
        out[f"{name}_step_us"], out[f"{name}_loss"] = jax_classifier(
            jax, jnp, steps, rng, deep_weights(np.random.default_rng(1), layers),
            deep_batch, "adam")
    return out


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    result = {}
    for name, side in (("torch_eager", torch_side), ("jax_jit", jax_side)):
        try:
            result[name] = side(steps)
        except Exception as e:  # a missing peer is reported, not fatal
            result[name + "_error"] = f"{type(e).__name__}: {e}"[:300]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
