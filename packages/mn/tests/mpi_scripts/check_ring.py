"""The ring mean (reduce-scatter with the division fused, then allgather).

:class:`RingMean` on its own, on lengths that do not divide by the number of
ranks, shorter than it, and cut into many tiny segments; then
``multi_node_mean_grad`` with the ring forced on small buffers (gradients in
their views, replaced, None with ``zero_fill``, two dtypes, float16 on the
wire, every CPU communicator name), a layout that changes on every rank
alike and one that changes on one rank only. Every result is compared with
NumPy's mean of all ranks' arrays. Prints ``RING-OK <rank>``.
"""

import check_grad_buffer
import numpy as np

import kusari
import kusari_mn
from kusari_mn.communicators._ring import RingMean, ring_fits

kusari_mn.global_except_hook.remove_hook()  # report a mismatch, don't abort


def everyone(comm, x):
    return np.array(comm.allgather_obj(np.asarray(x, np.float64)))


def check_ring_mean(comm):
    r, n = comm.rank, comm.size
    for dtype in (np.float32, np.float64):
        for length in (1, 2, 3, 5, 7, 100, 1001):
            for segment_bytes in (4, 12, 1 << 20):
                ring = RingMean(segment_bytes)
                rng = np.random.RandomState(1000 * r + length)
                x = rng.standard_normal(length).astype(dtype)
                expect = everyone(comm, x).mean(axis=0)
                buf = x.copy()
                ring(comm.mpi_comm, buf, 1.0 / n)
                what = f"{dtype.__name__} length {length} segment {segment_bytes}"
                np.testing.assert_allclose(buf, expect, rtol=1e-5, atol=1e-6)
                # every rank holds the same bits
                bits = comm.allgather_obj(buf.tobytes())
                assert all(b == bits[0] for b in bits), what
                # a sum (scale 1) too, twice with the same scratch
                buf = x.copy()
                ring(comm.mpi_comm, buf, 1.0)
                ring(comm.mpi_comm, buf, 1.0)
                np.testing.assert_allclose(
                    buf, expect * n * n, rtol=1e-5, atol=1e-5, err_msg=what
                )
    # local data partly in separate arrays (parts), read where they are;
    # what is sent of them staged in the buffer first or sent from them:
    # the same bits
    for segment_bytes in (4, 8, 28, 1 << 20):
        rng = np.random.RandomState(r)
        x = rng.standard_normal(23)
        expect = everyone(comm, x).mean(axis=0)
        for spans in ([(0, 23)], [(2, 5), (5, 6), (9, 20)], [(22, 23)], []):
            results = []
            for stage in (True, False):
                ring = RingMean(segment_bytes, stage_parts=stage)
                buf = x.copy()
                parts = []
                for lo, hi in spans:
                    parts.append((lo, x[lo:hi].copy()))
                    buf[lo:hi] = np.nan  # must not be read
                ring(comm.mpi_comm, buf, 1.0 / n, parts)
                what = f"parts {spans} {segment_bytes} staged {stage}"
                np.testing.assert_allclose(buf, expect, rtol=1e-12, err_msg=what)
                results.append(buf)
            np.testing.assert_array_equal(results[0], results[1])
    try:
        RingMean()(comm.mpi_comm, np.zeros(3, np.float16), 0.5)
    except TypeError as e:
        assert "RingMean" in str(e) and "float16" in str(e), e
    else:
        raise AssertionError("float16 should be refused")


def train_steps(comm, steps):
    """A small MLP trained ``steps`` steps with the multi-node optimizer
    (backward into the buffer), each rank on its own batch; the parameters
    after it, in name order."""
    import kusari.functions as F
    import kusari.links as L

    model = kusari.Sequential(L.Linear(20, 30), F.relu, L.Linear(30, 5))
    for i, (_, p) in enumerate(sorted(model.namedparams())):
        p.array[...] = np.random.RandomState(i).standard_normal(p.shape)
    opt = kusari_mn.create_multi_node_optimizer(
        kusari.optimizers.MomentumSGD(lr=0.1), comm
    )
    opt.setup(model)
    for step in range(steps):
        rng = np.random.RandomState(100 * comm.rank + step)
        x = rng.standard_normal((8, 20)).astype(np.float32)
        t = rng.randint(0, 5, 8).astype(np.int32)
        opt.update(lambda x=x, t=t: F.softmax_cross_entropy(model(x), t))
    return [p.array.copy() for _, p in sorted(model.namedparams())]


def check_fused_scale(comm):
    """The last step's add and 1/size in one pass (axpby, where 1/size is
    a power of two) against NumPy's two passes: the same bits, alone and in
    training; and the one pass is taken at 2 ranks."""
    from kusari.utils import blas as _blas

    r, n = comm.rank, comm.size
    calls = []
    real = _blas.axpby

    def counted(*args):
        calls.append(args[1].size)
        return real(*args)

    _blas.axpby = counted
    try:
        for dtype in (np.float32, np.float64):
            for length in (5, 1001, 70_001):
                for segment_bytes in (12, 1 << 20):
                    rng = np.random.RandomState(1000 * r + length)
                    x = rng.standard_normal(length).astype(dtype)
                    x *= 10.0 ** rng.uniform(-6, 3, length)
                    one, two = x.copy(), x.copy()
                    RingMean(segment_bytes)(comm.mpi_comm, one, 1.0 / n)
                    before = len(calls)
                    RingMean(segment_bytes, fuse_scale=False)(
                        comm.mpi_comm, two, 1.0 / n
                    )
                    assert len(calls) == before, "fuse_scale=False used axpby"
                    what = f"{dtype.__name__} {length} {segment_bytes}"
                    np.testing.assert_array_equal(one, two, err_msg=what)
                    # with parts (replaced gradients): the parts' pieces
                    # keep the two passes, the rest is fused, same bits
                    buf = x.copy()
                    part = x[1:4].copy()
                    buf[1:4] = np.nan
                    RingMean(segment_bytes)(comm.mpi_comm, buf, 1.0 / n, [(1, part)])
                    np.testing.assert_array_equal(buf, two, err_msg="parts " + what)
        # a sum (scale 1) and a scale that is no power of two: two passes
        before = len(calls)
        RingMean()(comm.mpi_comm, np.ones(9), 1.0)
        RingMean()(comm.mpi_comm, np.ones(9), 1.0 / 3)
        assert len(calls) == before
        fused_calls = len(calls)
        # training through the multi-node optimizer on the ring, fused and
        # not: bit-identical parameters
        results = []
        for fuse in (True, False):
            c = forced()
            c._ring.fuse_scale = fuse
            results.append(train_steps(c, steps=4))
        for a, b in zip(results[0], results[1], strict=True):
            np.testing.assert_array_equal(a, b, err_msg="training fused / not")
    finally:
        _blas.axpby = real
    power_of_two = n in (2, 4, 8)
    assert (fused_calls > 0) is power_of_two, (n, fused_calls)


def model_of(sizes, dtypes=None):
    model = kusari.Chain()
    with model.init_scope():
        for i, size in enumerate(sizes):
            dtype = np.float32 if dtypes is None else dtypes[i]
            setattr(model, f"p{i}", kusari.Parameter(np.zeros(size, dtype)))
    return model


def set_grads(model, seed, none=()):
    for i, (name, p) in enumerate(sorted(model.namedparams())):
        if name in none:
            p.grad = None
        else:
            rng = np.random.RandomState(seed * 100 + i)
            p.grad = rng.standard_normal(p.shape).astype(p.array.dtype)


def expected(comm, model):
    """Every parameter's mean gradient over the ranks (None as zeros)."""
    out = {}
    for name, p in sorted(model.namedparams()):
        g = np.zeros(p.shape) if p.grad is None else p.grad
        out[name] = everyone(comm, g).mean(axis=0)
    return out


def assert_mean(model, expect, what, rtol=1e-5, atol=1e-5):
    for name, p in model.namedparams():
        np.testing.assert_allclose(
            p.grad, expect[name], rtol=rtol, atol=atol, err_msg=f"{what} {name}"
        )


def forced(name="flat", **kwargs):
    comm = kusari_mn.create_communicator(name, **kwargs)
    comm._ring_min_shard_bytes = 0  # the ring on any buffer
    comm._ring.segment_bytes = 8  # and many segments
    return comm


def check_mean_grad(comm):
    r, n = comm.rank, comm.size
    sizes = [7, 1, 13, 2]  # 23 elements and the flag: not divisible by 2 or 3
    model = model_of(sizes)
    for step in range(3):
        if step == 1:
            # in place: the views stay the gradients
            for p in model.params():
                p.grad[...] = (r + 1) * np.arange(p.size)
        else:
            set_grads(model, 10 * r + step)  # replaced by new arrays
        expect = expected(comm, model)
        comm.multi_node_mean_grad(model)
        assert_mean(model, expect, f"step {step}")
    (group,) = comm._grads.groups
    assert not group.prescale or n == 1, "the ring was not used"
    assert not group.pending
    # replaced gradients the ring cannot read in place: not contiguous, and
    # one that is another parameter's view (copied, read before the ring)
    set_grads(model, r + 5)
    model.p2.grad = np.asfortranarray(
        np.arange(13.0, dtype=np.float32)[::-1] * (r + 1)
    )[::1]
    model.p0.grad = np.arange(14.0, dtype=np.float32)[::2] * (r + 1)
    model.p3.grad = comm._grads._views[0][:2]  # p0's view, holding p0's last
    expect = expected(comm, model)
    comm.multi_node_mean_grad(model)
    assert_mean(model, expect, "strided and aliased")
    views = {id(v) for v in group.views}
    assert {id(p.grad) for p in model.params()} == views
    # zero_fill with a None gradient, then without it (None on every rank)
    set_grads(model, r, none=("/p1",))
    expect = expected(comm, model)
    comm.multi_node_mean_grad(model, zero_fill=True)
    assert_mean(model, expect, "zero_fill")
    np.testing.assert_array_equal(model.p1.grad, np.zeros(1))
    set_grads(model, r, none=("/p2",))
    expect = expected(comm, model)
    comm.multi_node_mean_grad(model, zero_fill=False)
    assert model.p2.grad is None
    del expect["/p2"]
    for name, p in model.namedparams():
        if name != "/p2":
            np.testing.assert_allclose(p.grad, expect[name], rtol=1e-5, atol=1e-5)
    # a parameter added on every rank: the new layout is agreed, then used
    with model.init_scope():
        model.p9 = kusari.Parameter(np.zeros(5, np.float32))
    set_grads(model, r + 7)
    expect = expected(comm, model)
    comm.multi_node_mean_grad(model)
    assert_mean(model, expect, "added everywhere")


def check_dtypes_and_names(comm):
    r = comm.rank
    # float64 and float32 groups: both through the ring
    model = model_of([5, 4, 3], [np.float64, np.float32, np.float64])
    set_grads(model, r)
    expect = expected(comm, model)
    comm.multi_node_mean_grad(model)
    assert_mean(model, expect, "two dtypes")
    assert [g.dtype for g in comm._grads.groups] == [np.float32, np.float64]
    # float16 on the wire: the ring does not take float16; still the mean
    half = forced(allreduce_grad_dtype=np.float16)
    model = model_of([6, 1, 4])
    for step in range(2):
        set_grads(model, r + step)
        expect = expected(comm, model)
        half.multi_node_mean_grad(model)
        assert_mean(model, expect, f"float16 {step}", rtol=5e-3, atol=5e-3)
        assert half._grads.groups[0].prescale
    for name in ("naive", "hierarchical", "two_dimensional", "single_node"):
        c = forced(name)
        model = model_of([3, 8])
        set_grads(model, r + 3)
        expect = expected(comm, model)
        c.multi_node_mean_grad(model)
        assert_mean(model, expect, name)


def check_one_rank_changes(comm):
    r, n, last = comm.rank, comm.size, comm.size - 1
    model = model_of([4, 3])
    set_grads(model, r)
    comm.multi_node_mean_grad(model, zero_fill=False)
    # only the last rank's /p1 gradient is None: every rank raises
    set_grads(model, r, none=("/p1",) if r == last else ())
    if n > 1:
        try:
            comm.multi_node_mean_grad(model, zero_fill=False)
        except ValueError as e:
            assert "different gradients to average" in str(e), e
            assert f"'/p1' on rank 0, no gradient on rank {last}" in str(e), e
        else:
            raise AssertionError(f"rank {r}: no error for differing layouts")
    set_grads(model, r)
    expect = expected(comm, model)
    comm.multi_node_mean_grad(model, zero_fill=False)
    assert_mean(model, expect, "recovered")


def check_thresholds():
    mib = 1 << 20
    assert ring_fits(np.float32, mib, 2)  # 2 MiB shards
    assert not ring_fits(np.float32, mib - 2, 2)
    assert ring_fits(np.float64, 3 * mib // 4, 3)
    assert not ring_fits(np.float64, 3 * mib // 4 - 3, 3)
    assert not ring_fits(np.float16, 10 * mib, 2)
    assert not ring_fits(np.float32, 10 * mib, 1)


def main():
    comm = kusari_mn.create_communicator("flat")
    check_thresholds()
    check_ring_mean(comm)
    check_fused_scale(comm)
    check_mean_grad(forced())
    check_dtypes_and_names(forced())
    check_one_rank_changes(forced())
    # real backward passes through the multi-node optimizer, on the ring
    check_grad_buffer.check_backward(forced(), use_cleargrads=True)
    check_grad_buffer.check_backward(forced(), use_cleargrads=False)
    # the default thresholds: these small buffers take the Allreduce
    small = kusari_mn.create_communicator("flat")
    model = model_of([5, 3])
    set_grads(model, comm.rank)
    expect = expected(comm, model)
    small.multi_node_mean_grad(model)
    assert_mean(model, expect, "default")
    assert small._grads.groups[0].prescale
    print(f"RING-OK {comm.rank}", flush=True)


if __name__ == "__main__":
    main()
