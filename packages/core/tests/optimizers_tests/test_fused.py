"""Fused optimizer updates: same results as per-parameter updates, and the
packing survives (or is rebuilt after) everything that replaces arrays."""

from __future__ import annotations

import copy
import io

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import optimizer_hooks, optimizers, serializers
from kusari.optimizers import _fused
from kusari.utils import blas


class Net(kusari.Chain):
    def __init__(self, lazy: bool = False) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None if lazy else 6, 7)
            self.l2 = L.Linear(7, 3)
            self.l3 = L.Linear(3, 2, nobias=True)

    def forward(self, x):
        return self.l3(F.tanh(self.l2(F.tanh(self.l1(x)))))


X = np.random.default_rng(1).standard_normal((5, 6)).astype(np.float32)


def make(seed: int = 0, lazy: bool = False, dtype=np.float32) -> Net:
    rng = np.random.default_rng(seed)
    net = Net(lazy)
    if lazy:
        net(X)
    for p in net.params():
        p.array = rng.standard_normal(p.shape).astype(dtype)
    return net


def step(net, opt, x=X):
    net.cleargrads()
    F.sum(F.tanh(net(x.astype(net.l2.W.dtype)))).backward()
    opt.update()


OPTS = [
    ("SGD", {"lr": 0.1}),
    ("MomentumSGD", {"lr": 0.1, "momentum": 0.8}),
    ("Adam", {"alpha": 0.01}),
    ("AdamW", {"alpha": 0.01, "weight_decay_rate": 0.1}),
    ("AMSGrad", {"alpha": 0.01}),
    ("AdaBound", {"alpha": 0.01}),
]


def run(name, kwargs, fused, steps=4, setup=None, dtype=np.float32):
    net = make(dtype=dtype)
    opt = getattr(optimizers, name)(**kwargs)
    opt.setup(net)
    opt.use_fused_update(fused)
    if setup is not None:
        setup(net, opt)
    for _ in range(steps):
        step(net, opt)
    return net, opt


def same_params(a, b):
    for (na, pa), (nb, pb) in zip(a.namedparams(), b.namedparams()):
        assert na == nb
        np.testing.assert_array_equal(pa.array, pb.array, err_msg=na)


@pytest.mark.parametrize("name,kwargs", OPTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_equals_per_param(name, kwargs, dtype):
    a, oa = run(name, kwargs, True, dtype=dtype)
    b, ob = run(name, kwargs, False, dtype=dtype)
    same_params(a, b)
    for (_, pa), (_, pb) in zip(a.namedparams(), b.namedparams()):
        for k in pa.update_rule.state:
            np.testing.assert_array_equal(
                pa.update_rule.state[k], pb.update_rule.state[k]
            )
        assert pa.update_rule.t == pb.update_rule.t == 4


def test_params_and_states_are_views_of_one_buffer():
    net, opt = run("Adam", {}, True, steps=1)
    bases = {id(p.array.base) for p in net.params()}
    assert len(bases) == 1
    assert all(p.array.base is not None for p in net.params())
    m_bases = {id(p.update_rule.state["m"].base) for p in net.params()}
    assert len(m_bases) == 1
    packs = opt._fused.packs
    assert len(packs) == 1
    (pack,) = packs.values()
    assert pack.buf.size == sum(p.size for p in net.params())
    step(net, opt)  # packed once: later steps reuse the buffers
    assert opt._fused.packs[next(iter(opt._fused.packs))] is pack


def test_small_blocks_match(monkeypatch):
    # Blocks that end inside parameters exercise the gradient gather.
    monkeypatch.setattr(_fused, "BLOCK", 5)
    a, _ = run("Adam", {"alpha": 0.01}, True)
    monkeypatch.undo()
    b, _ = run("Adam", {"alpha": 0.01}, False)
    same_params(a, b)


def test_matches_reference_formula():
    # Adam written out in NumPy, as the rule's documentation states it.
    net = make()
    opt = optimizers.Adam(alpha=0.01, weight_decay_rate=0.01).setup(net)
    p = net.l1.W
    w = p.array.copy()
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, 4):
        step(net, opt)
        g = p.grad
        m += 0.1 * (g - m)
        v += (1 - 0.999) * (g * g - v)
        at = 0.01 * np.sqrt(1 - 0.999**t) / (1 - 0.9**t)
        w -= at / (np.sqrt(v) + 1e-8) * m + 0.01 * w
    np.testing.assert_allclose(p.array, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "hook",
    [
        lambda: optimizer_hooks.WeightDecay(0.01),
        lambda: optimizer_hooks.Lasso(0.01),
        lambda: optimizer_hooks.GradientClipping(0.5),
        lambda: optimizer_hooks.GradientHardClipping(-0.1, 0.1),
    ],
)
def test_optimizer_hooks(hook):
    setup = lambda net, opt: opt.add_hook(hook())  # noqa: E731
    a, _ = run("MomentumSGD", {}, True, setup=setup)
    b, _ = run("MomentumSGD", {}, False, setup=setup)
    same_params(a, b)


def test_rule_hooks_and_overrides_and_disabled():
    def setup(net, opt):
        net.l1.W.update_rule.add_hook(optimizer_hooks.WeightDecay(0.1))
        net.l2.W.update_rule.hyperparam.alpha = 0.5
        net.l2.b.update_rule.enabled = False

    a, oa = run("Adam", {}, True, setup=setup)
    b, _ = run("Adam", {}, False, setup=setup)
    same_params(a, b)
    assert a.l2.b.update_rule.t == 0
    # The hooked parameter took the per-parameter path, the others are packed.
    (pack,) = oa._fused.packs.values()
    packed = {id(p) for p in pack.params}
    assert id(a.l1.W) not in packed and id(a.l2.W) in packed


def test_uninitialized_param_joins_later():
    nets, opts = [], []
    for fused in (True, False):
        net = Net(lazy=True)
        opt = optimizers.MomentumSGD().setup(net)
        opt.use_fused_update(fused)
        opt.update()  # l1.W uninitialized: only its rule's t moves
        nets.append(net)
        opts.append(opt)
    a, b = nets
    a(X)
    b(X)
    b.copyparams(a)
    for _ in range(2):
        step(a, opts[0])
        step(b, opts[1])
    same_params(a, b)
    (pack,) = opts[0]._fused.packs.values()
    assert any(p is a.l1.W for p in pack.params)
    assert a.l1.W.update_rule.t == b.l1.W.update_rule.t == 3


def test_replaced_array_is_repacked():
    net, opt = run("SGD", {"lr": 0.1}, True, steps=1)
    fresh = np.ones_like(net.l2.W.array)
    net.l2.W.array = fresh
    step(net, opt)
    assert net.l2.W.array is not fresh
    assert net.l2.W.array.base is opt._fused.packs[next(iter(opt._fused.packs))].buf
    ref, _ = run("SGD", {"lr": 0.1}, False, steps=1)
    ref.l2.W.array = np.ones_like(ref.l2.W.array)
    step(ref, _)
    same_params(net, ref)


def test_serializer_round_trip_exact():
    net, opt = run("Adam", {}, True, steps=2)
    buf_m, buf_o = io.BytesIO(), io.BytesIO()
    serializers.save_npz(buf_m, net)
    serializers.save_npz(buf_o, opt)
    step(net, opt)
    step(net, opt)

    net2 = make(seed=5)
    opt2 = optimizers.Adam().setup(net2)
    buf_m.seek(0)
    buf_o.seek(0)
    serializers.load_npz(buf_m, net2)
    serializers.load_npz(buf_o, opt2)
    step(net2, opt2)
    step(net2, opt2)
    same_params(net, net2)


def test_deepcopy_does_not_alias():
    net, opt = run("MomentumSGD", {}, True, steps=1)
    net2, opt2 = copy.deepcopy((net, opt))
    step(net2, opt2)
    step(net, opt)
    same_params(net, net2)
    ref, _ = run("MomentumSGD", {}, False, steps=2)
    same_params(net, ref)


def test_to_device_cpu_keeps_working():
    net, opt = run("SGD", {}, True, steps=1)
    net.to_device("@numpy")
    step(net, opt)
    ref, _ = run("SGD", {}, False, steps=2)
    same_params(net, ref)


def test_tied_view_params_are_not_packed():
    net = make()
    shared = np.zeros(2 * 3, dtype=np.float32)
    net.l3.W.array = shared.reshape(2, 3)  # a view: left in place
    opt = optimizers.SGD().setup(net)
    step(net, opt)
    assert net.l3.W.array.base is shared


def test_float16_fp32_update_not_fused_and_correct():
    def setup(net, opt):
        opt.use_fp32_update()

    a, _ = run("Adam", {"alpha": 0.01}, True, setup=setup, dtype=np.float16)
    b, _ = run("Adam", {"alpha": 0.01}, False, setup=setup, dtype=np.float16)
    same_params(a, b)


def test_loss_scale_divides_grads_in_both_paths():
    def setup(net, opt):
        for p in net.params():
            p._loss_scale = 4.0

    a, _ = run("SGD", {}, True, setup=setup)
    b, _ = run("SGD", {}, False, setup=setup)
    same_params(a, b)


def test_threaded_update_matches(monkeypatch):
    from kusari.utils import threads

    old = threads.get_num_threads()
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    monkeypatch.setattr(_fused, "BLOCK", 16)
    threads.set_num_threads(3)
    try:
        a, _ = run("AdamW", {"alpha": 0.01, "weight_decay_rate": 0.1}, True)
    finally:
        threads.set_num_threads(old)
    monkeypatch.undo()
    b, _ = run("AdamW", {"alpha": 0.01, "weight_decay_rate": 0.1}, False)
    same_params(a, b)


@pytest.mark.parametrize("name,kwargs", OPTS)
def test_threaded_update_spreads_small_models(name, kwargs, monkeypatch):
    # A model of less than one BLOCK is cut into smaller blocks, several per
    # thread, when the update is worth splitting; results stay exact.
    from kusari.utils import threads

    old = threads.get_num_threads()
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    monkeypatch.setattr(_fused, "MIN_BLOCK", 4)
    if name == "SGD":
        # SGD's whole-parameter axpy is threaded by BLAS; without it, SGD
        # takes the blocks.
        monkeypatch.setitem(blas._found, "axpy", {})
    items = []
    real = threads.run_split
    monkeypatch.setattr(
        threads, "run_split", lambda f, n, b: items.append(n) or real(f, n, b)
    )
    threads.set_num_threads(3)
    try:
        a, _ = run(name, kwargs, True)
    finally:
        threads.set_num_threads(old)
    monkeypatch.undo()
    assert items and min(items) >= 3 * threads.OVERSPLIT
    if name == "SGD":
        monkeypatch.setitem(blas._found, "axpy", {})  # the same arithmetic
    b, _ = run(name, kwargs, False)
    same_params(a, b)


def test_one_thread_keeps_full_blocks(monkeypatch):
    from kusari.utils import threads

    old = threads.get_num_threads()
    monkeypatch.setattr(_fused, "MIN_BLOCK", 4)
    items = []
    real = threads.run_split
    monkeypatch.setattr(
        threads, "run_split", lambda f, n, b: items.append(n) or real(f, n, b)
    )
    threads.set_num_threads(1)
    try:
        run("Adam", {"alpha": 0.01}, True)
    finally:
        threads.set_num_threads(old)
    assert items and set(items) == {1}  # the whole model in one block


def test_tied_arrays_stay_tied():
    def build(fused):
        rng = np.random.default_rng(0)
        net = kusari.Sequential(L.Linear(4, 4), F.tanh, L.Linear(4, 4))
        for p in net.params():
            p.array = rng.standard_normal(p.shape).astype(np.float32)
        net[2].W.array = net[0].W.array  # two Parameters, one array
        opt = optimizers.MomentumSGD(lr=0.1).setup(net)
        opt.use_fused_update(fused)
        x = rng.standard_normal((3, 4)).astype(np.float32)
        for _ in range(2):
            net.cleargrads()
            F.sum(net(x)).backward()
            opt.update()
        return net

    net, ref = build(True), build(False)
    assert net[2].W.array is net[0].W.array
    same_params(net, ref)


def test_parameter_subclass_with_own_update_is_respected():
    calls = []

    class Logged(kusari.Parameter):
        def update(self):
            calls.append(self.name)
            super().update()

    net = make()
    net.l3.W = None
    with net.l3.init_scope():
        net.l3.W = Logged(np.ones((2, 3), dtype=np.float32))
    opt = optimizers.SGD().setup(net)
    step(net, opt)
    assert calls == ["W"]


@pytest.mark.parametrize("fused", [True, False])
def test_empty_parameter(fused):
    net = make()
    with net.init_scope():
        net.empty = kusari.Parameter(np.zeros((0, 3), dtype=np.float32))
    opt = optimizers.Adam().setup(net)
    opt.use_fused_update(fused)
    net.empty.grad = np.zeros((0, 3), dtype=np.float32)
    step(net, opt)
    assert net.empty.shape == (0, 3)
