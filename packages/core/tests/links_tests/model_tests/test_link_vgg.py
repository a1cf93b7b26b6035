"""Tests of L.VGG16Layers / L.VGG19Layers and vgg.prepare."""

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari.links.model.vision import _common, vgg

VGG16_LAYERS = [
    "conv1_1",
    "conv1_2",
    "pool1",
    "conv2_1",
    "conv2_2",
    "pool2",
    "conv3_1",
    "conv3_2",
    "conv3_3",
    "pool3",
    "conv4_1",
    "conv4_2",
    "conv4_3",
    "pool4",
    "conv5_1",
    "conv5_2",
    "conv5_3",
    "pool5",
    "fc6",
    "fc7",
    "fc8",
    "prob",
]


def _fill_convs(model, seed=0):
    rng = np.random.default_rng(seed)
    for name, param in model.namedparams():
        if name.startswith("/conv") and name.endswith("/W"):
            fan_in = np.prod(param.shape[1:])
            param.array[...] = rng.standard_normal(param.shape, np.float32) * np.sqrt(
                2.0 / fan_in
            )


def _lazy_linear(in_size, out_size, **kwargs):
    link = L.Linear(None, out_size, **kwargs)
    link.expected_in_size = in_size
    return link


@pytest.fixture(scope="module")
def vgg16():
    # A pretrained_model path zero-initializes (fast); the load is skipped and
    # the 120M fully connected weights are left lazy to save time and memory.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_common, "load_npz", lambda path, model: None)
        mp.setattr(vgg, "Linear", _lazy_linear)
        model = L.VGG16Layers(pretrained_model="unused.npz")
    _fill_convs(model)
    return model


def test_structure_like_chainer(vgg16):
    assert vgg16.available_layers == VGG16_LAYERS
    shapes = {n: p.shape for n, p in vgg16.namedparams(include_uninit=False)}
    assert len(shapes) == 29  # the lazy fc6..fc8 weights aside
    assert shapes["/conv1_1/W"] == (64, 3, 3, 3)
    assert shapes["/conv3_3/W"] == (256, 256, 3, 3)
    assert shapes["/conv5_3/b"] == (512,)
    assert shapes["/fc6/b"] == (4096,)
    assert shapes["/fc8/b"] == (1000,)
    fcs = [
        (vgg16[n].expected_in_size, vgg16[n].out_size) for n in ("fc6", "fc7", "fc8")
    ]
    assert fcs == [(25088, 4096), (4096, 4096), (4096, 1000)]


def test_forward_conv_layers(vgg16):
    x = np.random.default_rng(1).standard_normal((1, 3, 32, 32)).astype(np.float32)
    out = vgg16(x, layers=["conv1_1", "pool1", "conv5_3", "pool5"])
    assert sorted(out) == ["conv1_1", "conv5_3", "pool1", "pool5"]
    assert out["pool1"].shape == (1, 64, 16, 16)
    assert out["conv5_3"].shape == (1, 512, 2, 2)
    assert out["pool5"].shape == (1, 512, 1, 1)
    expect = F.relu(F.convolution_2d(x, vgg16.conv1_1.W, vgg16.conv1_1.b, 1, 1))
    np.testing.assert_allclose(out["conv1_1"].array, expect.array, rtol=1e-5)
    conv1_2 = vgg16(x, layers=["conv1_2"])["conv1_2"]
    np.testing.assert_allclose(
        out["pool1"].array, F.max_pooling_2d(conv1_2, 2).array, rtol=1e-6
    )


def test_extract_with_prepare(vgg16):
    images = [np.full((40, 30, 3), 128, np.uint8), np.zeros((3, 20, 20), np.uint8)]
    out = vgg16.extract(images, layers=["pool2"], size=(32, 32))
    assert out["pool2"].shape == (2, 128, 8, 8)


def test_errors(vgg16):
    x = np.zeros((1, 3, 32, 32), np.float32)
    with pytest.raises(ValueError, match="unknown layers"):
        vgg16(x, layers=["conv9"])
    with pytest.raises(TypeError):
        vgg16(x, layers="conv1_1")
    with pytest.raises(ValueError, match="using_config"):
        vgg16(x, layers=["conv1_1"], test=True)
    with pytest.raises(ValueError, match="16 or 19"):
        vgg.VGGLayers(n_layers=18)


def test_prepare():
    img = np.zeros((5, 4, 3), np.uint8)
    img[..., 0] = 200  # red
    out = vgg.prepare(img, size=None)
    assert out.shape == (3, 5, 4) and out.dtype == np.float32
    np.testing.assert_allclose(
        out[:, 0, 0], [-103.939, -116.779, 200 - 123.68], atol=1e-4
    )
    assert vgg.prepare(img, size=(8, 6)).shape == (3, 6, 8)
    gray = vgg.prepare(np.full((1, 4, 4), 10, np.uint8), size=None)
    np.testing.assert_allclose(
        gray[:, 0, 0], [10 - 103.939, 10 - 116.779, 10 - 123.68], atol=1e-4
    )
    with kusari.using_config("dtype", np.float64):
        assert vgg.prepare(img, size=None).dtype == np.float64


@pytest.mark.slow
def test_full_forward_and_predict_vgg16():
    model = L.VGG16Layers()
    assert model.count_params() == 138357544
    assert model.fc6.W.shape == (4096, 25088)
    x = np.random.default_rng(2).standard_normal((1, 3, 224, 224)).astype(np.float32)
    with kusari.using_config("train", False):
        out = model(x)
    assert out["prob"].shape == (1, 1000)
    np.testing.assert_allclose(out["prob"].array.sum(), 1, rtol=1e-5)
    y = model.predict([np.zeros((64, 64, 3), np.uint8)], oversample=False)
    assert y.shape == (1, 1000)


@pytest.mark.slow
def test_vgg19_structure():
    model = L.VGG19Layers()
    assert model.count_params() == 143667240
    assert "conv5_4" in model.available_layers
