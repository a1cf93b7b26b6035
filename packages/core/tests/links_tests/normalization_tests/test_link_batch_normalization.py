"""Tests of L.BatchNormalization."""

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import gradient_check, serializers


def _x(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def test_params_and_persistents():
    bn = L.BatchNormalization(3)
    assert {n: p.shape for n, p in bn.namedparams()} == {"/gamma": (3,), "/beta": (3,)}
    np.testing.assert_array_equal(bn.gamma.array, 1)
    np.testing.assert_array_equal(bn.beta.array, 0)
    np.testing.assert_array_equal(bn.avg_mean, 0)
    np.testing.assert_array_equal(bn.avg_var, 1)
    assert bn.N == 0
    assert bn._persistent == {"N", "avg_mean", "avg_var"}
    assert bn.gamma.dtype == np.float32


def test_train_mode_normalizes_and_updates_stats():
    bn = L.BatchNormalization(3, decay=0.8)
    x = _x((5, 3, 2, 2)) * 2 + 1
    y = bn(x)
    mean = x.mean(axis=(0, 2, 3))
    var = x.var(axis=(0, 2, 3))
    expect = (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + 2e-5)
    np.testing.assert_allclose(y.array, expect, atol=1e-5)
    m = x.size / 3
    np.testing.assert_allclose(bn.avg_mean, 0.2 * mean, rtol=1e-5)
    np.testing.assert_allclose(bn.avg_var, 0.8 + 0.2 * var * m / (m - 1), rtol=1e-5)


def test_test_mode_uses_running_stats():
    bn = L.BatchNormalization(
        3, initial_avg_mean=np.array([1, 2, 3], np.float32), initial_avg_var=4.0
    )
    x = _x((4, 3))
    with kusari.using_config("train", False):
        y = bn(x)
    np.testing.assert_allclose(y.array, (x - [1, 2, 3]) / np.sqrt(4 + 2e-5), rtol=1e-5)
    np.testing.assert_array_equal(bn.avg_mean, [1, 2, 3])  # untouched
    expect = F.fixed_batch_normalization(
        x, bn.gamma, bn.beta, bn.avg_mean, bn.avg_var
    ).array
    with kusari.using_config("train", False):
        np.testing.assert_allclose(bn(x).array, expect, rtol=1e-6)


def test_finetune_averages_batches():
    bn = L.BatchNormalization(2)
    xs = [_x((6, 2), seed=s) for s in range(3)]
    for x in xs:
        bn(x, finetune=True)
    assert bn.N == 3
    np.testing.assert_allclose(
        bn.avg_mean, np.mean([x.mean(0) for x in xs], 0), rtol=1e-5
    )
    bn.start_finetuning()
    assert bn.N == 0


def test_lazy_size_with_axis():
    bn = L.BatchNormalization(axis=(0, 2))
    assert bn.avg_mean is None and bn.gamma.array is None
    x = _x((4, 3, 5))
    y = bn(x)
    assert bn.avg_mean.shape == (3,) and bn.gamma.shape == (3,)
    np.testing.assert_allclose(y.array.mean(axis=(0, 2)), 0, atol=1e-5)
    bn2 = L.BatchNormalization(axis=0)
    bn2(_x((4, 3, 5)))
    assert bn2.gamma.shape == (3, 5) and bn2.axis == (0,)
    with pytest.raises(RuntimeError, match="size or axis"):
        L.BatchNormalization()


def test_tuple_size_and_no_gamma_beta():
    bn = L.BatchNormalization((3, 2), use_gamma=False, use_beta=False)
    # Absent, not None, as in Chainer: `hasattr(bn, 'gamma')` is how Chainer
    # code asks whether the scale is learned.
    assert not hasattr(bn, "gamma") and not hasattr(bn, "beta")
    assert list(bn.params()) == []
    x = _x((4, 3, 2))
    np.testing.assert_allclose(
        bn(x).array, (x - x.mean(0)) / np.sqrt(x.var(0) + 2e-5), atol=1e-5
    )


def test_dtype_and_initializers():
    bn = L.BatchNormalization(2, dtype=np.float64, initial_gamma=2.0, initial_beta=0.5)
    assert bn.gamma.dtype == np.float64 and bn.avg_mean.dtype == np.float64
    np.testing.assert_array_equal(bn.gamma.array, 2)
    np.testing.assert_array_equal(bn.beta.array, 0.5)
    y = bn(_x((3, 2), dtype=np.float64))
    assert y.dtype == np.float64
    half = L.BatchNormalization(2, dtype=kusari.mixed16)
    assert half.gamma.dtype == np.float32
    assert half(_x((3, 2), dtype=np.float16)).dtype == np.float16


def test_gradient():
    bn = L.BatchNormalization(2, dtype=np.float64)
    rng = np.random.default_rng(3)
    bn.gamma.array[...] = rng.uniform(0.5, 1.5, 2)
    bn.beta.array[...] = rng.uniform(-1, 1, 2)
    x = rng.standard_normal((4, 2, 2))
    gy = rng.standard_normal((4, 2, 2))
    gradient_check.check_backward(
        bn, x, gy, params=[bn.gamma, bn.beta], atol=1e-5, rtol=1e-4
    )
    with kusari.using_config("train", False):
        gradient_check.check_backward(bn, x, gy, params=[bn.gamma, bn.beta])


def test_save_load(tmp_path):
    bn = L.BatchNormalization(3)
    bn(_x((4, 3)) + 3)
    bn(_x((4, 3), seed=1), finetune=True)
    path = tmp_path / "bn.npz"
    serializers.save_npz(str(path), bn)
    with np.load(str(path)) as f:
        assert sorted(f.files) == ["N", "avg_mean", "avg_var", "beta", "gamma"]
    other = L.BatchNormalization(3)
    serializers.load_npz(str(path), other)
    np.testing.assert_array_equal(other.avg_mean, bn.avg_mean)
    np.testing.assert_array_equal(other.avg_var, bn.avg_var)
    assert int(other.N) == 1
    x = _x((2, 3), seed=5)
    with kusari.using_config("train", False):
        np.testing.assert_array_equal(other(x).array, bn(x).array)


def test_lazy_link_loads_running_averages(tmp_path):
    # avg_mean / avg_var are persistent from the start, as in Chainer, so a
    # lazy link takes them from an npz before its first forward.
    bn = L.BatchNormalization(axis=(0, 2))
    bn(_x((4, 3, 5)) + 2)
    path = tmp_path / "bn.npz"
    serializers.save_npz(str(path), bn)
    lazy = L.BatchNormalization(axis=(0, 2))
    serializers.load_npz(str(path), lazy)
    np.testing.assert_array_equal(lazy.avg_mean, bn.avg_mean)
    np.testing.assert_array_equal(lazy.avg_var, bn.avg_var)
    x = _x((2, 3, 5), seed=4)
    with kusari.using_config("train", False):
        np.testing.assert_array_equal(lazy(x).array, bn(x).array)


def test_bad_kwargs_and_repr():
    bn = L.BatchNormalization(2)
    with pytest.raises(ValueError, match="using_config"):
        bn(_x((2, 2)), test=True)
    with pytest.raises(TypeError):
        bn(_x((2, 2)), foo=1)
    assert "BatchNormalization" in repr(bn) and "size=2" in repr(bn)


def test_small_cnn_trains():
    class Net(kusari.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.conv = L.Convolution2D(None, 4, 3, pad=1)
                self.bn = L.BatchNormalization(4)
                self.fc = L.Linear(None, 2)

        def forward(self, x):
            return self.fc(F.relu(self.bn(self.conv(x))))

    rng = np.random.default_rng(7)
    x = rng.standard_normal((8, 2, 5, 5)).astype(np.float32)
    t = (x.mean(axis=(1, 2, 3)) > 0).astype(np.int32)
    model = L.Classifier(Net())
    opt = kusari.optimizers.SGD(lr=0.1)
    opt.setup(model)
    losses = []
    for _ in range(5):
        loss = model(x, t)
        model.cleargrads()
        loss.backward()
        opt.update()
        losses.append(float(loss.array))
    assert losses[-1] < losses[0]
    assert model.predictor.conv.W.shape == (4, 2, 3, 3)
    assert not np.allclose(model.predictor.bn.avg_mean, 0)
