import warnings

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.functions.normalization.batch_normalization import BatchNormalizationGrad
from kusari.testing import check_op
from kusari.utils import type_check


def _bshape(x_shape, axis):
    return tuple(1 if i in axis else s for i, s in enumerate(x_shape))


def _bn_ref(x, gamma, beta, axis, eps=2e-5):
    mean = x.mean(axis=axis, keepdims=True)
    var = x.var(axis=axis, keepdims=True)
    b = _bshape(x.shape, axis)
    return gamma.reshape(b) * (x - mean) / np.sqrt(var + eps) + beta.reshape(b)


def _positive(shape):
    def gen(rng, dtype):
        return rng.uniform(0.5, 1.5, shape).astype(dtype)

    return gen


# x shape, gamma shape, axis argument, normalized axes
CASES = [
    ((5, 3), (3,), None, (0,)),
    ((3, 2, 2, 3), (2,), None, (0, 2, 3)),
    ((4, 3, 2), (3, 2), None, (0,)),
    ((3, 4, 2), (2,), (0, 1), (0, 1)),
    ((3, 4), (3,), 1, (1,)),
]


@pytest.mark.parametrize("x_shape,g_shape,axis,red", CASES)
def test_batch_normalization(x_shape, g_shape, axis, red, float_dtype, device):
    tol = None
    if float_dtype == np.float16:
        tol = {"backward": (1e-1, 1e-1), "double_backward": (2e-1, 2e-1)}
    check_op(
        lambda x, g, b: F.batch_normalization(x, g, b, axis=axis),
        lambda x, g, b: _bn_ref(x, g, b, red),
        [x_shape, _positive(g_shape), g_shape],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_batch_normalization_running_statistics():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 3, 2)).astype(np.float32)
    mean = np.full(3, 0.5, np.float32)
    var = np.full(3, 2.0, np.float32)
    mean_id, var_id = id(mean), id(var)
    F.batch_normalization(
        x,
        np.ones(3, np.float32),
        np.zeros(3, np.float32),
        running_mean=mean,
        running_var=var,
        decay=0.8,
    )
    m = 16
    expected_mean = 0.8 * 0.5 + 0.2 * x.mean(axis=(0, 2))
    expected_var = 0.8 * 2.0 + 0.2 * x.var(axis=(0, 2)) * m / (m - 1)
    assert id(mean) == mean_id and id(var) == var_id
    np.testing.assert_allclose(mean, expected_mean, rtol=1e-5)
    np.testing.assert_allclose(var, expected_var, rtol=1e-5)


def test_batch_normalization_uses_batch_statistics_in_test_mode():
    # As in Chainer, the function always normalizes with the batch's statistics.
    x = np.random.default_rng(1).normal(size=(6, 2)).astype(np.float32)
    g, b = np.ones(2, np.float32), np.zeros(2, np.float32)
    y_train = F.batch_normalization(x, g, b).array
    with kusari.using_config("train", False):
        y_test = F.batch_normalization(x, g, b).array
    np.testing.assert_array_equal(y_train, y_test)


def test_batch_normalization_backward_is_fused():
    x = kusari.Variable(np.random.default_rng(2).normal(size=(4, 3)))
    g = kusari.Variable(np.ones(3))
    y = F.batch_normalization(x, g, np.zeros(3))
    gx, gg = kusari.grad(
        [y], [x, g], grad_outputs=[np.ones((4, 3))], enable_double_backprop=True
    )
    assert isinstance(gx.creator, BatchNormalizationGrad)
    assert gx.creator is gg.creator
    np.testing.assert_allclose(gx.array, 0, atol=1e-10)  # sum of outputs is constant


def test_batch_normalization_eps():
    x = np.array([[0.0], [2.0]], np.float64)
    y = F.batch_normalization(x, np.ones(1), np.zeros(1), eps=3.0)
    np.testing.assert_allclose(y.array, [[-0.5], [0.5]])


def test_batch_normalization_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="gamma.shape"):
        F.batch_normalization(
            np.zeros((2, 3), np.float32),
            np.ones(4, np.float32),
            np.zeros(4, np.float32),
        )


def test_batch_normalization_beta_mismatch():
    with pytest.raises(type_check.InvalidType, match="beta"):
        F.batch_normalization(
            np.zeros((2, 3), np.float32),
            np.ones(3, np.float32),
            np.zeros(2, np.float32),
        )


def test_batch_normalization_bad_axis():
    x, g = np.zeros((2, 3), np.float32), np.ones(3, np.float32)
    with pytest.raises(ValueError, match="axis"):
        F.batch_normalization(x, g, g, axis=(1, 0))
    with pytest.raises(ValueError, match="axis"):
        F.batch_normalization(x, g, g, axis=5)


def test_fixed_batch_normalization(float_dtype, device):
    def ref(x, g, b, m, v):
        return g * (x - m) / np.sqrt(v + 2e-5) + b

    tol = None
    if float_dtype == np.float16:
        tol = {"backward": (1e-1, 1e-1), "double_backward": (2e-1, 2e-1)}
    check_op(
        F.fixed_batch_normalization,
        ref,
        [(4, 3), (3,), (3,), (3,), _positive((3,))],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_fixed_batch_normalization_axis(device):
    def ref(x, g, b, m, v):
        return (
            g[None, :, None] * (x - m[None, :, None]) / np.sqrt(v[None, :, None] + 1e-3)
            + b[None, :, None]
        )

    check_op(
        lambda *a: F.fixed_batch_normalization(*a, eps=1e-3, axis=(0, 2)),
        ref,
        [(2, 3, 4), (3,), (3,), (3,), _positive((3,))],
        dtype=np.float64,
        device=device,
    )


@pytest.mark.parametrize("fixed", [False, True])
def test_batch_normalization_float16_input_float32_parameters(fixed):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(6, 3)).astype(np.float16)
    n_params = 4 if fixed else 2
    params = [rng.uniform(0.5, 1.5, 3).astype(np.float32) for _ in range(n_params)]
    fn = F.fixed_batch_normalization if fixed else F.batch_normalization

    def grads(x, params, gy):
        xv = kusari.Variable(x)
        pv = [kusari.Variable(p) for p in params]
        y = fn(xv, *pv)
        return y, kusari.grad(
            [y], [xv] + pv, grad_outputs=[gy], enable_double_backprop=True
        )

    gy = rng.normal(size=(6, 3)).astype(np.float16)
    y, gs = grads(x, params, gy)
    assert y.dtype == np.float16
    assert [g.dtype for g in gs] == [np.float16] + [np.float32] * len(params)
    y64, gs64 = grads(
        x.astype(np.float64),
        [p.astype(np.float64) for p in params],
        gy.astype(np.float64),
    )
    np.testing.assert_allclose(y.array, y64.array, atol=5e-3)
    for g, g64 in zip(gs, gs64, strict=True):
        np.testing.assert_allclose(g.array, g64.array, atol=1e-2, rtol=1e-2)
    F.sum(gs[1] * gs[1]).backward()  # double backprop runs across the dtypes


# float16 inputs with float32 parameters and statistics (what kusari.mixed16
# links create), and the other way round: y in x's dtype, each gradient in
# its input's dtype, checked numerically up to the double backward.
MIXED = [(np.float16, np.float32), (np.float32, np.float64)]
MIXED_TOL = {"backward": (1e-1, 1e-1), "double_backward": (2e-1, 2e-1)}


@pytest.mark.parametrize("dx,dp", MIXED)
@pytest.mark.parametrize("x_shape,g_shape,axis,red", [CASES[0], CASES[1]])
def test_batch_normalization_mixed_dtypes(x_shape, g_shape, axis, red, dx, dp, device):
    check_op(
        lambda x, g, b: F.batch_normalization(x, g, b, axis=axis),
        lambda x, g, b: _bn_ref(x, g, b, red),
        [x_shape, _positive(g_shape), g_shape],
        input_dtypes=(dx, dp, dp),
        dtype=dx,
        device=device,
        tolerances=MIXED_TOL,
    )


@pytest.mark.parametrize("dx,dp", MIXED)
def test_fixed_batch_normalization_mixed_dtypes(dx, dp, device):
    def ref(x, g, b, m, v):
        return g * (x - m) / np.sqrt(v + 2e-5) + b

    check_op(
        F.fixed_batch_normalization,
        ref,
        [(4, 3), (3,), (3,), (3,), _positive((3,))],
        input_dtypes=(dx, dp, dp, dp, dp),
        dtype=dx,
        device=device,
        tolerances=MIXED_TOL,
    )


def test_batch_normalization_mixed_running_statistics_keep_their_dtype():
    rng = np.random.default_rng(3)
    x = rng.normal(2.0, 3.0, size=(64, 2)).astype(np.float16)
    mean, var = np.zeros(2, np.float32), np.ones(2, np.float32)
    F.batch_normalization(
        x,
        np.ones(2, np.float32),
        np.zeros(2, np.float32),
        running_mean=mean,
        running_var=var,
        decay=0.0,
    )
    assert mean.dtype == var.dtype == np.float32
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(mean, x64.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(var, x64.var(axis=0, ddof=1), rtol=1e-5)


def test_batch_normalization_mixed_parameter_dtypes_must_agree():
    x = np.zeros((2, 3), np.float16)
    with pytest.raises(type_check.InvalidType, match="beta"):
        F.batch_normalization(x, np.ones(3, np.float32), np.zeros(3, np.float16))
    with pytest.raises(type_check.InvalidType, match="mean"):
        F.fixed_batch_normalization(
            x,
            np.ones(3, np.float32),
            np.zeros(3, np.float32),
            np.zeros(3, np.float16),
            np.ones(3, np.float32),
        )


@pytest.mark.parametrize(
    "x_shape,g_shape,axis,match",
    [
        ((1, 3), (3,), None, "at most one sample"),
        ((1, 3, 1), (1, 3), 2, "size 1 along every axis"),
    ],
)
def test_batch_normalization_warns_when_statistics_see_one_element(
    x_shape, g_shape, axis, match
):
    # Chainer's UserWarning: the output is then beta, whatever x is.
    x = np.random.randn(*x_shape).astype(np.float32)
    gamma = np.ones(g_shape, np.float32)
    beta = np.full(g_shape, 0.5, np.float32)
    with pytest.warns(UserWarning, match=match):
        y = F.batch_normalization(x, gamma, beta, axis=axis)
    np.testing.assert_allclose(y.array, np.broadcast_to(0.5, x_shape))


@pytest.mark.parametrize("x_shape,axis", [((2, 3), None), ((1, 3, 2), 2)])
def test_batch_normalization_does_not_warn_with_more_elements(x_shape, axis):
    g_shape = (3,) if axis is None else (1, 3)
    x = np.random.randn(*x_shape).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.batch_normalization(
            x, np.ones(g_shape, np.float32), np.zeros(g_shape, np.float32), axis=axis
        )
