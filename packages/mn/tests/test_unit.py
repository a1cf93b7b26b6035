"""In-process tests: pure helpers, and a one-rank communicator."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
import kusari_mn
from kusari_mn.communicators._mean_grad import _first_difference
from kusari_mn.communicators._memory_utility import GradBuffer
from kusari_mn.communicators._ring import RingMean, ring_fits, shards
from kusari_mn.datasets import create_empty_dataset
from kusari_mn.datasets.scatter_dataset import _ranges
from kusari_mn.extensions._multi_node_snapshot import _parse_replica_sets


def _model() -> kusari.Chain:
    model = kusari.Sequential(L.Linear(3, 4), L.Linear(4, 2), L.Linear(2, 2))
    for i, p in enumerate(p for _, p in sorted(model.namedparams())):
        p.grad = np.arange(p.size, dtype=np.float32).reshape(p.shape) + i
    return model


def _loaded(buffers, model, zero_fill=False, scale=1.0):
    params = buffers.select(model, zero_fill)
    buffers.prepare(params)
    buffers.load(params, scale)
    return params


def test_grad_buffer_copies_replaced_grads_once_then_hands_out_views():
    model = _model()
    expect = {k: p.grad.copy() for k, p in model.namedparams()}
    buffers = GradBuffer()
    params = buffers.select(model, zero_fill=False)
    assert [n for n, _ in params] == sorted(n for n, _ in model.namedparams())
    assert buffers.prepare(params)
    assert not buffers.prepare(params)  # same layout: buffers reused
    (group,) = buffers.groups
    buffers.load(params, 0.5)
    assert group.buffer.size == sum(p.size for p in model.params())
    np.testing.assert_array_equal(
        group.buffer, np.concatenate([expect[n].ravel() * 0.5 for n, _ in params])
    )
    assert group.wire is group.buffer  # no transport dtype: reduced in place
    buffers.store(params)
    for (name, p), view in zip(params, group.views, strict=True):
        assert p.grad is view
        assert np.shares_memory(p.grad, group.buffer)
        np.testing.assert_array_equal(p.grad, expect[name] * 0.5)
    # Grads still in their views: scaled in place, nothing allocated.
    buffers.load(params, 0.5)
    buffers.store(params)
    for name, p in params:
        np.testing.assert_array_equal(p.grad, expect[name] * 0.25)


def test_grad_buffer_after_cleargrads_zerograds_and_a_replaced_grad():
    model = _model()
    buffers = GradBuffer()
    params = _loaded(buffers, model)
    buffers.store(params)
    (group,) = buffers.groups
    # zerograds zeroes the views in place: the buffer itself.
    with pytest.warns(DeprecationWarning):
        model.zerograds()
    assert not group.buffer.any()
    assert all(p.grad is v for (_, p), v in zip(params, group.views, strict=True))
    # cleargrads then new arrays (what backward makes): copied in, scaled.
    model.cleargrads()
    for i, (_, p) in enumerate(params):
        p.grad = np.full(p.shape, i + 1.0, np.float32)
    params = _loaded(buffers, model, scale=0.5)
    buffers.store(params)
    for i, (_, p) in enumerate(params):
        np.testing.assert_array_equal(p.grad, np.full(p.shape, (i + 1) / 2))
    # One grad replaced by another parameter's view: read before scaling.
    assert [n for n, _ in params][3:6:2] == ["/1/b", "/2/b"]
    a, b = params[3][1], params[5][1]
    a.grad = b.grad
    params = _loaded(buffers, model, scale=0.5)
    buffers.store(params)
    np.testing.assert_array_equal(a.grad, np.full(2, 1.5))
    np.testing.assert_array_equal(b.grad, np.full(2, 1.5))
    assert a.grad is group.views[3] and b.grad is group.views[5]


def test_grad_buffer_zero_fill_and_layout_changes():
    model = _model()
    w = dict(model.namedparams())["/2/W"]
    w.grad = None
    buffers = GradBuffer()
    assert len(buffers.select(model, zero_fill=False)) == 5
    params = _loaded(buffers, model, zero_fill=True, scale=0.25)
    assert len(params) == 6
    buffers.store(params)
    np.testing.assert_array_equal(w.grad, np.zeros(w.shape, np.float32))
    assert w.grad is buffers._views[[n for n, _ in params].index("/2/W")]
    old = buffers.groups[0].buffer
    # A parameter appears (or its grad stops being None without zero_fill).
    w.grad = np.ones(w.shape, np.float32)
    with model.init_scope():
        model.extra = kusari.Parameter(np.zeros(3, np.float32))
    model.extra.grad = np.full(3, 2.0, np.float32)
    params = buffers.select(model, zero_fill=False)
    assert buffers.prepare(params)
    assert buffers.groups[0].buffer is not old
    buffers.load(params, 1.0)
    buffers.store(params)
    np.testing.assert_array_equal(model.extra.grad, np.full(3, 2.0))
    np.testing.assert_array_equal(w.grad, np.ones(w.shape))
    # Uninitialized parameters never take part.
    with model.init_scope():
        model.lazy = kusari.Parameter(None)
    assert "/lazy" not in [n for n, _ in buffers.select(model, zero_fill=True)]


def test_grad_buffer_one_buffer_per_dtype_and_float16_transport():
    model = _model()
    w = dict(model.namedparams())["/1/W"]
    w.array = w.array.astype(np.float64)
    w.grad = np.full(w.shape, 3.0)
    buffers = GradBuffer()
    params = _loaded(buffers, model, scale=0.5)
    assert [g.dtype for g in buffers.groups] == [np.float32, np.float64]
    assert [len(g.views) for g in buffers.groups] == [5, 1]
    buffers.store(params)
    assert w.grad.dtype == np.float64
    np.testing.assert_array_equal(w.grad, np.full(w.shape, 1.5))

    model = _model()
    expect = {k: p.grad.copy() for k, p in model.namedparams()}
    buffers = GradBuffer(np.float16)
    params = _loaded(buffers, model, scale=0.25)
    (group,) = buffers.groups
    assert group.buffer.dtype == np.float32 and group.wire.dtype == np.float16
    np.testing.assert_allclose(
        group.wire,
        np.concatenate([expect[n].ravel() * 0.25 for n, _ in params]),
        rtol=1e-3,
    )
    group.wire *= 4  # stands in for the sum over four ranks
    buffers.store(params)
    for name, p in params:
        assert p.grad.dtype == np.float32
        np.testing.assert_allclose(p.grad, expect[name], rtol=1e-3)


@pytest.mark.parametrize(
    ("spec", "size", "expect"),
    [
        ([0], 4, [{0}, {1, 2, 3}]),
        ([0, 1], 4, [{0}, {1}, {2, 3}]),
        ([[0, 1], [2, 3]], 4, [{0, 1}, {2, 3}]),
        ([], 4, [{0, 1, 2, 3}]),
        ([range(0, 8, 2)], 8, [{0, 2, 4, 6}, {1, 3, 5, 7}]),
    ],
)
def test_replica_sets(spec, size, expect):
    assert _parse_replica_sets(spec, size) == expect


def test_replica_sets_reject_bad_ranks():
    with pytest.raises(ValueError, match="two replica sets"):
        _parse_replica_sets([[0, 1], [1]], 3)
    with pytest.raises(ValueError, match=r"in \[0, 3\)"):
        _parse_replica_sets([5], 3)


def test_ranges_cover_the_dataset():
    assert _ranges(10, 3, True) == [(0, 4), (4, 8), (8, 12)]
    assert _ranges(10, 3, False) == [(0, 3), (3, 6), (6, 10)]


def test_create_empty_dataset():
    assert create_empty_dataset(np.zeros((3, 2))) == [(), (), ()]


def test_grad_buffer_forget_layout_makes_prepare_report_a_change():
    # After a failed cross-rank check the layout is forgotten, so the next
    # call compares again on every rank although nothing changed here.
    model = _model()
    buffers = GradBuffer()
    params = buffers.select(model, zero_fill=True)
    assert buffers.prepare(params)
    assert not buffers.prepare(params)
    signature = buffers.layout_signature
    buffers.forget_layout()
    assert buffers.prepare(params)
    assert buffers.layout_signature == signature


def test_first_difference_names_the_gradient_and_the_ranks():
    full = ((("/a", (2,)), ("/b", (3,))), ("<f4",))
    assert _first_difference(full, ((("/a", (2,)),), ("<f4",)), 2) == (
        "'/b' on rank 0, no gradient on rank 2"
    )
    assert "'/c' on rank 1, no gradient on rank 0" in _first_difference(
        full, (full[0] + (("/c", (1,)),), ("<f4",)), 1
    )
    assert _first_difference(full, ((("/a", (2,)), ("/b", (4,))), ("<f4",)), 1) == (
        "'/b' has shape (3,) on rank 0, (4,) on rank 1"
    )
    assert _first_difference(full, (full[0], ("<f2",)), 1) == (
        "gradient dtypes ('<f4',) on rank 0, ('<f2',) on rank 1"
    )


def test_single_rank_communicator():
    comm = kusari_mn.create_communicator("flat")
    assert (comm.rank, comm.size, comm.intra_rank, comm.inter_size) == (0, 1, 0, 1)
    model = _model()
    expect = {k: p.grad.copy() for k, p in model.namedparams()}
    comm.multi_node_mean_grad(model)
    for name, p in model.namedparams():
        np.testing.assert_array_equal(p.grad, expect[name])
    np.testing.assert_array_equal(comm.allreduce(np.arange(3.0)), np.arange(3.0))
    assert comm.gather_obj("x") == ["x"]
    with pytest.raises(ValueError, match="dest must be in"):
        comm.send(np.zeros(1), 3)
    with pytest.warns(DeprecationWarning):
        comm.allreduce_grad(model)


def test_unknown_and_gpu_only_communicators():
    with pytest.raises(ValueError, match="unknown communicator_name 'ring'"):
        kusari_mn.create_communicator("ring")
    try:
        import cupy  # noqa: F401
    except ImportError:
        for name in ("pure_nccl", "non_cuda_aware"):
            with pytest.raises(RuntimeError, match=f"'{name}' communicator needs"):
                kusari_mn.create_communicator(name)
    with pytest.raises(ValueError, match="must be a float dtype"):
        kusari_mn.create_communicator("naive", allreduce_grad_dtype=np.int32)


def test_multi_node_optimizer_delegates_and_updates():
    comm = kusari_mn.create_communicator("naive")
    model = L.Linear(3, 2)
    opt = kusari_mn.create_multi_node_optimizer(kusari.optimizers.SGD(lr=0.5), comm)
    opt.setup(model)
    assert opt.lr == 0.5
    opt.lr = 0.1
    assert opt.actual_optimizer.lr == 0.1
    w = model.W.array.copy()
    x = np.ones((1, 3), np.float32)
    opt.update(lambda: F.sum(model(x)))  # one rank: a plain SGD step
    # float32 arithmetic: a weight near zero may round one ulp off the float64 value
    np.testing.assert_allclose(model.W.array, w - 0.1 * np.ones((2, 3)), atol=1e-7)
    assert opt.t == 1


def test_global_except_hook_add_remove(monkeypatch):
    from kusari_mn import global_except_hook

    sentinel = object()
    monkeypatch.setattr(sys, "excepthook", sentinel)
    global_except_hook.add_hook()
    assert sys.excepthook is global_except_hook._global_except_hook
    global_except_hook.add_hook()  # idempotent
    global_except_hook.remove_hook()
    assert sys.excepthook is sentinel


def test_mnbn_on_one_rank_matches_batch_normalization():
    comm = kusari_mn.create_communicator("naive")
    x = np.random.RandomState(0).randn(5, 3, 2).astype(np.float32)
    bn = L.BatchNormalization(3)
    mnbn = kusari_mn.links.create_mnbn_model(bn, comm)
    assert isinstance(mnbn, kusari_mn.links.MultiNodeBatchNormalization)
    np.testing.assert_allclose(mnbn(x).array, bn(x).array, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mnbn.avg_var, bn.avg_var, rtol=1e-5)


@pytest.mark.gpu
@pytest.mark.skipif(
    not kusari.backends.cuda.available, reason="CuPy / a CUDA GPU is not available"
)
@pytest.mark.parametrize("name", ["pure_nccl", "non_cuda_aware", "flat"])
def test_gpu_mean_grad_one_rank(name):
    import cupy

    comm = kusari_mn.create_communicator(name, allreduce_grad_dtype=None)
    model = _model()
    expect = {k: p.grad.copy() for k, p in model.namedparams()}
    model.to_device("@cupy:0")
    for k, p in model.namedparams():
        p.grad = cupy.asarray(expect[k])
    comm.bcast_data(model)
    comm.multi_node_mean_grad(model)
    for k, p in model.namedparams():
        assert isinstance(p.grad, cupy.ndarray)
        np.testing.assert_allclose(cupy.asnumpy(p.grad), expect[k])
    # the same views-into-one-device-buffer scheme as on host
    (group,) = comm._grads.groups
    assert group.on_device
    views = {id(v) for v in group.views}
    assert {id(p.grad) for p in model.params()} == views
    comm.multi_node_mean_grad(model)  # in place: nothing copied, same views
    assert {id(p.grad) for p in model.params()} == views
    for k, p in model.namedparams():
        np.testing.assert_allclose(cupy.asnumpy(p.grad), expect[k])
    y = comm.bcast(cupy.arange(3, dtype=cupy.float32))
    assert isinstance(y, cupy.ndarray)
    comm.finalize()


def test_generic_evaluator_calls_converters_as_updaters_do():
    # An old-style converter (a plain function) gets Chainer's int device,
    # a @converter() one a Device, as through kusari's updaters.
    comm = kusari_mn.create_communicator("naive")
    seen = []

    def old_style(batch, device):
        seen.append(device)
        return np.asarray(batch, np.float32)

    @kusari.dataset.converter()
    def new_style(batch, device):
        seen.append(device)
        return device.send(np.asarray(batch, np.float32))

    for conv in (old_style, new_style):
        it = kusari.iterators.SerialIterator([1.0, 2.0], 2, repeat=False)
        ev = kusari_mn.GenericMultiNodeEvaluator(
            comm, it, lambda x: float(x.sum()), device="@numpy", converter=conv
        )
        assert ev() == [3.0]
    assert seen[0] == -1
    assert isinstance(seen[1], kusari.backend.CpuDevice)


def test_ring_shards_thresholds_and_bad_input():
    from mpi4py import MPI

    assert shards(7, 3) == ([3, 2, 2], [0, 3, 5])
    assert shards(2, 3) == ([1, 1, 0], [0, 1, 2])
    assert ring_fits(np.float32, 1 << 20, 2)  # 2 MiB shards
    assert not ring_fits(np.float32, (1 << 20) - 2, 2)
    assert not ring_fits(np.float16, 1 << 30, 2)
    assert not ring_fits(np.float64, 1 << 30, 1)
    ring = RingMean()
    buf = np.arange(5, dtype=np.float64)
    ring(MPI.COMM_SELF, buf, 0.5)  # one rank: only the scaling
    np.testing.assert_array_equal(buf, np.arange(5) * 0.5)
    with pytest.raises(TypeError, match="RingMean: expected .*float16"):
        ring(MPI.COMM_SELF, np.zeros(4, np.float16), 1.0)
    with pytest.raises(TypeError, match="RingMean: expected .*int64"):
        ring(MPI.COMM_SELF, np.zeros(4, np.int64), 1.0)
    with pytest.raises(TypeError, match="RingMean"):
        ring(MPI.COMM_SELF, np.zeros((2, 2), np.float32), 1.0)
    with pytest.raises(ValueError, match="RingMean: segment_bytes must be positive"):
        RingMean(0)


def test_grad_group_flag_blank_and_unscaled_load():
    model = _model()
    buffers = GradBuffer()
    params = buffers.select(model, zero_fill=False)
    buffers.prepare(params)
    (group,) = buffers.groups
    total = sum(p.size for p in model.params())
    # the flag travels in one element past the gradients
    assert group.packet.size == total + 1 and group.wire.size == total
    assert np.shares_memory(group.packet, group.buffer)
    group.set_flag(1)
    assert group.flag() == 1.0 and not group.buffer.any()
    blank = group.blank()
    assert blank.packet.size == group.packet.size and blank.views == []
    assert not np.shares_memory(blank.packet, group.packet)
    # a group whose reduction scales (the ring) is loaded unscaled, and its
    # replaced gradients are left for the ring to read where they are
    from mpi4py import MPI

    expect = {k: p.grad.copy() for k, p in model.namedparams()}
    group.prescale = False
    assert not buffers.load(params, 0.5)  # replaced arrays, not views
    assert [off for off, _ in group.pending] == sorted(group.offsets.values())
    assert all(a is not None for _, a in group.pending)
    assert not group.buffer.any()  # nothing copied
    pending, group.pending = group.pending, []
    RingMean()(MPI.COMM_SELF, group.packet, 1.0, pending)
    np.testing.assert_array_equal(
        group.buffer, np.concatenate([expect[n].ravel() for n, _ in params])
    )
    buffers.store(params)
    assert buffers.load(params, 0.5)  # now every gradient is its view
    for name, p in params:
        np.testing.assert_array_equal(p.grad, expect[name])


def test_large_host_buffers_start_on_a_huge_page():
    from kusari_mn.communicators._memory_utility import HUGE_PAGE, GradGroup, zeros

    for dtype, count in ((np.float32, 1796011), (np.float64, 3 << 18)):
        a = zeros(np, count, dtype)
        assert a.shape == (count,) and a.dtype == dtype
        assert a.ctypes.data % HUGE_PAGE == 0 and a.flags.c_contiguous
        assert not a.any()
        # the allocation reaches a whole huge page past the end
        assert a.base.size >= a.nbytes + HUGE_PAGE
    small = zeros(np, 100, np.float32)
    assert small.base is None and not small.any()
    group = GradGroup(np.float32, [0], [np.ones((1000, 1000), np.float32)], None)
    assert group.packet.ctypes.data % HUGE_PAGE == 0
    assert group.packet.size == 1000 * 1000 + 1
