"""kiln.distributed: collectives on one rank, their gradients, averaged
gradients, and (where OpenMPI is installed) two ranks under mpirun training
to the same weights as one process."""

import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kiln
import kiln.distributed as dist
from conftest import assert_close


def test_one_rank_collectives_are_their_operand(rng):
    dist.init()
    assert dist.size() >= 1 and 0 <= dist.rank() < dist.size()
    if dist.size() != 1:
        pytest.skip("run under an MPI launcher")
    x = rng.standard_normal((4, 6)).astype(np.float32)
    t = kiln.tensor(x)
    for op in ("sum", "mean", "max"):
        assert_close(dist.all_reduce(t, op).numpy(), x)
    assert_close(dist.all_gather(t, axis=-1).numpy(), x)
    assert_close(dist.reduce_scatter(t, axis=0, op="mean").numpy(), x)


def test_collectives_are_differentiable(rng):
    x = kiln.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    y = (dist.all_reduce(kiln.tanh(x), "mean") * x).sum()
    (g,) = kiln.grad(y, [x])
    xs = x.numpy()
    # One rank: d/dx (tanh(x) * x) = (1 - tanh^2) x + tanh.
    assert_close(g.numpy(), (1 - np.tanh(xs) ** 2) * xs + np.tanh(xs))


def test_bad_arguments_are_refused(rng):
    t = kiln.tensor(rng.standard_normal((4,)).astype(np.float32))
    with pytest.raises(ValueError, match="op must be 'sum', 'mean' or 'max'"):
        dist.all_reduce(t, "min")
    with pytest.raises(TypeError, match="kiln.Tensor"):
        dist.all_reduce(np.ones(3))
    with pytest.raises(ValueError, match="dim 3 is not a dim"):
        dist.all_gather(t, axis=3)


def test_data_parallel_averages_leaf_gradients(rng):
    w = kiln.tensor(rng.standard_normal((5, 2)).astype(np.float32),
                    requires_grad=True)
    b = kiln.tensor(np.zeros(2, np.float32), requires_grad=True)
    model = dist.DataParallel([w, b], bucket_mb=1e-5)  # a bucket per leaf
    x = model.shard(rng.standard_normal((8, 5)).astype(np.float32))
    assert x.shape == (8 // dist.size(), 5)
    loss = ((kiln.tensor(x) @ w + b) ** 2).sum()
    loss.backward()
    before = [w.grad.numpy().copy(), b.grad.numpy().copy()]
    model.average_gradients()
    if dist.size() == 1:
        assert_close(w.grad.numpy(), before[0])
        assert_close(b.grad.numpy(), before[1])


SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import kiln, kiln.distributed as dist

    parallel = sys.argv[1] == "parallel"
    rng = np.random.default_rng(3)
    w = kiln.tensor(rng.standard_normal((6, 3)).astype(np.float32),
                    requires_grad=True)
    opt = kiln.optim.SGD([w], lr=0.05)
    model = dist.DataParallel([w]) if parallel else None
    for step in range(20):
        x = rng.standard_normal((8, 6)).astype(np.float32)
        y = rng.standard_normal((8, 3)).astype(np.float32)
        if parallel:
            x, y = model.shard(x), model.shard(y)
        opt.zero_grad()
        loss = ((kiln.tensor(x) @ w - kiln.tensor(y)) ** 2).mean()
        loss.backward()
        if parallel:
            model.average_gradients()
        opt.step()
        if parallel and step == 0:
            try:
                model.shard(np.ones((7, 2)))
                sys.exit("a batch of 7 split into 2 shards")
            except ValueError as e:
                assert "does not split into 2 equal shards" in str(e), e
    # Every rank computes what the others compute: a rank that never asked
    # for the weights would leave the others waiting in their collectives.
    value = w.numpy()
    if not parallel or dist.rank() == 0:
        np.save(sys.argv[2], value)
    if parallel:
        # A finalized job cannot be joined again: a named error, not MPI's
        # abort.
        dist.finalize()
        try:
            dist.init()
            sys.exit("init after finalize was accepted")
        except ValueError as e:
            assert "MPI was finalized" in str(e), e
""")


def mpi_env():
    """The environment of the ranks: a timeout, oversubscribed cores."""
    return dict(os.environ, KILN_DIST_TIMEOUT_S="60",
                OMPI_MCA_rmaps_base_oversubscribe="1",
                OMPI_MCA_btl_vader_single_copy_mechanism="none")


# OpenMPI's launcher (Debian's `mpirun` is whichever MPI its alternatives
# chose; these ranks use OpenMPI's options).
MPIRUN = shutil.which("mpirun.openmpi") or shutil.which("mpirun")


def mpirun_command(ranks):
    command = [MPIRUN, "-np", str(ranks), "--oversubscribe"]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    return command


@pytest.mark.skipif(MPIRUN is None, reason="no mpirun")
def test_two_ranks_train_as_one_process(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    env = mpi_env()
    one = subprocess.run([sys.executable, str(script), "one",
                          str(tmp_path / "one.npy")], env=env,
                         capture_output=True, text=True, timeout=240)
    assert one.returncode == 0, one.stderr
    mpirun = mpirun_command(2)
    two = subprocess.run(mpirun + [sys.executable, str(script), "parallel",
                                   str(tmp_path / "two.npy")], env=env,
                         capture_output=True, text=True, timeout=240)
    assert two.returncode == 0, two.stdout + two.stderr
    assert_close(np.load(tmp_path / "two.npy"), np.load(tmp_path / "one.npy"),
                 rtol=1e-5, atol=1e-6)


GROUPS = textwrap.dedent("""
    import sys
    import numpy as np
    import kiln
    import kiln.distributed as dist

    dist.init()
    r = dist.rank()
    assert dist.size() == 3, dist.size()
    if sys.argv[1] == "mismatched":  # each rank names another group
        try:
            dist.new_group([r])
        except ValueError as e:
            print("refused:", e)
        sys.exit(0)
    pair = dist.new_group([2, 0])  # rank 2 is the pair's rank 0
    alone = dist.new_group([1])
    assert (pair, alone) == (1, 2), (pair, alone)
    assert dist.group_size(pair) == 2 and dist.group_size(alone) == 1
    assert dist.group_rank(pair) == {0: 1, 1: -1, 2: 0}[r]
    assert dist.group_size(7) == -1
    x = kiln.tensor(np.full((2, 3), float(r + 1), np.float32))
    mine, other = (pair, alone) if r != 1 else (alone, pair)
    if r != 1:
        assert np.allclose(dist.all_reduce(x, "sum", group=pair).numpy(), 4.0)
        g = dist.all_gather(x, axis=1, group=pair).numpy()
        assert g.shape == (2, 6) and np.allclose(g[:, :3], 3.0), g
        assert np.allclose(g[:, 3:], 1.0), g
        m = dist.reduce_scatter(x, axis=0, op="mean", group=pair).numpy()
        assert m.shape == (1, 3) and np.allclose(m, 2.0), m
    else:
        assert np.allclose(dist.all_reduce(x, "max", group=alone).numpy(), 2.0)
    try:
        dist.all_reduce(x, group=other).numpy()
        raise AssertionError("a collective of a group this rank is not in")
    except ValueError as e:
        assert "is not in group" in str(e), e
    # The world still reduces over everyone.
    assert np.allclose(dist.all_reduce(x, "sum").numpy(), 6.0)
    for bad, why in (([0, 0], "named twice"), ([5], "not in the world"),
                     ([], "needs a rank")):
        try:
            dist.new_group(bad)
            raise AssertionError(bad)
        except ValueError as e:
            assert why in str(e), e
    with open(sys.argv[2] + "/rank%d" % r, "w") as done:
        done.write("ok")
""")


@pytest.mark.skipif(MPIRUN is None, reason="no mpirun")
def test_groups_of_three_ranks(tmp_path):
    script = tmp_path / "groups.py"
    script.write_text(GROUPS)
    env = mpi_env()
    mpirun = mpirun_command(3)
    run = subprocess.run(mpirun + [sys.executable, str(script), "groups",
                                   str(tmp_path)],
                         env=env, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stdout + run.stderr
    for r in range(3):  # every rank got to the end
        assert (tmp_path / ("rank%d" % r)).read_text() == "ok", r
    # Ranks that name different groups are refused, then abort the job
    # (the world is broken: a peer may be waiting in the split).
    bad = subprocess.run(mpirun + [sys.executable, str(script), "mismatched",
                                   str(tmp_path)],
                         env=env, capture_output=True, text=True, timeout=240)
    assert bad.returncode != 0, bad.stdout + bad.stderr
    assert "refused:" in bad.stdout and \
        "runs another program than rank 0" in bad.stdout, bad.stdout
    assert "the ranks name other groups" in bad.stdout, bad.stdout
