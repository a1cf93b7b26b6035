"""Tests of L.ResNet50Layers / 101 / 152 and resnet.prepare."""

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import serializers
from kusari.dataset import download
from kusari.links.model.vision import _common, resnet


@pytest.fixture(scope="module")
def resnet50():
    model = L.ResNet50Layers()
    # Running statistics like a trained network's, so test mode is sane.
    for _, link in model.namedlinks():
        if isinstance(link, L.BatchNormalization):
            link.avg_var[...] = 2.0
    return model


def test_structure_like_chainer(resnet50):
    assert resnet50.available_layers == [
        "conv1",
        "pool1",
        "res2",
        "res3",
        "res4",
        "res5",
        "pool5",
        "fc6",
        "prob",
    ]
    shapes = {n: p.shape for n, p in resnet50.namedparams()}
    assert shapes["/conv1/W"] == (64, 3, 7, 7) and shapes["/conv1/b"] == (64,)
    assert shapes["/res2/a/conv1/W"] == (64, 64, 1, 1)
    assert shapes["/res2/a/conv4/W"] == (256, 64, 1, 1)
    assert shapes["/res3/b3/conv2/W"] == (128, 128, 3, 3)
    assert "/res3/b4/conv1/W" not in shapes
    assert shapes["/res5/a/bn4/gamma"] == (2048,)
    assert shapes["/fc6/W"] == (1000, 2048)
    assert resnet50.res2.a.conv1.b is None
    assert resnet50.count_params() == 25557096
    assert resnet50.res2.a.conv1.stride == (1, 1)
    assert resnet50.res3.a.conv1.stride == (2, 2)
    assert resnet50.res3.a.conv2.stride == (1, 1)


def test_forward_small_input(resnet50):
    x = np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32)
    with kusari.using_config("train", False):
        out = resnet50(x, layers=["conv1", "pool1", "res5", "pool5", "prob"])
    assert out["conv1"].shape == (1, 64, 16, 16)
    assert out["pool1"].shape == (1, 64, 8, 8)
    assert out["res5"].shape == (1, 2048, 1, 1)
    assert out["pool5"].shape == (1, 2048)
    np.testing.assert_allclose(
        out["pool5"].array, out["res5"].array[:, :, 0, 0], rtol=1e-6
    )
    np.testing.assert_allclose(out["prob"].array.sum(), 1, rtol=1e-5)
    with kusari.using_config("train", False):
        expect = F.relu(resnet50.bn1(resnet50.conv1(x))).array
    np.testing.assert_allclose(out["conv1"].array, expect, rtol=1e-6)


def test_train_mode_updates_statistics(resnet50):
    before = resnet50.res2.b2.bn3.avg_mean.copy()
    x = np.random.default_rng(1).standard_normal((2, 3, 32, 32)).astype(np.float32)
    out = resnet50(x, layers=["res2"])
    assert out["res2"].shape == (2, 256, 8, 8)
    assert not np.allclose(resnet50.res2.b2.bn3.avg_mean, before)
    assert np.allclose(resnet50.res3.a.bn1.avg_mean, 0)  # not reached


def test_downsample_on_3x3_and_deeper_models(monkeypatch):
    monkeypatch.setattr(_common, "load_npz", lambda path, model: None)
    model = L.ResNet101Layers(pretrained_model="unused.npz", downsample_fb=True)
    np.testing.assert_array_equal(model.res4.b22.conv3.W.array, 0)  # zero init
    assert model.res3.a.conv1.stride == (1, 1) and model.res3.a.conv2.stride == (2, 2)
    assert model.count_params() == 44549224
    assert len(model.res4._forward) == 23
    deep = L.ResNet152Layers(pretrained_model="unused.npz")
    assert deep.count_params() == 60192872
    assert len(deep.res3._forward) == 8 and len(deep.res4._forward) == 36
    with pytest.raises(ValueError, match="50, 101, or 152"):
        resnet.ResNetLayers(None, 34)


def test_npz_round_trip_with_chainer_keys(tmp_path, resnet50):
    path = tmp_path / "resnet50.npz"
    serializers.save_npz(str(path), resnet50, compression=False)
    with np.load(str(path)) as f:
        keys = set(f.files)
    assert {
        "conv1/W",
        "conv1/b",
        "bn1/avg_mean",
        "bn1/N",
        "res2/a/bn4/avg_var",
        "res4/b5/conv3/W",
        "fc6/b",
    } <= keys
    # 162 parameters + avg_mean, avg_var and N of the 53 BatchNormalizations
    assert len(keys) == 321
    loaded = L.ResNet50Layers(pretrained_model=str(path))
    np.testing.assert_array_equal(
        loaded.res4.b5.conv3.W.array, resnet50.res4.b5.conv3.W.array
    )
    np.testing.assert_array_equal(
        loaded.res5.a.bn4.avg_var, resnet50.res5.a.bn4.avg_var
    )


def test_auto_needs_a_cached_conversion(tmp_path):
    old = download.get_dataset_root()
    download.set_dataset_root(str(tmp_path))
    try:
        with pytest.raises(OSError, match="does not download"):
            L.ResNet50Layers(pretrained_model="auto")
    finally:
        download.set_dataset_root(old)


def test_prepare_and_extract(resnet50):
    img = np.full((6, 5, 3), 100, np.uint8)
    out = resnet.prepare(img, size=None)
    assert out.shape == (3, 6, 5) and out.dtype == np.float32
    np.testing.assert_allclose(
        out[:, 0, 0], [100 - 103.063, 100 - 115.903, 100 - 123.152], atol=1e-4
    )
    with kusari.using_config("train", False):
        feats = resnet50.extract([img], size=(32, 32))
    assert feats["pool5"].shape == (1, 2048)


@pytest.mark.slow
def test_predict_oversample(resnet50):
    y = resnet50.predict([np.zeros((64, 64, 3), np.uint8)], oversample=True)
    assert y.shape == (1, 1000)
    np.testing.assert_allclose(y.array.sum(), 1, rtol=1e-5)


def test_building_block_chainer_arguments():
    # Chainer's names: n_layers (n_layer= deprecated) and downsample_fb.
    with pytest.warns(DeprecationWarning, match="n_layers"):
        block = resnet.BuildingBlock(
            n_layer=2, in_channels=3, mid_channels=2, out_channels=4, stride=2
        )
    assert block._forward == ["a", "b1"]
    assert block.a.conv1.stride == (2, 2) and block.a.conv2.stride == (1, 1)
    fb = resnet.BuildingBlock(1, 3, 2, 4, 2, downsample_fb=True)
    assert fb.a.conv1.stride == (1, 1) and fb.a.conv2.stride == (2, 2)
    with pytest.raises(TypeError, match="unexpected"):
        resnet.BuildingBlock(1, 3, 2, 4, 2, downsample_1x1=True)
