import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _groups(x, groups):
    perm = (1, 0) + tuple(range(2, x.ndim))
    return x.transpose(perm).reshape(groups, x.shape[1] // groups, -1)


def _from_groups(a, shape):
    perm = (1, 0) + tuple(range(2, len(shape)))
    return a.reshape((shape[1], shape[0]) + shape[2:]).transpose(perm)


def _zca(xm, eps):
    cov = xm @ xm.T / xm.shape[1] + eps * np.eye(xm.shape[0])
    lam, u = np.linalg.eigh(cov)
    return u @ np.diag(lam**-0.5) @ u.T


def _dbn_ref(x, groups, eps=2e-5):
    out = []
    for xg in _groups(x, groups):
        xm = xg - xg.mean(axis=1, keepdims=True)
        out.append(_zca(xm, eps) @ xm)
    return _from_groups(np.stack(out), x.shape)


@pytest.mark.parametrize("shape,groups", [((8, 3), 1), ((10, 4), 2), ((3, 4, 2, 2), 2)])
def test_decorrelated_batch_normalization(shape, groups, float_dtype, device):
    tol = None
    if float_dtype == np.float16:
        tol = {"forward": (2e-2, 2e-2), "backward": (1e-1, 1e-1)}
    # Chainer does not implement double backprop here.
    check_op(
        lambda x: F.decorrelated_batch_normalization(x, groups=groups),
        lambda x: _dbn_ref(x, groups),
        [shape],
        dtype=float_dtype,
        device=device,
        double_backward=False,
        tolerances=tol,
    )


def test_decorrelated_batch_normalization_whitens():
    x = np.random.default_rng(0).normal(size=(200, 3)) @ np.array(
        [[1.0, 0.5, 0.0], [0.0, 1.0, 0.3], [0.0, 0.0, 2.0]]
    )
    y = F.decorrelated_batch_normalization(x, groups=1).array
    np.testing.assert_allclose(y.mean(axis=0), 0, atol=1e-10)
    np.testing.assert_allclose(y.T @ y / 200, np.eye(3), atol=1e-3)


def test_decorrelated_batch_normalization_running_statistics():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(10, 4))
    mean, proj = np.zeros((2, 2)), np.stack([np.eye(2)] * 2)
    F.decorrelated_batch_normalization(
        x, groups=2, running_mean=mean, running_projection=proj, decay=0.5, eps=0.0
    )
    for g in range(2):
        xg = x[:, 2 * g : 2 * g + 2].T
        np.testing.assert_allclose(mean[g], 0.5 * xg.mean(axis=1))
        xm = xg - xg.mean(axis=1, keepdims=True)
        expected = 0.5 * np.eye(2) + 0.5 * (10 / 9) * _zca(xm, 0.0)
        np.testing.assert_allclose(proj[g], expected)


def test_decorrelated_batch_normalization_groups_are_independent():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(6, 4, 3))
    y = F.decorrelated_batch_normalization(x, groups=2).array
    y0 = F.decorrelated_batch_normalization(x[:, :2], groups=1).array
    np.testing.assert_allclose(y[:, :2], y0)


def test_decorrelated_batch_normalization_no_double_backprop():
    x = kusari.Variable(np.random.default_rng(0).normal(size=(5, 2)))
    y = F.decorrelated_batch_normalization(x, groups=1)
    (gx,) = kusari.grad(
        [y], [x], grad_outputs=[np.ones((5, 2))], enable_double_backprop=True
    )
    with pytest.raises(NotImplementedError, match="double backward"):
        F.sum(gx * gx).backward()


def test_decorrelated_batch_normalization_bad_groups():
    with pytest.raises(type_check.InvalidType, match=r"x.shape\[1\] % 2 == 0"):
        F.decorrelated_batch_normalization(np.zeros((4, 3), np.float32), groups=2)
    with pytest.raises(ValueError, match="groups"):
        F.decorrelated_batch_normalization(np.zeros((4, 3), np.float32), groups=0)


@pytest.mark.parametrize("shape,groups", [((4, 3), 1), ((2, 4, 3), 2)])
def test_fixed_decorrelated_batch_normalization(shape, groups, float_dtype, device):
    cg = shape[1] // groups

    def ref(x, mean, proj):
        xg = _groups(x, groups)
        return _from_groups(proj @ (xg - mean[:, :, None]), x.shape)

    check_op(
        lambda x, m, p: F.fixed_decorrelated_batch_normalization(x, m, p, groups),
        ref,
        [shape, (groups, cg), (groups, cg, cg)],
        dtype=float_dtype,
        device=device,
    )


def test_fixed_decorrelated_batch_normalization_bad_shapes():
    with pytest.raises(type_check.InvalidType, match="projection"):
        F.fixed_decorrelated_batch_normalization(
            np.zeros((2, 4), np.float32),
            np.zeros((2, 2), np.float32),
            np.zeros((2, 3, 3), np.float32),
            groups=2,
        )


def test_fixed_decorrelated_batch_normalization_dtype_rule_is_a_type_check():
    # float32 statistics with a float64 x: refused while type checks are on,
    # promoted to float64 (as Chainer v7 computes it) when they are off.
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (3, 4))
    mean = rng.uniform(-1, 1, (2, 2)).astype(np.float32)
    proj = rng.uniform(-1, 1, (2, 2, 2)).astype(np.float32)
    with pytest.raises(type_check.InvalidType, match="float32"):
        F.fixed_decorrelated_batch_normalization(x, mean, proj, groups=2)
    with kusari.using_config("type_check", False):
        y = F.fixed_decorrelated_batch_normalization(x, mean, proj, groups=2)
        # Shapes are still checked: they are needed to compute anything.
        with pytest.raises(type_check.InvalidType, match="projection"):
            F.fixed_decorrelated_batch_normalization(x, mean, proj[:, :1], groups=2)
    assert y.dtype == np.float64
    xg = x.T.reshape(2, 2, 3)
    expect = (proj.astype("d") @ (xg - mean.astype("d")[:, :, None])).reshape(4, 3).T
    np.testing.assert_allclose(y.array, expect, rtol=1e-6)
