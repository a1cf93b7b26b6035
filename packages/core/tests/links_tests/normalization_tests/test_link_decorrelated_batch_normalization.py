"""Tests of L.DecorrelatedBatchNormalization."""

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import gradient_check, serializers


def _x(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_persistents_and_group_shape():
    dbn = L.DecorrelatedBatchNormalization(4, groups=2)
    assert dbn.avg_mean.shape == (2, 2)
    np.testing.assert_array_equal(dbn.avg_projection, [np.eye(2)] * 2)
    assert dbn._persistent == {"N", "avg_mean", "avg_projection"}
    assert list(dbn.params()) == []
    by_size = L.DecorrelatedBatchNormalization(6, groups=None, group_size=3)
    assert by_size.groups == 2
    assert L.DecorrelatedBatchNormalization(32, groups=None).groups == 2
    with pytest.raises(ValueError, match="groups"):
        L.DecorrelatedBatchNormalization(5, groups=2)


def test_train_whitens_and_test_mode():
    dbn = L.DecorrelatedBatchNormalization(4, groups=2, decay=0.5)
    x = _x((64, 4))
    x[:, 1] += 0.8 * x[:, 0]
    y = dbn(x).array
    # Chainer v7: each block of consecutive channels has its own statistics
    for g in (y[:, :2], y[:, 2:]):
        np.testing.assert_allclose(np.cov(g.T, bias=True), np.eye(2), atol=1e-3)
    expect = np.concatenate(
        [
            F.decorrelated_batch_normalization(x[:, :2], groups=1).array,
            F.decorrelated_batch_normalization(x[:, 2:], groups=1).array,
        ],
        axis=1,
    )
    np.testing.assert_allclose(y, expect, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        dbn.avg_mean, 0.5 * x.mean(0).reshape(2, 2), rtol=1e-5, atol=1e-6
    )
    with kusari.using_config("train", False):
        yt = dbn(x)
    expect_t = F.fixed_decorrelated_batch_normalization(
        x, dbn.avg_mean, dbn.avg_projection, groups=2
    ).array
    np.testing.assert_allclose(yt.array, expect_t, rtol=1e-6)
    dbn.start_finetuning()
    dbn(x, finetune=True)
    assert dbn.N == 1
    np.testing.assert_allclose(
        dbn.avg_mean.reshape(-1), x.mean(0), rtol=1e-5, atol=1e-6
    )


def test_save_load_and_old_shapes(tmp_path):
    dbn = L.DecorrelatedBatchNormalization(4, groups=2)
    dbn(_x((16, 4)))
    path = tmp_path / "dbn.npz"
    serializers.save_npz(str(path), dbn)
    other = L.DecorrelatedBatchNormalization(4, groups=2)
    serializers.load_npz(str(path), other)
    np.testing.assert_array_equal(other.avg_projection, dbn.avg_projection)
    # statistics saved without the group axis (old Chainer) are broadcast
    old = tmp_path / "old.npz"
    np.savez(
        str(old),
        avg_mean=np.ones(2, np.float32),
        avg_projection=2 * np.eye(2, dtype=np.float32),
        N=np.asarray(0),
    )
    single = L.DecorrelatedBatchNormalization(2, groups=1)
    serializers.load_npz(str(old), single)
    np.testing.assert_array_equal(single.avg_mean, [[1, 1]])
    with pytest.warns(UserWarning, match="old"):
        serializers.load_npz(str(old), L.DecorrelatedBatchNormalization(4, groups=2))


def test_gradient_4d():
    dbn = L.DecorrelatedBatchNormalization(4, groups=2, dtype=np.float64)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4, 2, 2))
    gy = rng.standard_normal((3, 4, 2, 2))
    gradient_check.check_backward(dbn, x, gy, atol=1e-5, rtol=1e-4)
    with kusari.using_config("train", False):
        gradient_check.check_backward(dbn, x, gy, atol=1e-5, rtol=1e-4)
