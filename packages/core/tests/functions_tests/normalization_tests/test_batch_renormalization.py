import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

EPS = 2e-5


def _stats(x):
    axis = (0,) + tuple(range(2, x.ndim))
    return axis, x.mean(axis=axis), x.var(axis=axis)


def _renorm_ref(x, gamma, beta, rmean, rvar, rmax, dmax):
    axis, mean, var = _stats(x)
    std = np.sqrt(var + EPS)
    rstd = np.sqrt(rvar + EPS)
    r = np.clip(std / rstd, 1 / rmax, rmax)
    d = np.clip((mean - rmean) / rstd, -dmax, dmax)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    xh = (x - mean.reshape(shape)) / std.reshape(shape)
    return gamma.reshape(shape) * (
        xh * r.reshape(shape) + d.reshape(shape)
    ) + beta.reshape(shape)


@pytest.mark.parametrize("shape", [(5, 3), (3, 3, 2)])
def test_batch_renormalization(shape, float_dtype, device):
    # Running statistics far from the batch's make r and d saturate, so they are
    # constants and the numerical gradient applies (Chainer treats them as such).
    rmean = np.full(3, 50.0, float_dtype)
    rvar = np.full(3, 100.0, float_dtype)

    dev = kusari.get_device(device)

    def op(x, g, b):
        return F.batch_renormalization(
            x,
            g,
            b,
            1.5,
            0.2,
            running_mean=dev.send(rmean.copy()),
            running_var=dev.send(rvar.copy()),
        )

    def ref(x, g, b):
        return _renorm_ref(x, g, b, 50.0, 100.0, 1.5, 0.2)

    tol = None
    if float_dtype == np.float16:
        tol = {"backward": (1e-1, 1e-1), "double_backward": (2e-1, 2e-1)}
    check_op(
        op, ref, [shape, (3,), (3,)], dtype=float_dtype, device=device, tolerances=tol
    )


def test_batch_renormalization_mixed_dtypes(device):
    # BatchRenormalization under kusari.mixed16: float16 x, float32 gamma, beta
    # and running statistics; y in float16, each gradient in its input's dtype.
    dev = kusari.get_device(device)

    def op(x, g, b):
        return F.batch_renormalization(
            x,
            g,
            b,
            1.5,
            0.2,
            running_mean=dev.send(np.full(3, 50.0, np.float32)),
            running_var=dev.send(np.full(3, 100.0, np.float32)),
        )

    check_op(
        op,
        lambda x, g, b: _renorm_ref(x, g, b, 50.0, 100.0, 1.5, 0.2),
        [(5, 3), (3,), (3,)],
        input_dtypes=(np.float16, np.float32, np.float32),
        dtype=np.float16,
        device=device,
        tolerances={"backward": (1e-1, 1e-1), "double_backward": (2e-1, 2e-1)},
    )


def test_batch_renormalization_forward_unclipped():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(6, 3)).astype(np.float64)
    g, b = rng.uniform(0.5, 1, 3), rng.uniform(-1, 1, 3)
    rmean, rvar = np.full(3, 0.1), np.full(3, 0.9)
    y = F.batch_renormalization(x, g, b, 3.0, 5.0, running_mean=rmean, running_var=rvar)
    np.testing.assert_allclose(y.array, _renorm_ref(x, g, b, 0.1, 0.9, 3.0, 5.0))


@pytest.mark.parametrize("update", [False, True])
def test_batch_renormalization_update_statistics(update):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(6, 3))
    rmean, rvar = np.zeros(3), np.ones(3)
    F.batch_renormalization(
        x,
        np.ones(3),
        np.zeros(3),
        2.0,
        1.0,
        running_mean=rmean,
        running_var=rvar,
        decay=0.5,
        update_statistics=update,
    )
    if update:
        np.testing.assert_allclose(rmean, 0.5 * x.mean(axis=0))
        np.testing.assert_allclose(rvar, 0.5 + 0.5 * x.var(axis=0) * 6 / 5)
    else:
        np.testing.assert_array_equal(rmean, 0)
        np.testing.assert_array_equal(rvar, 1)


def test_batch_renormalization_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="gamma.shape"):
        F.batch_renormalization(
            np.zeros((2, 3)),
            np.ones(2),
            np.zeros(2),
            1.0,
            0.0,
            running_mean=np.zeros(2),
            running_var=np.ones(2),
        )


def test_batch_renormalization_needs_running_statistics():
    x, g = np.zeros((2, 3)), np.ones(3)
    with pytest.raises(TypeError, match="running_mean"):
        F.batch_renormalization(x, g, g, 1.0, 0.0, running_var=g)
    with pytest.raises(TypeError, match="running_var"):
        F.batch_renormalization(x, g, g, 1.0, 0.0, running_mean=g)


def test_batch_renormalization_train_only():
    x, g = np.zeros((2, 3)), np.ones(3)
    with kusari.using_config("train", False):
        with pytest.raises(RuntimeError, match="train"):
            F.batch_renormalization(x, g, g, 1.0, 0.0, running_mean=g, running_var=g)


def test_fixed_batch_renormalization_is_deprecated():
    x = np.array([[3.0]])
    one = np.ones(1)
    with pytest.warns(DeprecationWarning, match="fixed_batch_normalization"):
        y = F.fixed_batch_renormalization(x, one, one * 0, one, one * 4, eps=0.0)
    np.testing.assert_allclose(y.array, [[1.0]])
