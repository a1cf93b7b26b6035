"""The fused update's shortcuts (optimizers/_fused_update.py, _fused.py):
the packing kept from one update to the next and re-checked by identity,
the blocks' cut kept per buffer layout, and a kernel's whole-parameter
call. Each must give the per-parameter update's values, and must be
dropped when what it was built from changes."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import optimizer_hooks, optimizers
from kusari.optimizers import _fused, _fused_update
from kusari.utils import blas, threads


class Net(kusari.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(6, 9)
            self.l2 = L.Linear(9, 3)

    def forward(self, x):
        return self.l2(F.tanh(self.l1(x)))


# Looked up now, before a test's fake BLAS controller could hide it.
HAVE_AXPY = blas.available("axpy", np.float32)
X = np.random.default_rng(3).standard_normal((4, 6)).astype(np.float32)


def make(seed: int = 0) -> Net:
    rng = np.random.default_rng(seed)
    net = Net()
    for p in net.params():
        p.array = rng.standard_normal(p.shape).astype(np.float32)
    return net


def backprop(net):
    net.cleargrads()
    F.sum(F.tanh(net(X))).backward()


def pair(name="Adam", **kwargs):
    """A fused and a per-parameter optimizer on equal nets."""
    out = []
    for fused in (True, False):
        net = make()
        opt = getattr(optimizers, name)(**kwargs).setup(net)
        opt.use_fused_update(fused)
        out.append((net, opt))
    return out


def both(pairs, change=None):
    for net, opt in pairs:
        if change is not None:
            change(net, opt)
        backprop(net)
        opt.update()


def same(pairs):
    (a, _), (b, _) = pairs
    for (na, pa), (_, pb) in zip(a.namedparams(), b.namedparams()):
        np.testing.assert_array_equal(pa.array, pb.array, err_msg=na)
        if pa.update_rule.state:
            for k, v in pa.update_rule.state.items():
                np.testing.assert_array_equal(v, pb.update_rule.state[k], err_msg=k)
    assert [p.update_rule.t for p in a.params()] == [
        p.update_rule.t for p in b.params()
    ]


def count_full_checks(monkeypatch):
    calls = []
    real = _fused_update._fusable
    monkeypatch.setattr(
        _fused_update, "_fusable", lambda p, owned: calls.append(p) or real(p, owned)
    )
    return calls


@pytest.mark.parametrize(
    "name,kwargs", [("SGD", {"lr": 0.1}), ("MomentumSGD", {}), ("Adam", {})]
)
def test_second_update_skips_the_full_check(name, kwargs, monkeypatch):
    pairs = pair(name, **kwargs)
    both(pairs)
    calls = count_full_checks(monkeypatch)
    for _ in range(3):
        both(pairs)
    assert calls == []  # the kept packing was taken every time
    assert pairs[0][1]._fused.fast is not None
    same(pairs)


def _replace_array(net, opt):
    net.l1.W.array = net.l1.W.array.copy()


def _add_rule_hook(net, opt):
    if not net.l2.b.update_rule._pre_update_hooks:
        net.l2.b.update_rule.add_hook(optimizer_hooks.WeightDecay(0.1))


def _disable_rule(net, opt):
    net.l1.b.update_rule.enabled = False


def _new_state_array(net, opt):
    st = net.l2.W.update_rule.state
    st["m"] = st["m"].copy()


def _new_param(net, opt):
    if not hasattr(net, "extra"):
        with net.init_scope():
            net.extra = kusari.Parameter(np.ones((2, 2), np.float32))
        net.extra.update_rule = opt.create_update_rule()
        net.extra.update_rule.hyperparam = opt.hyperparam


def _per_rule_override(net, opt):
    net.l1.W.update_rule.hyperparam.alpha = 0.5


@pytest.mark.parametrize(
    "change",
    [
        _replace_array,
        _add_rule_hook,
        _disable_rule,
        _new_state_array,
        _new_param,
        _per_rule_override,
    ],
)
def test_changes_between_updates_are_followed(change, monkeypatch):
    pairs = pair("Adam")
    both(pairs)
    both(pairs)
    calls = count_full_checks(monkeypatch)
    both(pairs, change)
    both(pairs)
    if change is not _per_rule_override:
        assert calls  # the change was seen: the full path ran
    same(pairs)
    # The fused net's arrays are views of its buffers again where fusable.
    net, opt = pairs[0]
    if change in (_replace_array, _new_state_array, _per_rule_override):
        pack = next(iter(opt._fused.packs.values()))
        assert all(p.array.base is pack.buf for p in net.params())


def test_a_loss_scale_takes_the_full_path(monkeypatch):
    pairs = pair("SGD", lr=0.1)
    both(pairs)
    calls = count_full_checks(monkeypatch)
    for net, opt in pairs:
        backprop(net)
        net.l2.W._loss_scale = 4.0
        net.l2.W.grad *= 4
        opt.update()
        net.l2.W._loss_scale = None
    assert calls
    same(pairs)


def test_copies_do_not_take_the_originals_packing():
    import copy

    net = make()
    opt = optimizers.SGD(0.1).setup(net)
    backprop(net)
    opt.update()
    assert opt._fused.fast is not None
    net2, opt2 = copy.deepcopy((net, opt))
    assert opt2._fused.fast is None
    backprop(net2)
    opt2.update()
    assert net2.l1.W.array is not net.l1.W.array
    assert not np.shares_memory(net2.l1.W.array, net.l1.W.array)


def test_block_cut_is_kept_per_layout_and_dropped_with_it(monkeypatch):
    monkeypatch.setattr(_fused, "BLOCK", 16)
    cuts = []
    real = _fused.plan_pieces
    monkeypatch.setattr(_fused, "plan_pieces", lambda *a: cuts.append(a) or real(*a))
    pairs = pair("Adam")
    for _ in range(3):
        both(pairs[:1])
    assert len(cuts) == 1  # cut once, then taken from the pack
    net, opt = pairs[0]
    (pack,) = opt._fused.packs.values()
    assert len(pack.plans) == 1
    both(pairs[:1], _replace_array)  # a new layout: a new pack, cut again
    assert len(cuts) == 2
    (pack2,) = opt._fused.packs.values()
    assert pack2 is not pack
    for _ in range(3):
        both(pairs[1:])
    both(pairs[1:], _replace_array)
    same(pairs)


def test_plan_pieces_cover_the_ranges_once():
    offsets = [0, 5, 6, 40, 41, 100]
    for block in (1, 4, 16, 64, 1000):
        for bounds in (((0, 100),), ((0, 6), (6, 41), (41, 100)), ((5, 40),)):
            pieces = _fused.plan_pieces(bounds, offsets, block)
            covered = [i for s, e, _, _ in pieces for i in range(s, e)]
            want = [i for a, b in bounds for i in range(a, b)]
            assert covered == want
            for s, e, r, i in pieces:
                assert e - s <= block
                assert bounds[r][0] <= s < e <= bounds[r][1]
                if i >= 0:  # read in place: inside parameter i
                    assert offsets[i] <= s and e <= offsets[i + 1]


def test_sgd_takes_one_axpy_per_parameter_on_one_thread(monkeypatch):
    # Where no OpenBLAS is loaded every call declines and the update takes
    # NumPy's passes (the pairs still agree).
    calls = []
    real = blas.axpy

    def counted(a, x, y):
        done = real(a, x, y)
        calls.append((y.size, done))
        return done

    monkeypatch.setattr(blas, "axpy", counted)
    old = threads.get_num_threads()
    threads.set_num_threads(1)
    try:
        pairs = pair("SGD", lr=0.1)
        both(pairs[:1])
        both(pairs[:1])
    finally:
        threads.set_num_threads(old)
    sizes = [p.size for p in pairs[0][0].params()]
    assert all(done is HAVE_AXPY for _, done in calls)
    if HAVE_AXPY:
        assert sorted(n for n, _ in calls) == sorted(sizes * 2)


def test_sgd_pieces_on_several_threads_same_bits(blas_holds, monkeypatch):
    # Cut into pieces over three threads (thresholds lowered to this size),
    # BLAS held at one thread meanwhile: every element updated once, with
    # the bits of the one-thread update. Without OpenBLAS each piece's
    # axpy declines and NumPy's passes run on the same pieces.
    pairs = pair("SGD", lr=0.1)
    old = threads.get_num_threads()
    threads.set_num_threads(1)
    try:
        both(pairs[1:])
        both(pairs[1:])
    finally:
        threads.set_num_threads(old)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    monkeypatch.setattr(_fused, "MIN_BLOCK", 2)
    pieces = []
    real = blas.axpy
    monkeypatch.setattr(
        blas, "axpy", lambda a, x, y: pieces.append(y.size) or real(a, x, y)
    )
    threads.set_num_threads(3)
    try:
        both(pairs[:1])
        held = len(blas_holds)
        both(pairs[:1])
    finally:
        threads.set_num_threads(old)
    total = sum(p.size for p in pairs[0][0].params())
    if HAVE_AXPY:  # else each declined range goes through NumPy's blocks
        assert sum(pieces) == 2 * total
    assert len(pieces) > 2 * len(list(pairs[0][0].params()))  # cut
    assert len(blas_holds) > held
    same(pairs)


@pytest.mark.parametrize("n_chunks", [1, 2, 3, 5, 8, 1000])
def test_plan_chunks_cover_each_array_once(n_chunks):
    sizes = [7, 1, 30, 0, 2, 13]
    chunks = _fused.plan_chunks(sizes, n_chunks)
    seen = {i: [] for i in range(len(sizes))}
    for chunk in chunks:
        for i, lo, hi in chunk:
            assert 0 <= lo < hi <= sizes[i]
            seen[i].extend(range(lo, hi))
    for i, n in enumerate(sizes):
        assert seen[i] == list(range(n))
    if n_chunks == 1:
        assert len(chunks) == 1
    assert len(chunks) <= max(1, n_chunks) + 1
    share = -(-sum(sizes) // n_chunks)
    assert all(sum(hi - lo for _, lo, hi in c) <= share for c in chunks)


def test_non_contiguous_gradient_is_read_from_a_copy():
    pairs = pair("SGD", lr=0.1)
    for net, opt in pairs:
        backprop(net)
        net.l1.W.grad = np.asfortranarray(net.l1.W.grad)
        assert not net.l1.W.grad.flags.c_contiguous
        opt.update()
    same(pairs)


def test_whole_call_declined_falls_back_to_blocks(monkeypatch):
    # Without OpenBLAS's axpy the whole call declines: that update runs the
    # kernel's NumPy passes on the pieces, later ones the blocks.
    monkeypatch.setitem(blas._found, "axpy", {})
    pairs = pair("SGD", lr=0.1)
    both(pairs)
    (pack,) = pairs[0][1]._fused.packs.values()
    assert not pack.whole_ok
    both(pairs)
    same(pairs)
    net = pairs[0][0]
    assert all(p.array.base is pack.buf for p in net.params())


def test_kernel_apply_takes_the_whole_call_first():
    seen = []

    def whole(consts, p, g):
        seen.append(p.shape)
        p -= g
        return True

    def blocked(consts, p, g, state, t1):
        raise AssertionError("the whole call took it")

    kernel = _fused.ElementwiseKernel(blocked, n_temps=1, whole=whole)
    p = np.ones((3, 4), np.float32)
    kernel.apply((), p, np.ones((3, 4), np.float32), {})
    assert seen == [(12,)]  # flat
    np.testing.assert_array_equal(p, 0)
