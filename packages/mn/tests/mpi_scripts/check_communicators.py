"""Array/object collectives and gradient averaging, checked against NumPy.

Run under mpiexec with any number of ranks; prints ``CHECKS-OK <rank>``.
An assertion failure on any rank aborts the whole job (global except hook).
"""

import sys

import numpy as np
from mpi4py import MPI

import kusari
import kusari.links as L
import kusari_mn

NAMES = ["naive", "flat", "hierarchical", "two_dimensional", "single_node"]


def data(rank, shape=(2, 3), dtype=np.float32):
    return (np.arange(np.prod(shape)).reshape(shape) + 10 * rank).astype(dtype)


class MLP(kusari.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 3)
            self.l2 = L.Linear(3, 2)
            self.unused = L.Linear(2, 2)


def set_grads(model, rank, skip_unused=True):
    for i, (name, p) in enumerate(sorted(model.namedparams())):
        if skip_unused and name.startswith("/unused"):
            p.grad = None
        else:
            p.grad = np.full(p.shape, (rank + 1) * (i + 1), p.dtype) + np.arange(
                p.size, dtype=p.dtype
            ).reshape(p.shape)


def check_arrays(comm):
    r, n = comm.rank, comm.size
    # send / recv in a ring, single array and tuple (mixed dtypes allowed)
    if n > 1:
        dest, src = (r + 1) % n, (r - 1) % n
        if r % 2 == 0:
            comm.send(data(r), dest, tag=3)
            got = comm.recv(src, tag=3)
        else:
            got = comm.recv(src, tag=3)
            comm.send(data(r), dest, tag=3)
        np.testing.assert_array_equal(got, data(src))
        if r == 0:
            comm.send((data(0, (2,), np.float16), data(0, (3, 1), np.int64)), 1, 5)
        elif r == 1:
            a, b = comm.recv(0, 5)
            assert a.dtype == np.float16 and b.dtype == np.int64, (a.dtype, b.dtype)
            np.testing.assert_array_equal(b, data(0, (3, 1), np.int64))
    for root in range(n):
        y = comm.bcast(data(root) if r == root else None, root=root)
        np.testing.assert_array_equal(y, data(root))
        # gather with shapes that differ per rank
        ys = comm.gather(data(r, (r + 1, 2)), root=root)
        if r == root:
            assert len(ys) == n
            for i, yi in enumerate(ys):
                np.testing.assert_array_equal(yi, data(i, (i + 1, 2)))
        else:
            assert ys is None
        xs = [data(i, (i + 2,), np.float64) for i in range(n)] if r == root else None
        y = comm.scatter(xs, root=root)
        np.testing.assert_array_equal(y, data(r, (r + 2,), np.float64))
    ys = comm.allgather(data(r, (3,)))
    for i, yi in enumerate(ys):
        np.testing.assert_array_equal(yi, data(i, (3,)))
    for dtype in (np.float32, np.float64, np.int32, np.float16):
        total = comm.allreduce(data(r, (2, 2), dtype))
        ref = sum(data(i, (2, 2), np.float64) for i in range(n))
        assert total.dtype == dtype
        np.testing.assert_allclose(total.astype(np.float64), ref)
    # alltoall: rank r sends a (j+1)-long array valued 100*r + j to rank j
    ys = comm.alltoall([np.full(j + 1, 100 * r + j, np.float32) for j in range(n)])
    for i, yi in enumerate(ys):
        np.testing.assert_array_equal(yi, np.full(r + 1, 100 * i + r, np.float32))
    try:
        comm.alltoall([data(r)] * (n + 1))
    except ValueError as e:
        assert "expected" in str(e)
    else:
        raise AssertionError("alltoall accepted a wrong number of arrays")


def check_objects(comm):
    r, n = comm.rank, comm.size
    obj = {"rank": r, "items": list(range(r))}
    for root in range(n):
        got = comm.bcast_obj(obj if r == root else None, root=root)
        assert got == {"rank": root, "items": list(range(root))}
        # small chunks: the pickle travels in many pieces
        got = comm.bcast_obj(obj if r == root else None, max_buf_len=7, root=root)
        assert got == {"rank": root, "items": list(range(root))}
        gathered = comm.gather_obj(r * 2, root=root)
        assert gathered == ([2 * i for i in range(n)] if r == root else None)
    assert comm.allreduce_obj(r + 1) == n * (n + 1) // 2
    assert comm.allgather_obj(r) == list(range(n))
    if n > 1:
        if r == 0:
            comm.send_obj(("hello", [1, 2]), 1)
            comm.send_obj_chunked(np.arange(1000), 1, max_buf_len=64)
        elif r == 1:
            assert comm.recv_obj(0) == ("hello", [1, 2])
            np.testing.assert_array_equal(comm.recv_obj_chunked(0), np.arange(1000))


def check_mean_grad(comm, name, dtype=None):
    r, n = comm.rank, comm.size
    model = MLP()
    comm.bcast_data(model)
    ref_model = MLP()
    for step in range(3):  # reuse of the buffer across steps
        set_grads(model, r + step)
        comm.multi_node_mean_grad(model, zero_fill=True)
        for i, (pname, p) in enumerate(sorted(model.namedparams())):
            if pname.startswith("/unused"):
                expect = np.zeros(p.shape)  # zero_fill: None -> 0 everywhere
            else:
                expect = np.mean(
                    [
                        np.full(p.shape, (k + step + 1) * (i + 1))
                        + np.arange(p.size).reshape(p.shape)
                        for k in range(n)
                    ],
                    axis=0,
                )
            tol = 2e-2 if dtype == np.float16 else 1e-6
            np.testing.assert_allclose(
                p.grad, expect, rtol=tol, err_msg=f"{name} {pname}"
            )
            assert p.grad.dtype == np.float32
    buf_id = id(comm._grads.groups[0].buffer)
    set_grads(model, r)
    comm.multi_node_mean_grad(model, zero_fill=True)
    assert id(comm._grads.groups[0].buffer) == buf_id, "buffer was reallocated"
    # without zero_fill a None gradient stays None
    set_grads(model, r)
    comm.multi_node_mean_grad(model, zero_fill=False)
    assert model.unused.W.grad is None
    del ref_model


def check_bcast_data(comm):
    model = MLP()
    if comm.rank == 0:
        for p in model.params():
            p.array[...] = 7.0
    comm.bcast_data(model)
    for p in model.params():
        np.testing.assert_array_equal(p.array, np.full(p.shape, 7.0, np.float32))


def check_layout_mismatch(comm):
    if comm.size == 1:
        return
    model = MLP() if comm.rank == 0 else L.Linear(4, 3)
    set_grads(model, comm.rank, skip_unused=False)
    fresh = kusari_mn.create_communicator("naive")
    try:
        fresh.multi_node_mean_grad(model)
    except ValueError as e:
        assert "different gradients" in str(e), e
    else:
        raise AssertionError("a mismatched model was averaged")


def check_split(comm):
    r = comm.rank
    sub = comm.split(r % 2, r)
    assert sub.size == len([i for i in range(comm.size) if i % 2 == r % 2])
    assert sub.rank == r // 2
    total = sub.allreduce(np.array([r], np.int64))
    assert int(total[0]) == sum(i for i in range(comm.size) if i % 2 == r % 2)
    sub.finalize()
    assert sub.mpi_comm == MPI.COMM_NULL


def check_dummy(comm):
    model = MLP()
    set_grads(model, comm.rank)
    before = {
        k: None if p.grad is None else p.grad.copy() for k, p in model.namedparams()
    }
    kusari_mn.create_communicator("dummy").multi_node_mean_grad(model)
    for k, p in model.namedparams():
        if before[k] is not None:
            np.testing.assert_array_equal(p.grad, before[k])


def main():
    comm = kusari_mn.create_communicator("naive")
    assert comm.inter_size == 1 and comm.intra_size == comm.size
    assert comm.intra_rank == comm.rank and comm.inter_rank == 0
    check_arrays(comm)
    check_objects(comm)
    for name in NAMES:
        check_mean_grad(kusari_mn.create_communicator(name), name)
    check_mean_grad(
        kusari_mn.create_communicator("flat", allreduce_grad_dtype=np.float16),
        "flat-fp16",
        np.float16,
    )
    check_bcast_data(comm)
    check_layout_mismatch(comm)
    check_split(comm)
    check_dummy(comm)
    for gpu_only in ("pure_nccl", "non_cuda_aware"):
        try:
            kusari_mn.create_communicator(gpu_only)
        except RuntimeError as e:
            assert gpu_only in str(e) and "naive" in str(e), e
    comm.finalize()
    print(f"CHECKS-OK {comm.rank}", flush=True)


if __name__ == "__main__":
    main()
    sys.exit(0)
