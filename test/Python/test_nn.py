"""kiln.nn, kiln.nn.functional, kiln.optim and kiln.save/load against
PyTorch (where installed) and numpy."""

import math

import numpy as np
import pytest

import kiln
import kiln.nn as nn
import kiln.nn.functional as F

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None,
                                 reason="PyTorch is not installed")


def close(got, want, rtol=1e-5, atol=1e-6):
    got = got.numpy() if isinstance(got, kiln.Tensor) else np.asarray(got)
    if torch is not None and isinstance(want, torch.Tensor):
        want = want.detach().numpy()
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(11, 8)
        self.blocks = nn.ModuleList([nn.Linear(8, 8) for _ in range(2)])
        self.norm = nn.LayerNorm(8)
        self.head = nn.Sequential(nn.GELU(approximate="tanh"),
                                  nn.Linear(8, 11, bias=False))
        self.drop = nn.Dropout(0.0)
        self.register_buffer("scale", kiln.ones(1))

    def forward(self, ids):
        h = self.emb(ids)
        for block in self.blocks:
            h = h + kiln.relu(block(h))
        return self.head(self.drop(self.norm(h))) * self.scale


def test_module_api():
    kiln.manual_seed(0)
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["emb.weight", "blocks.0.weight", "blocks.0.bias",
                     "blocks.1.weight", "blocks.1.bias", "norm.weight",
                     "norm.bias", "head.1.weight"]
    assert len(list(net.parameters())) == 8
    assert [n for n, _ in net.named_buffers()] == ["scale"]
    # PyTorch's order: a module's own parameters and buffers, then its
    # children's.
    assert list(net.state_dict()) == ["scale"] + names
    assert all(p.is_leaf and p.requires_grad for p in net.parameters())
    assert net.training and not net.eval().training
    assert not net.drop.training
    net.train()
    # Initialisation as PyTorch's: U(+-1/sqrt(fan_in)) and N(0, 1).
    w = net.blocks[0].weight.numpy()
    assert np.abs(w).max() <= 1 / math.sqrt(8)
    e = net.emb.weight.numpy()
    assert 0.7 < e.std() < 1.3
    logits = net(kiln.tensor([[1, 2, 3]]))
    assert logits.shape == (1, 3, 11)
    loss = F.cross_entropy(logits.view(-1, 11), kiln.tensor([2, 3, 4]))
    loss.backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_state_dict_round_trip_and_errors(tmp_path):
    kiln.manual_seed(1)
    a, b = Net(), Net()
    b.load_state_dict(a.state_dict())
    for (name, p), q in zip(a.named_parameters(), b.parameters()):
        close(q, p.numpy())
    numpy_state = {k: v.numpy() for k, v in a.state_dict().items()}
    b.load_state_dict(numpy_state)
    with pytest.raises(RuntimeError, match="missing keys"):
        b.load_state_dict({"emb.weight": numpy_state["emb.weight"]})
    bad = dict(numpy_state, **{"norm.bias": np.zeros(3, np.float32)})
    with pytest.raises(RuntimeError, match="size mismatch"):
        b.load_state_dict(bad)
    path = tmp_path / "model.safetensors"
    kiln.save(a.state_dict(), path)
    c = Net()
    c.load_state_dict(kiln.load(path))
    for p, q in zip(a.parameters(), c.parameters()):
        assert (p.numpy() == q.numpy()).all()


@needs_torch
def test_checkpoints_load_in_safetensors_torch_and_back(tmp_path):
    from safetensors.torch import load_file, save_file
    state = {"w": kiln.tensor(np.arange(6.0).reshape(2, 3)),
             "ids": kiln.tensor([1, 2, 3]),
             "half": kiln.tensor([1.5, -2.0], dtype=kiln.bfloat16),
             "mask": kiln.tensor([True, False])}
    path = tmp_path / "k.safetensors"
    kiln.save(state, path)
    loaded = load_file(str(path))
    assert loaded["w"].dtype == torch.float64
    assert loaded["ids"].tolist() == [1, 2, 3]
    assert loaded["half"].dtype == torch.bfloat16
    assert loaded["half"].float().tolist() == [1.5, -2.0]
    assert loaded["mask"].tolist() == [True, False]
    other = tmp_path / "t.safetensors"
    save_file({"a": torch.arange(4, dtype=torch.int32),
               "b": torch.tensor([0.25], dtype=torch.bfloat16)}, str(other))
    back = kiln.load(other)
    assert back["a"].dtype == kiln.int32 and back["a"].tolist() == [0, 1, 2, 3]
    assert back["b"].dtype == kiln.bfloat16 and back["b"].item() == 0.25


def test_optimizer_state_dict_saved_and_resumed(tmp_path, rng):
    x = kiln.tensor(rng.standard_normal((4, 3)).astype(np.float32))

    def train(model, opt, steps):
        for _ in range(steps):
            opt.zero_grad()
            loss = (model(x) ** 2).mean()
            loss.backward()
            opt.step()
        return loss.item()

    kiln.manual_seed(3)
    a = nn.Linear(3, 2)
    opt_a = kiln.optim.AdamW(a.parameters(), lr=0.01)
    kiln.manual_seed(3)
    b = nn.Linear(3, 2)
    opt_b = kiln.optim.AdamW(b.parameters(), lr=0.01)
    train(a, opt_a, 3)
    train(b, opt_b, 3)
    path = tmp_path / "ckpt.safetensors"
    kiln.save({"model": a.state_dict(), "optim": opt_a.state_dict(),
               "step": 3}, path)
    ckpt = kiln.load(path)
    assert ckpt["step"] == 3
    assert sorted(ckpt["optim"]["state"]) == [0, 1]
    assert ckpt["optim"]["param_groups"][0]["betas"] == (0.9, 0.999)
    kiln.manual_seed(99)
    c = nn.Linear(3, 2)
    opt_c = kiln.optim.AdamW(c.parameters(), lr=0.5)
    c.load_state_dict(ckpt["model"])
    opt_c.load_state_dict(ckpt["optim"])
    assert opt_c.param_groups[0]["lr"] == 0.01
    assert train(b, opt_b, 4) == train(c, opt_c, 4)


@needs_torch
def test_functional_against_torch(rng):
    x = rng.standard_normal((4, 7)).astype(np.float32)
    tx = torch.tensor(x)
    w = rng.standard_normal(7).astype(np.float32)
    b = rng.standard_normal(7).astype(np.float32)
    close(F.layer_norm(kiln.tensor(x), (7,), kiln.tensor(w), kiln.tensor(b)),
          torch.nn.functional.layer_norm(tx, (7,), torch.tensor(w),
                                         torch.tensor(b)), rtol=1e-4,
          atol=1e-5)
    rms = x / np.sqrt((x * x).mean(-1, keepdims=True) +
                      np.finfo(np.float32).eps) * w
    close(F.rms_norm(kiln.tensor(x), (7,), kiln.tensor(w)), rms, rtol=1e-5)
    for approximate in ["none", "tanh"]:
        close(F.gelu(kiln.tensor(x), approximate=approximate),
              torch.nn.functional.gelu(tx, approximate=approximate),
              rtol=1e-5, atol=1e-6)
    close(F.softmax(kiln.tensor(x), dim=0), torch.softmax(tx, 0))
    close(F.log_softmax(kiln.tensor(x), dim=1), torch.log_softmax(tx, 1))
    close(F.mse_loss(kiln.tensor(x), kiln.tensor(w)),
          torch.nn.functional.mse_loss(tx, torch.tensor(w).expand(4, 7)))
    weight = rng.random((7, 5)).astype(np.float32)
    close(F.linear(kiln.tensor(x), kiln.tensor(weight.T)),
          torch.nn.functional.linear(tx, torch.tensor(weight.T)), rtol=1e-5)


@needs_torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_against_torch(rng, reduction, smoothing, weighted):
    logits = rng.standard_normal((6, 5, 3)).astype(np.float32)
    target = rng.integers(0, 5, size=(6, 3))
    target[0, 1] = target[4, 2] = -100  # ignored
    weight = rng.random(5).astype(np.float32) if weighted else None
    kw = dict(reduction=reduction, label_smoothing=smoothing)
    want = torch.nn.functional.cross_entropy(
        torch.tensor(logits, requires_grad=True), torch.tensor(target),
        weight=None if weight is None else torch.tensor(weight), **kw)
    x = kiln.tensor(logits, requires_grad=True)
    got = F.cross_entropy(x, kiln.tensor(target),
                          weight=None if weight is None else
                          kiln.tensor(weight), **kw)
    close(got, want, rtol=1e-5, atol=1e-6)
    # The 2-D form and its gradient.
    flat = torch.tensor(logits[:, :, 0], requires_grad=True)
    loss = torch.nn.functional.cross_entropy(flat, torch.tensor(target[:, 1]),
                                             ignore_index=-100, **kw)
    loss.sum().backward()
    k = kiln.tensor(logits[:, :, 0], requires_grad=True)
    kl = F.cross_entropy(k, kiln.tensor(target[:, 1]), **kw)
    kl.sum().backward()
    close(kl, loss, rtol=1e-5)
    close(k.grad, flat.grad, rtol=1e-5, atol=1e-6)


@needs_torch
def test_cross_entropy_probability_targets_and_nll(rng):
    logits = rng.standard_normal((4, 6)).astype(np.float32)
    probs = rng.random((4, 6)).astype(np.float32)
    probs /= probs.sum(1, keepdims=True)
    close(F.cross_entropy(kiln.tensor(logits), kiln.tensor(probs),
                          label_smoothing=0.2),
          torch.nn.functional.cross_entropy(torch.tensor(logits),
                                            torch.tensor(probs),
                                            label_smoothing=0.2))
    target = rng.integers(0, 6, size=4)
    close(F.nll_loss(F.log_softmax(kiln.tensor(logits), 1),
                     kiln.tensor(target)),
          torch.nn.functional.nll_loss(torch.log_softmax(
              torch.tensor(logits), 1), torch.tensor(target)))
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(kiln.tensor(logits), kiln.tensor([0, 1, 2, 6]))


@needs_torch
def test_embedding_and_its_gradient_against_torch(rng):
    table = rng.standard_normal((10, 4)).astype(np.float32)
    ids = rng.integers(0, 10, size=(3, 5))
    tt = torch.tensor(table, requires_grad=True)
    out = torch.nn.functional.embedding(torch.tensor(ids), tt, padding_idx=2)
    (out * out).sum().backward()
    kt = kiln.tensor(table, requires_grad=True)
    kout = F.embedding(kiln.tensor(ids), kt, padding_idx=2)
    (kout * kout).sum().backward()
    close(kout, out)
    close(kt.grad, tt.grad, rtol=1e-5)


@needs_torch
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_optimizers_against_torch(rng, name):
    w0 = rng.standard_normal((3, 4)).astype(np.float32)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    kwargs = dict(lr=0.05, weight_decay=0.1)
    if name == "SGD":
        kwargs.update(momentum=0.9)
    tw = torch.tensor(w0, requires_grad=True)
    kw = kiln.tensor(w0, requires_grad=True)
    topt = getattr(torch.optim, name)([tw], **kwargs)
    kopt = getattr(kiln.optim, name)([kw], **kwargs)
    for step in range(5):
        for w, opt, xs in [(tw, topt, torch.tensor(x)),
                           (kw, kopt, kiln.tensor(x))]:
            opt.zero_grad()
            loss = ((xs @ w).tanh() ** 2).mean()
            loss.backward()
            opt.step()
        topt.param_groups[0]["lr"] *= 0.9
        kopt.param_groups[0]["lr"] *= 0.9
    close(kw, tw, rtol=1e-5, atol=1e-6)


@needs_torch
def test_clip_grad_norm_against_torch(rng):
    grads = [rng.standard_normal(s).astype(np.float32) for s in [(3, 2), (4,)]]
    tps = [torch.zeros(g.shape, requires_grad=True) for g in grads]
    kps = [kiln.zeros(g.shape, requires_grad=True) for g in grads]
    for p, g in zip(tps, grads):
        p.grad = torch.tensor(g)
    for p, g in zip(kps, grads):
        p.grad = kiln.tensor(g)
    tn = torch.nn.utils.clip_grad_norm_(tps, 0.5)
    kn = nn.utils.clip_grad_norm_(iter(kps), 0.5)  # a generator, as usual
    close(kn, tn.numpy())
    for k, t in zip(kps, tps):
        close(k.grad, t.grad, rtol=1e-5)


def test_dropout_scales_and_draws_new_masks():
    kiln.manual_seed(5)
    drop = nn.Dropout(0.25)
    x = kiln.ones(4000)
    a, b = drop(x).numpy(), drop(x).numpy()
    assert set(np.unique(a)) == {0.0, np.float32(1 / 0.75)}
    assert abs((a == 0).mean() - 0.25) < 0.03
    assert (a != b).any()
    drop.eval()
    assert drop(x) is x


def test_init_functions():
    kiln.manual_seed(2)
    w = kiln.zeros(200, 300, requires_grad=True)
    nn.init.xavier_uniform_(w)
    bound = math.sqrt(6 / 500)
    v = w.numpy()
    assert w.is_leaf and np.abs(v).max() <= bound and v.std() > bound / 3
    nn.init.normal_(w, std=0.02)
    assert abs(w.numpy().std() - 0.02) < 0.002
    nn.init.zeros_(w)
    assert (w.numpy() == 0).all()
    nn.init.ones_(w)
    assert (w.numpy() == 1).all()
    nn.init.uniform_(w, -1, 1)
    assert -1 <= w.numpy().min() < w.numpy().max() < 1


def test_module_to_dtype():
    m = nn.Linear(3, 2).to(kiln.float64)
    assert m.weight.dtype == kiln.float64 and m.weight.requires_grad
    assert m(kiln.ones(1, 3, dtype=kiln.float64)).dtype == kiln.float64


def test_jit_with_dropout_and_a_schedule_compiles_nothing_after_step_3(rng):
    kiln.manual_seed(4)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.5),
                          nn.Linear(32, 1))
    opt = kiln.optim.AdamW(model.parameters(), lr=0.01)
    sched = kiln.optim.lr_scheduler.LambdaLR(opt, lambda e: 1 / (1 + e))
    x = rng.standard_normal((64, 8)).astype(np.float32)

    @kiln.jit
    def step(x):
        opt.zero_grad()
        out = model(kiln.tensor(x) if not isinstance(x, kiln.Tensor) else x)
        loss = (out * out).mean()
        loss.backward()
        opt.step()
        return loss

    compiles, masks = [], []
    for _ in range(8):
        before = kiln.metrics()["compiles"]
        step(x)
        sched.step()
        compiles.append(kiln.metrics()["compiles"] - before)
        masks.append(model[2](kiln.ones(64)).numpy().copy())
    assert sum(compiles[3:]) == 0, compiles
    assert step.replays >= 5
    # Each draw, replayed or not, gives a new mask.
    assert len({m.tobytes() for m in masks}) == len(masks)
