"""Data parallelism: the ranks of a job, collectives, and averaged gradients.

Under an MPI launcher (``mpirun -np N python3 train.py``) each process is a
rank; otherwise the process is one rank alone, whose collectives copy. MPI
is loaded at run time (OpenMPI's libmpi.so.40, or ``KILN_MPI_LIBRARY``).

    import kiln, kiln.distributed as dist
    dist.init()
    model = dist.DataParallel(params)          # the requires_grad leaves
    x = model.shard(batch)                     # this rank's rows
    loss = forward(x)
    loss.backward()
    model.average_gradients()                  # recorded, not run
    optimizer.step()

Collectives are recorded like any op and differentiable: ``all_reduce``
(sum, mean, max), ``all_gather`` and ``reduce_scatter`` along an axis. Every
rank must record the same collectives on the same shapes, and compute the
same tensors (a collective runs when its result is computed: a rank that
never asks for a value leaves the others waiting). The ranks compare their
programs before the first collective, and a rank that stops answering is an
error after ``KILN_DIST_TIMEOUT_S`` seconds (default 300), never a hang.
"""

from . import _C

all_gather = _C.all_gather
all_reduce = _C.all_reduce
reduce_scatter = _C.reduce_scatter


def init():
    """Joins the job: with MPI under an MPI launcher (or KILN_DIST=mpi),
    alone otherwise. Idempotent."""
    _C._dist_init()


def rank():
    """This process's rank (0 before init)."""
    return _C._dist_rank()


def size():
    """The number of ranks (1 before init)."""
    return _C._dist_size()


def backend():
    """'mpi' or 'none'."""
    return _C._dist_backend()


def new_group(ranks):
    """A communicator of the world's ``ranks`` (each once, in the order of
    their ranks in the group), for the ``group`` argument of the
    collectives. Every rank calls it with the same list, members or not,
    in the same order (as MPI_Comm_split); 0 is the world."""
    return _C._dist_new_group([int(r) for r in ranks])


def group_size(group):
    """The number of ranks in ``group`` (-1: no such group)."""
    return _C._dist_group_size(int(group))


def group_rank(group):
    """This rank's place in ``group`` (-1: not a member)."""
    return _C._dist_group_rank(int(group))


def finalize():
    """Leaves the job (MPI_Finalize, or MPI_Abort after a failed
    collective). Also done at exit."""
    _C._dist_finalize()


def stats():
    """Collectives run so far: a dict of collectives, bytes, wait_ms."""
    return _C._dist_stats()


def average_gradients(grads, bucket_mb=25):
    """The mean over the ranks of each of ``grads`` (kiln.Tensor), one
    all_reduce per bucket of at most ``bucket_mb`` megabytes, as PyTorch
    DDP's buckets."""
    return _C._average_gradients(list(grads), int(bucket_mb * (1 << 20)))


class DataParallel:
    """Keeps ranks that train on different shards in step: averages the
    ``.grad`` of every ``requires_grad`` leaf over the ranks, inside the
    recorded step (so that a ``kiln.jit`` replay includes it).

    ``params``: the leaves, or an object with ``parameters()``."""

    def __init__(self, params, bucket_mb=25):
        if hasattr(params, "parameters"):
            params = params.parameters()
        self.params = [p for p in params if p.requires_grad]
        if not self.params:
            raise ValueError("DataParallel needs leaves with requires_grad")
        self.bucket_mb = bucket_mb
        init()

    def shard(self, batch, axis=0):
        """This rank's equal part of ``batch`` (a numpy array or
        kiln.Tensor) along ``axis``; ValueError when it does not split."""
        n, r = size(), rank()
        rows = batch.shape[axis]
        if rows % n:
            raise ValueError(f"a batch of {rows} does not split into {n} "
                             f"equal shards")
        part = rows // n
        index = [slice(None)] * len(batch.shape)
        index[axis] = slice(r * part, (r + 1) * part)
        return batch[tuple(index)]

    def average_gradients(self):
        """Replaces each leaf's ``.grad`` by its mean over the ranks."""
        with_grad = [p for p in self.params if p.grad is not None]
        averaged = average_gradients([p.grad for p in with_grad],
                                     self.bucket_mb)
        for p, g in zip(with_grad, averaged):
            p.grad = g
