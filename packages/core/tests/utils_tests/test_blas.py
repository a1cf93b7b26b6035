"""kusari.utils.blas: OpenBLAS's axpy (SGD's CPU update), axpby and
omatcopy found in NumPy's OpenBLAS; axpy rounded once, the same bits however
an update is cut (blocks, threads, fused or per parameter); each declines
what it cannot do, and callers keep NumPy's passes where no OpenBLAS is
loaded (these tests check that branch on such a platform)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import optimizers
from kusari.optimizers import _fused
from kusari.optimizers import sgd as sgd_mod
from kusari.utils import blas, threads


def _openblas_loaded() -> bool:
    ctl = threads.blas_controller()
    return ctl is not None and any(
        lib.internal_api == "openblas" for lib in ctl.lib_controllers
    )


OPENBLAS = _openblas_loaded()


def _assert_rounded_once(y, p, a, g):
    """Each ``y`` is ``p + a * g`` (a in y's dtype) rounded once: within half
    a unit of its last place of the exact value (checked in rationals)."""
    a = Fraction(float(y.dtype.type(a)))
    for yi, pi, gi in zip(y.tolist(), p.tolist(), g.tolist()):
        exact = Fraction(pi) + a * Fraction(gi)
        ulp = Fraction(float(np.spacing(y.dtype.type(abs(yi)))))
        assert abs(exact - Fraction(yi)) <= ulp / 2, (yi, pi, gi)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("routine", ["axpy", "axpby", "omatcopy"])
def test_found_for_float32_and_float64_where_openblas_is(dtype, routine):
    # NumPy's wheels ship OpenBLAS; other builds decline every call.
    assert blas.available(routine, dtype) is OPENBLAS
    assert not blas.available(routine, np.float16)


def test_rounds_once_and_stays_within_one_rounding_of_numpy():
    rng = np.random.default_rng(0)
    p = rng.standard_normal(10007).astype(np.float32)
    g = (rng.standard_normal(10007) * 1e3).astype(np.float32)
    y = p.copy()
    if not OPENBLAS:
        assert blas.axpy(-0.0123, g, y) is False
        np.testing.assert_array_equal(y, p)
        return
    assert blas.axpy(-0.0123, g, y)
    _assert_rounded_once(y, p, -0.0123, g)
    step = g * np.float32(0.0123)
    two = p - step
    assert np.count_nonzero(y != two) > 0  # not NumPy's two roundings
    # They differ by the rounding of the product NumPy stores first (and
    # the result's own half unit): within one unit of either.
    bound = np.spacing(np.abs(step)) + np.spacing(np.abs(two))
    assert np.all(np.abs(y.astype(np.float64) - two) <= bound)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pieces_give_the_whole_arrays_bits(dtype):
    rng = np.random.default_rng(1)
    n = 5003
    p = rng.standard_normal(n).astype(dtype)
    g = rng.standard_normal(n).astype(dtype)
    whole = p.copy()
    assert blas.axpy(0.37, g, whole) is OPENBLAS
    if not OPENBLAS:
        return
    for _ in range(5):
        cuts = [0, *sorted(rng.choice(n, 6, replace=False).tolist()), n]
        pieces = p.copy()
        for s, e in zip(cuts, cuts[1:]):
            assert blas.axpy(0.37, g[s:e], pieces[s:e])
        np.testing.assert_array_equal(pieces, whole)


@pytest.mark.parametrize(
    "x,y",
    [
        (np.ones(4, np.float32), np.ones(4, np.float64)),  # dtypes differ
        (np.ones(4, np.float32), np.ones(5, np.float32)),  # sizes differ
        (np.ones(8, np.float32)[::2], np.ones(4, np.float32)),  # strided
        (np.ones(4, np.float16), np.ones(4, np.float16)),  # no half axpy
        (np.ones(4, np.int32), np.ones(4, np.int32)),
        ([1.0, 2.0], np.ones(2, np.float32)),  # not an array
    ],
)
def test_declines_what_it_cannot_do(x, y):
    before = np.array(y, copy=True)
    assert blas.axpy(1.0, x, y) is False
    np.testing.assert_array_equal(y, before)


def test_declines_a_read_only_target():
    y = np.zeros(3, np.float32)
    y.flags.writeable = False
    assert blas.axpy(1.0, np.ones(3, np.float32), y) is False


def test_empty_arrays():
    y = np.zeros(0, np.float32)
    assert blas.axpy(1.0, np.zeros(0, np.float32), y) in (True, False)


class _Net(kusari.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(6, 40)
            self.l2 = L.Linear(40, 3)

    def forward(self, x):
        return self.l2(F.tanh(self.l1(x)))


def _train(fused: bool, n_threads: int, dtype=np.float32, steps: int = 3):
    rng = np.random.default_rng(2)
    net = _Net()
    for p in net.params():
        p.array = rng.standard_normal(p.shape).astype(dtype)
    opt = optimizers.SGD(lr=0.05).setup(net)
    opt.use_fused_update(fused)
    x = rng.standard_normal((5, 6)).astype(dtype)
    old = threads.get_num_threads()
    threads.set_num_threads(n_threads)
    try:
        for _ in range(steps):
            net.cleargrads()
            F.sum(net(x)).backward()
            grads = {n: p.grad.copy() for n, p in net.namedparams()}
            before = {n: p.array.copy() for n, p in net.namedparams()}
            opt.update()
    finally:
        threads.set_num_threads(old)
    return net, grads, before


def test_sgd_update_is_the_fused_multiply_add():
    net, grads, before = _train(True, 1)
    for name, p in net.namedparams():
        if OPENBLAS:
            _assert_rounded_once(
                p.array.ravel(), before[name].ravel(), -0.05, grads[name].ravel()
            )
        else:  # NumPy's two passes
            want = before[name] - grads[name] * np.float32(0.05)
            np.testing.assert_array_equal(p.array, want, err_msg=name)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sgd_same_bits_fused_per_param_and_threaded(dtype, monkeypatch):
    # Small blocks, several per thread: the pieces differ at 1 and 3 threads.
    monkeypatch.setattr(_fused, "BLOCK", 16)
    monkeypatch.setattr(_fused, "MIN_BLOCK", 4)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    ref, _, _ = _train(False, 1, dtype)
    for fused, n in ((True, 1), (True, 3), (False, 3)):
        net, _, _ = _train(fused, n, dtype)
        for (name, a), (_, b) in zip(net.namedparams(), ref.namedparams()):
            np.testing.assert_array_equal(a.array, b.array, err_msg=name)


def test_sgd_without_blas_axpy_keeps_numpys_two_passes(monkeypatch):
    monkeypatch.setitem(blas._found, "axpy", {})
    net, grads, before = _train(True, 1)
    for name, p in net.namedparams():
        want = before[name] - grads[name] * np.float32(0.05)
        np.testing.assert_array_equal(p.array, want, err_msg=name)


def test_sgd_kernel_holds_blas_at_one_thread(blas_holds, monkeypatch):
    # The kernel's blocks are the pool threads' shares: BLAS's own threads
    # are held at one while it runs (conftest's fake BLAS counts each hold).
    assert sgd_mod.SGDRule._fused_kernel.blas
    monkeypatch.setitem(blas._found, "axpy", {})  # the fake BLAS has no axpy
    p = np.zeros(10, np.float32)
    sgd_mod.SGDRule._fused_kernel.apply((0.1,), p, np.ones(10, np.float32), {})
    assert blas_holds
    np.testing.assert_allclose(p, -0.1)


def test_sgd_non_contiguous_parameter_falls_back():
    base = np.arange(20, dtype=np.float32).reshape(4, 5)
    p = base.T  # not C-contiguous
    g = np.ones((5, 4), np.float32)
    sgd_mod.SGDRule._fused_kernel.apply((0.5,), p, g, {})
    np.testing.assert_array_equal(base.T, np.arange(20).reshape(4, 5).T - 0.5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1000, 100), (3, 7), (1, 5), (5, 1), (0, 4)])
def test_transpose_into_copies_exactly(dtype, shape):
    a = np.random.default_rng(5).standard_normal(shape).astype(dtype)
    out = np.full(shape[::-1], np.nan, dtype)
    assert blas.transpose_into(a, out) is OPENBLAS
    if OPENBLAS:
        np.testing.assert_array_equal(out, a.T)
    else:
        assert np.isnan(out).all()


@pytest.mark.parametrize(
    "a,out",
    [
        (np.ones((3, 4), np.float32).T, np.empty((3, 4), np.float32)),  # a strided
        (np.ones((3, 4), np.float32), np.empty((3, 4), np.float32)),  # shape
        (np.ones((3, 4), np.float32), np.empty((3, 4), np.float32).T),  # out strided
        (np.ones((3, 4), np.float32), np.empty((4, 3), np.float64)),  # dtype
        (np.ones((3, 4), np.float16), np.empty((4, 3), np.float16)),  # no routine
        (np.ones(4, np.float32), np.empty(4, np.float32)),  # 1-d
        ([[1.0]], np.empty((1, 1), np.float32)),  # not an array
    ],
)
def test_transpose_into_declines_what_it_cannot_do(a, out):
    before = np.array(out, copy=True)
    assert blas.transpose_into(a, out) is False
    np.testing.assert_array_equal(out, before)


def test_transpose_into_declines_a_read_only_target():
    out = np.zeros((2, 3), np.float32)
    out.flags.writeable = False
    assert blas.transpose_into(np.ones((3, 2), np.float32), out) is False


def test_address_of_writable_read_only_and_empty_arrays():
    a = np.arange(6, dtype=np.float32)
    assert blas._address(a) == a.ctypes.data
    assert blas._address(a[2:]) == a[2:].ctypes.data
    ro = a.copy()
    ro.flags.writeable = False
    assert blas._address(ro) == ro.ctypes.data
    e = np.zeros(0, np.float32)
    assert blas._address(e) == e.ctypes.data


def test_axpy_reads_a_read_only_source():
    x = np.ones(5, np.float32)
    x.flags.writeable = False
    y = np.zeros(5, np.float32)
    assert blas.axpy(2.0, x, y) is OPENBLAS
    np.testing.assert_array_equal(y, 2.0 if OPENBLAS else 0.0)


def _normal_values(rng, n, dtype):
    # signs and magnitudes of gradients, all in float's normal range
    return (rng.standard_normal(n) * 10.0 ** rng.uniform(-6, 3, n)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("scale", [0.5, 0.25, 0.125])
def test_axpby_power_of_two_mean_has_the_bits_of_add_then_multiply(dtype, scale):
    # What kusari-mn's ring relies on to divide while it adds.
    rng = np.random.RandomState(0)
    x = _normal_values(rng, 100_003, dtype)
    y = _normal_values(rng, 100_003, dtype)
    expect = np.add(y, x)
    np.multiply(expect, scale, out=expect)
    before = y.copy()
    assert blas.axpby(scale, x, scale, y) is OPENBLAS
    np.testing.assert_array_equal(y, expect if OPENBLAS else before)


def test_axpby_general_factors():
    rng = np.random.RandomState(1)
    x = rng.standard_normal(1001)
    y = rng.standard_normal(1001)
    expect = 3.0 * x - 0.7 * y
    assert blas.axpby(3.0, x, -0.7, y) is OPENBLAS
    if OPENBLAS:
        np.testing.assert_allclose(y, expect, rtol=1e-13, atol=1e-13)
    empty = np.zeros(0, np.float32)
    assert blas.axpby(0.5, empty, 0.5, empty.copy()) is OPENBLAS


@pytest.mark.parametrize(
    "x, y",
    [
        (np.ones(4, np.float32), np.ones(4, np.float64)),  # dtypes differ
        (np.ones(4, np.float32), np.ones(5, np.float32)),  # sizes differ
        (np.ones(8, np.float32)[::2], np.ones(4, np.float32)),  # strided
        (np.ones(4, np.float16), np.ones(4, np.float16)),  # no BLAS type
        ([1.0, 2.0], np.ones(2)),  # not an array
    ],
)
def test_axpby_declines_what_it_cannot_do(x, y):
    before = np.array(y, copy=True)
    assert blas.axpby(0.5, x, 0.5, y) is False
    np.testing.assert_array_equal(y, before)


def test_axpby_declines_a_read_only_target():
    y = np.ones(4)
    y.flags.writeable = False
    assert blas.axpby(0.5, np.ones(4), 0.5, y) is False
    np.testing.assert_array_equal(y, np.ones(4))
