"""OpenBLAS's axpy as SGD's CPU update (optimizers/_blas_axpy.py): found in
NumPy's OpenBLAS, rounded once, the same bits however the update is cut
(blocks, threads, fused or per parameter), NumPy's two passes without it."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import optimizers
from kusari.optimizers import _blas_axpy, _fused
from kusari.optimizers import sgd as sgd_mod
from kusari.utils import threads


def _openblas_loaded() -> bool:
    ctl = threads.blas_controller()
    return ctl is not None and any(
        lib.internal_api == "openblas" for lib in ctl.lib_controllers
    )


needs_openblas = pytest.mark.skipif(
    not _openblas_loaded(), reason="NumPy is not linked to OpenBLAS here"
)
# The exactly rounded reference needs a 64-bit mantissa (x87 long double).
needs_long_double = pytest.mark.skipif(
    np.finfo(np.longdouble).nmant < 63, reason="long double is not 80-bit here"
)


def _fma32(p, a, g):
    # float32 products are exact in float64 and the sum then exact in
    # long double (x87: 64-bit mantissa) for these magnitudes: one rounding.
    wide = p.astype(np.longdouble) + np.longdouble(np.float32(a)) * g.astype(
        np.longdouble
    )
    return wide.astype(np.float32)


@needs_openblas
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_found_for_float32_and_float64(dtype):
    assert np.dtype(dtype) in _blas_axpy._functions()


@needs_openblas
@needs_long_double
def test_rounds_once_and_stays_within_one_rounding_of_numpy():
    rng = np.random.default_rng(0)
    p = rng.standard_normal(10007).astype(np.float32)
    g = (rng.standard_normal(10007) * 1e3).astype(np.float32)
    y = p.copy()
    assert _blas_axpy.axpy(-0.0123, g, y)
    np.testing.assert_array_equal(y, _fma32(p, -0.0123, g))
    step = g * np.float32(0.0123)
    two = p - step
    assert np.count_nonzero(y != two) > 0  # not NumPy's two roundings
    # They differ by the rounding of the product NumPy stores first (and
    # the result's own half unit): within one unit of either.
    bound = np.spacing(np.abs(step)) + np.spacing(np.abs(two))
    assert np.all(np.abs(y.astype(np.float64) - two) <= bound)


@needs_openblas
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pieces_give_the_whole_arrays_bits(dtype):
    rng = np.random.default_rng(1)
    n = 5003
    p = rng.standard_normal(n).astype(dtype)
    g = rng.standard_normal(n).astype(dtype)
    whole = p.copy()
    assert _blas_axpy.axpy(0.37, g, whole)
    for _ in range(5):
        cuts = [0, *sorted(rng.choice(n, 6, replace=False).tolist()), n]
        pieces = p.copy()
        for s, e in zip(cuts, cuts[1:]):
            assert _blas_axpy.axpy(0.37, g[s:e], pieces[s:e])
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
    assert _blas_axpy.axpy(1.0, x, y) is False
    np.testing.assert_array_equal(y, before)


def test_declines_a_read_only_target():
    y = np.zeros(3, np.float32)
    y.flags.writeable = False
    assert _blas_axpy.axpy(1.0, np.ones(3, np.float32), y) is False


def test_empty_arrays():
    y = np.zeros(0, np.float32)
    assert _blas_axpy.axpy(1.0, np.zeros(0, np.float32), y) in (True, False)


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


@needs_openblas
@needs_long_double
def test_sgd_update_is_the_fused_multiply_add():
    net, grads, before = _train(True, 1)
    for name, p in net.namedparams():
        want = _fma32(before[name], -0.05, grads[name])
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
    monkeypatch.setattr(_blas_axpy, "_found", {})
    net, grads, before = _train(True, 1)
    for name, p in net.namedparams():
        want = before[name] - grads[name] * np.float32(0.05)
        np.testing.assert_array_equal(p.array, want, err_msg=name)


def test_sgd_kernel_holds_blas_at_one_thread(blas_holds, monkeypatch):
    # The kernel's blocks are the pool threads' shares: BLAS's own threads
    # are held at one while it runs (conftest's fake BLAS counts each hold).
    assert sgd_mod.SGDRule._fused_kernel.blas
    monkeypatch.setattr(_blas_axpy, "_found", {})  # the fake BLAS has no axpy
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
