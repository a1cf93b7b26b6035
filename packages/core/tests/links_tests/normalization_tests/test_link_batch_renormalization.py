"""Tests of L.BatchRenormalization."""

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import gradient_check


def _x(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def test_is_batch_normalization_with_bounds():
    brn = L.BatchRenormalization(3, rmax=2.0, dmax=1.0)
    assert isinstance(brn, L.BatchNormalization)
    assert brn.rmax == 2.0 and brn.dmax == 1.0
    assert {n for n, _ in brn.namedparams()} == {"/gamma", "/beta"}
    assert brn._persistent == {"N", "avg_mean", "avg_var"}


def test_train_matches_function_and_updates_stats():
    brn = L.BatchRenormalization(3, rmax=2.0, dmax=0.5, decay=0.8)
    x = _x((6, 3)) * 3 + 1
    ref_mean, ref_var = brn.avg_mean.copy(), brn.avg_var.copy()
    expect = F.batch_renormalization(
        x,
        brn.gamma.array,
        brn.beta.array,
        2.0,
        0.5,
        running_mean=ref_mean,
        running_var=ref_var,
        decay=0.8,
        update_statistics=True,
    ).array
    y = brn(x)
    np.testing.assert_allclose(y.array, expect, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(brn.avg_mean, ref_mean, rtol=1e-6)
    np.testing.assert_allclose(brn.avg_var, ref_var, rtol=1e-6)
    assert not np.allclose(brn.avg_mean, 0)


def test_rmax1_dmax0_is_batch_norm_and_test_mode():
    brn = L.BatchRenormalization(2)
    x = _x((5, 2))
    np.testing.assert_allclose(
        brn(x).array, (x - x.mean(0)) / np.sqrt(x.var(0) + 2e-5), rtol=1e-4, atol=1e-5
    )
    with kusari.using_config("train", False):
        y = brn(x)
    np.testing.assert_allclose(
        y.array, (x - brn.avg_mean) / np.sqrt(brn.avg_var + 2e-5), rtol=1e-5
    )
    brn(x, finetune=True)
    assert brn.N == 1
    with pytest.raises(TypeError):
        brn(x, test=True)


def test_gradient():
    brn = L.BatchRenormalization(2, rmax=3.0, dmax=3.0, dtype=np.float64)
    rng = np.random.default_rng(2)
    brn.gamma.array[...] = rng.uniform(0.5, 1.5, 2)
    x = rng.standard_normal((5, 2))
    gy = rng.standard_normal((5, 2))

    def f(x_):
        brn.avg_mean[...] = 0.1  # keep the running stats fixed between calls
        brn.avg_var[...] = 1.5
        return brn(x_)

    # r and d are constants in backprop (as in the paper), so only the
    # parameters' gradients are exact
    gradient_check.check_backward(
        f, x, gy, params=[brn.gamma, brn.beta], no_grads=[True], atol=1e-5, rtol=1e-4
    )
