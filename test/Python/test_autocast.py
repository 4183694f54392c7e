"""kiln.autocast and kiln.amp.GradScaler, as torch.autocast and
torch.amp.GradScaler: products in bf16/f16, PyTorch's float32 ops in f32,
gradients in each parameter's dtype; the loss scale's skip-on-inf step.
On the CPU, bf16 and f16 are stored narrow and computed in f32."""

import numpy as np
import pytest

import kiln
import kiln.nn.functional as F

BF16_EPS = 2.0 ** -8  # bf16's unit roundoff (7 stored mantissa bits)


@pytest.fixture
def data(rng):
    x = rng.standard_normal((16, 32)).astype(np.float32)
    w = (rng.standard_normal((32, 8)) / np.sqrt(32)).astype(np.float32)
    return x, w


def test_defaults_are_pytorchs():
    assert not kiln.is_autocast_enabled("cpu")
    assert not kiln.is_autocast_enabled("cuda")
    assert kiln.get_autocast_dtype("cpu") == kiln.bfloat16
    assert kiln.get_autocast_dtype("cuda") == kiln.float16


def test_products_run_in_the_autocast_dtype(data):
    x, w = data
    with kiln.autocast("cpu", dtype=kiln.bfloat16):
        assert kiln.is_autocast_enabled("cpu")
        y = kiln.tensor(x) @ kiln.tensor(w)
        lin = F.linear(kiln.tensor(x), kiln.tensor(w.T.copy()))
    assert not kiln.is_autocast_enabled("cpu")
    assert y.dtype == kiln.bfloat16 and lin.dtype == kiln.bfloat16
    # Operands rounded to bf16, products and sums in f32, one rounding of
    # the result: within a few bf16 roundoffs of the f32 product's scale.
    want = x.astype(np.float64) @ w.astype(np.float64)
    got = y.float().numpy()
    scale = np.abs(x) @ np.abs(w)
    assert np.all(np.abs(got - want) <= 4 * BF16_EPS * scale + 1e-6)
    assert not np.array_equal(got, (x @ w).astype(np.float32))
    # Outside, f32 again.
    assert (kiln.tensor(x) @ kiln.tensor(w)).dtype == kiln.float32


def test_float32_ops_widen_and_others_keep_their_type(data):
    x, w = data
    with kiln.autocast("cpu"):
        h = kiln.tensor(x) @ kiln.tensor(w)  # bf16
        assert h.dtype == kiln.bfloat16
        # PyTorch's cpu float32 list holds the losses only (torch 1.13 and
        # 2.x alike); softmax, exp, sums and norms stay narrow there (on
        # cuda they widen: DeviceTest.AutocastOnTheCudaDevice...).
        assert kiln.softmax(h, 1).dtype == kiln.bfloat16
        assert kiln.log_softmax(h, 1).dtype == kiln.bfloat16
        assert h.exp().dtype == kiln.bfloat16
        assert h.sum().dtype == kiln.bfloat16
        assert F.layer_norm(h, (8,)).dtype == kiln.bfloat16
        assert F.rms_norm(h, (8,)).dtype == kiln.bfloat16
        assert F.mse_loss(h, h.detach()).dtype == kiln.float32
        assert F.l1_loss(h, h.detach()).dtype == kiln.float32
        labels = kiln.tensor(np.arange(16) % 8)
        assert F.cross_entropy(h, labels).dtype == kiln.float32
        assert F.nll_loss(h, labels).dtype == kiln.float32
        # Not in either list: the operands' type, with PyTorch's promotion.
        assert h.tanh().dtype == kiln.bfloat16
        assert h.mean().dtype == kiln.bfloat16
        assert (h + 1.0).dtype == kiln.bfloat16
        assert (h + kiln.zeros((8,))).dtype == kiln.float32
        # f64 is never cast.
        d = kiln.tensor(x.astype(np.float64))
        assert (d @ kiln.tensor(w.astype(np.float64))).dtype == kiln.float64


def test_gradients_come_back_in_each_parameters_dtype(data):
    x, w = data
    xs = kiln.tensor(x)
    wt = kiln.tensor(w, requires_grad=True)
    labels = kiln.tensor(np.arange(16) % 8)
    with kiln.autocast("cpu"):
        loss = F.cross_entropy(xs @ wt, labels)
    assert loss.dtype == kiln.float32
    loss.backward()
    assert wt.grad.dtype == kiln.float32
    w64 = kiln.tensor(w.astype(np.float64), requires_grad=True)
    F.cross_entropy(kiln.tensor(x.astype(np.float64)) @ w64,
                    labels).backward()
    want = w64.grad.numpy()
    got = wt.grad.numpy()
    assert np.max(np.abs(got - want)) <= 8 * BF16_EPS * np.max(np.abs(want))
    assert abs(loss.item() - F.cross_entropy(
        kiln.tensor(x.astype(np.float64)) @ w64.detach(), labels).item()) \
        <= 8 * BF16_EPS


def test_autocast_applies_to_its_device_type_only(data):
    x, w = data
    assert kiln.get_device() == "cpu"
    with kiln.autocast("cuda", dtype=kiln.bfloat16):
        assert (kiln.tensor(x) @ kiln.tensor(w)).dtype == kiln.float32


def test_nesting_disabling_and_the_decorator(data):
    x, w = data
    with kiln.autocast("cpu", dtype=kiln.float16):
        assert (kiln.tensor(x) @ kiln.tensor(w)).dtype == kiln.float16
        with kiln.autocast("cpu", enabled=False):
            assert (kiln.tensor(x) @ kiln.tensor(w)).dtype == kiln.float32
        assert kiln.get_autocast_dtype("cpu") == kiln.float16
        assert (kiln.tensor(x) @ kiln.tensor(w)).dtype == kiln.float16
    assert kiln.get_autocast_dtype("cpu") == kiln.bfloat16

    @kiln.autocast("cpu")
    def product(a, b):
        return a @ b

    assert product(kiln.tensor(x), kiln.tensor(w)).dtype == kiln.bfloat16
    assert not kiln.is_autocast_enabled("cpu")
    assert kiln.amp.autocast is kiln.autocast


def test_bad_arguments_say_what_to_do():
    with pytest.raises(ValueError, match="device_type must be 'cpu' or "
                       "'cuda', not 'tpu'"):
        kiln.autocast("tpu")
    # PyTorch warns and disables autocast here; kiln refuses.
    with pytest.raises(ValueError, match="dtype must be kiln.bfloat16 or "
                       "kiln.float16, not float32"):
        kiln.autocast("cpu", dtype=kiln.float32)


def test_a_model_trains_under_autocast(rng):
    """A 2-layer MLP classifier learns under bf16 autocast as in f32."""
    x = rng.standard_normal((64, 16)).astype(np.float32)
    labels = (x[:, :4].argmax(1)).astype(np.int64)
    model = kiln.nn.Sequential(kiln.nn.Linear(16, 32), kiln.nn.Tanh(),
                               kiln.nn.Linear(32, 4))
    opt = kiln.optim.SGD(model.parameters(), lr=0.5)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        with kiln.autocast("cpu"):
            loss = F.cross_entropy(model(kiln.tensor(x)), kiln.tensor(labels))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert all(p.dtype == kiln.float32 for p in model.parameters())
    assert losses[-1] < 0.5 * losses[0]


def test_grad_scaler_scales_unscales_and_adapts(data):
    x, w = data
    scaler = kiln.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)
    wt = kiln.tensor(w, requires_grad=True)
    opt = kiln.optim.SGD([wt], lr=0.1)
    xs = kiln.tensor(x)

    def train_step(poison=False):
        opt.zero_grad()
        with kiln.autocast("cpu", dtype=kiln.float16):
            loss = ((xs @ wt).float() ** 2).mean()
        if poison:
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        before = wt.detach().numpy().copy()
        result = scaler.step(opt)
        scaler.update()
        return before, result

    # The gradient reaches the optimizer unscaled: w - lr * dL/dw.
    wref = kiln.tensor(w.astype(np.float64), requires_grad=True)
    ((kiln.tensor(x.astype(np.float64)) @ wref) ** 2).mean().backward()
    before, _ = train_step()
    step = (before - wt.detach().numpy()) / 0.1
    assert np.max(np.abs(step - wref.grad.numpy())) <= \
        16 * 2.0 ** -11 * np.max(np.abs(wref.grad.numpy()))
    assert scaler.get_scale() == 1024.0  # one good step of two
    train_step()
    assert scaler.get_scale() == 2048.0  # grown after two
    # An inf gradient: the step is skipped and the scale backs off.
    before, result = train_step(poison=True)
    assert result is None
    assert np.array_equal(before, wt.detach().numpy())
    assert scaler.get_scale() == 1024.0
    state = scaler.state_dict()
    again = kiln.amp.GradScaler("cpu")
    again.load_state_dict(state)
    assert again.get_scale() == 1024.0 and again.state_dict() == state


def test_grad_scaler_misuse_is_refused(data):
    x, w = data
    scaler = kiln.amp.GradScaler("cpu")
    wt = kiln.tensor(w, requires_grad=True)
    opt = kiln.optim.SGD([wt], lr=0.1)
    scaler.scale((kiln.tensor(x) @ wt).sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been "
                       "called on this optimizer since the last update"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been "
                       "called"):
        scaler.step(opt)
    scaler.update()
    disabled = kiln.amp.GradScaler("cpu", enabled=False)
    loss = kiln.tensor(2.0)
    assert disabled.scale(loss) is loss and disabled.get_scale() == 1.0
