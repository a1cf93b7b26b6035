import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _away_from_zero(shape):
    def gen(rng, dtype):
        return (rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape)).astype(dtype)

    return gen


@pytest.mark.parametrize(
    "shape,axis",
    [((3, 4), None), ((3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), -1), ((), None)],
)
def test_cumprod(shape, axis, float_dtype, device):
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        lambda x: F.cumprod(x, axis=axis),
        lambda x: np.cumprod(x, axis=axis),
        [_away_from_zero(shape)],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


@pytest.mark.parametrize("axis", [0, 1])
def test_cumprod_with_zeros(axis, float_dtype, device):
    def gen(rng, dtype):
        x = rng.uniform(0.5, 1.5, (3, 4))
        x[1, 1] = 0
        x[2, 0] = x[0, 3] = 0
        return x.astype(dtype)

    check_op(
        lambda x: F.cumprod(x, axis=axis),
        lambda x: np.cumprod(x, axis=axis),
        [gen],
        dtype=float_dtype,
        device=device,
    )


def test_zero_gradient_is_exact():
    x = kusari.Variable(np.array([2.0, 0.0, 3.0]))
    y = F.cumprod(x)
    y.grad = np.ones(3)
    y.backward()
    # y = [x0, x0 x1, x0 x1 x2]
    np.testing.assert_array_equal(x.grad, [1.0, 2.0 + 6.0, 0.0])


def test_bad_axis():
    with pytest.raises(ValueError, match="cumprod"):
        F.cumprod(np.ones((2, 3), np.float32), axis=-3)


def test_int_input():
    with pytest.raises(type_check.InvalidType, match="cumprod"):
        F.cumprod(np.ones(3, np.int32), axis=0)


def _float64_grad(x, gy):
    # Exact gradient of cumprod along the last axis, from the definition.
    x = x.astype(np.float64)
    gy = gy.astype(np.float64)
    gx = np.zeros_like(x)
    for i in range(x.shape[-1]):
        for j in range(i, x.shape[-1]):
            gx[..., i] += gy[..., j] * np.prod(
                np.delete(x[..., : j + 1], i, axis=-1), axis=-1
            )
    return gx


def test_half_precision_gradient_survives_underflow():
    # y_2 = 1e-9 underflows to 0 in float16, so y / x gives gx_2 = 0; the
    # true value is about 1e-3 and must come back.
    x = np.array([[1e-3, 1e-3, 1e-3, 1e3]], np.float16)
    gy = np.ones_like(x)
    v = kusari.Variable(x)
    y = F.cumprod(v, axis=1)
    y.grad = gy
    y.backward()
    assert v.grad.dtype == np.float16
    want = _float64_grad(x, gy)
    np.testing.assert_allclose(v.grad.astype(np.float64)[0, :3], want[0, :3], rtol=0.1)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_half_precision_double_backward(axis):
    rng = np.random.default_rng(3)
    x = rng.uniform(-2, 2, (2, 3, 4)).astype(np.float16)
    x[0, 1, 2] = 0.004  # small factors are where a quotient went wrong
    gy = rng.uniform(-1, 1, x.shape).astype(np.float16)
    ggx = rng.uniform(-1, 1, x.shape).astype(np.float16)
    kusari.gradient_check.check_double_backward(
        lambda a: F.cumprod(a, axis),
        x,
        gy,
        ggx,
        dtype=np.float64,
        atol=0.1,
        rtol=0.1,
        eps=0.01,
    )


@pytest.mark.parametrize("axis", [0, 1])
def test_reverse_scan_gradients(axis):
    # The half-precision backward runs on this recurrence; check it in
    # float64 so a wrong adjoint cannot hide behind float16 tolerances.
    from kusari.functions.math.cumprod import _ReverseScan

    rng = np.random.default_rng(5)
    a = rng.uniform(-1.5, 1.5, (3, 4))
    b = rng.uniform(-1, 1, (3, 4))
    r = _ReverseScan(axis).apply((a, b))[0].array
    am, bm = np.moveaxis(a, axis, 0), np.moveaxis(b, axis, 0)
    want = np.zeros_like(bm)
    for i in range(bm.shape[0]):
        for j in range(i, bm.shape[0]):
            want[i] += bm[j] * np.prod(am[i:j], axis=0)
    np.testing.assert_allclose(r, np.moveaxis(want, 0, axis))
    gr = rng.uniform(-1, 1, a.shape)
    gg = (rng.uniform(-1, 1, a.shape), rng.uniform(-1, 1, a.shape))
    kusari.gradient_check.check_backward(
        lambda p, q: _ReverseScan(axis).apply((p, q))[0],
        (a, b),
        gr,
        atol=1e-6,
        rtol=1e-6,
    )
    kusari.gradient_check.check_double_backward(
        lambda p, q: _ReverseScan(axis).apply((p, q))[0],
        (a, b),
        gr,
        gg,
        atol=1e-6,
        rtol=1e-6,
    )


def test_half_precision_empty_axis():
    v = kusari.Variable(np.zeros((0, 3), np.float16))
    y = F.cumprod(v, axis=0)
    y.grad = np.zeros((0, 3), np.float16)
    y.backward()
    assert v.grad.shape == (0, 3)
