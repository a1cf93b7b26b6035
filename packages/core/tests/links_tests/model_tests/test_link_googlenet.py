"""Tests of L.GoogLeNet and googlenet.prepare."""

import numpy as np
import pytest

import kusari
import kusari.links as L
from kusari.links.model.vision import _common, googlenet


@pytest.fixture(scope="module")
def model():
    return L.GoogLeNet()


def test_structure_like_chainer(model):
    assert model.available_layers == [
        "conv1",
        "pool1",
        "conv2_reduce",
        "conv2",
        "pool2",
        "inception_3a",
        "inception_3b",
        "pool3",
        "inception_4a",
        "inception_4b",
        "inception_4c",
        "inception_4d",
        "inception_4e",
        "pool4",
        "inception_5a",
        "inception_5b",
        "pool5",
        "loss3_fc",
        "prob",
        "loss1_fc2",
        "loss2_fc2",
    ]
    shapes = {n: p.shape for n, p in model.namedparams()}
    assert shapes["/conv1/W"] == (64, 3, 7, 7)
    assert shapes["/conv2/W"] == (192, 64, 3, 3)
    assert shapes["/inc3a/conv5/W"] == (32, 16, 5, 5)
    assert shapes["/inc5b/projp/W"] == (128, 832, 1, 1)
    assert shapes["/loss1_fc1/W"] == (1024, 2048)
    assert shapes["/loss2_conv/W"] == (128, 528, 1, 1)
    assert shapes["/loss3_fc/W"] == (1000, 1024)
    assert model.count_params() == 13378280


def test_forward_small_input(model):
    x = np.random.default_rng(0).standard_normal((1, 3, 64, 64)).astype(np.float32)
    out = model(x, layers=["pool1", "conv2", "inception_3b", "inception_4e"])
    assert out["pool1"].shape == (1, 64, 16, 16)
    assert out["conv2"].shape == (1, 192, 16, 16)
    assert out["inception_3b"].shape == (1, 480, 8, 8)
    assert out["inception_4e"].shape == (1, 832, 4, 4)


def test_auxiliary_branch_restarts_from_inception_4a(model, monkeypatch):
    seen = []
    # pool5 as a global average so that a 64x64 input gets through loss3_fc
    monkeypatch.setattr(
        googlenet,
        "_average_pooling_2d_k7",
        lambda h: h.array.mean(axis=(2, 3), keepdims=True),
    )
    monkeypatch.setattr(
        googlenet, "_average_pooling_2d_k5", lambda h: seen.append(h.shape) or h
    )
    x = np.zeros((1, 3, 64, 64), np.float32)
    out = model(x, layers=["inception_4a", "loss1_fc2"])
    assert seen == [(1, 512, 4, 4)]  # inception_4a's output, not prob's
    assert out["loss1_fc2"].shape == (1, 1000)
    assert sorted(out) == ["inception_4a", "loss1_fc2"]


def test_zero_init_with_pretrained_and_errors(monkeypatch):
    monkeypatch.setattr(_common, "load_npz", lambda path, m: None)
    m = L.GoogLeNet(pretrained_model="unused.npz")
    np.testing.assert_array_equal(m.conv1.W.array, 0)
    assert not np.all(m.inc3a.conv1.W.array == 0)  # Inception keeps its defaults
    with pytest.raises(ValueError, match="unknown"):
        m(np.zeros((1, 3, 8, 8), np.float32), layers=["fc6"])
    with pytest.raises(ValueError, match="using_config"):
        m.extract([], train=False)


def test_prepare():
    img = np.zeros((4, 4, 3), np.uint8)
    img[..., 2] = 50  # blue
    out = googlenet.prepare(img, size=(8, 8))
    assert out.shape == (3, 8, 8) and out.dtype == np.float32
    np.testing.assert_allclose(out[:, 0, 0], [50 - 104, -117, -123])


@pytest.mark.slow
def test_full_forward_and_auxiliary_outputs(model):
    x = np.random.default_rng(1).standard_normal((1, 3, 224, 224)).astype(np.float32)
    with kusari.using_config("train", False):
        out = model(x, layers=["prob", "loss1_fc2", "loss2_fc2", "pool5"])
    assert out["pool5"].shape == (1, 1024, 1, 1)
    assert out["prob"].shape == (1, 1000)
    assert out["loss1_fc2"].shape == (1, 1000)
    assert out["loss2_fc2"].shape == (1, 1000)
    y = model.predict([np.zeros((32, 32, 3), np.uint8)], oversample=False)
    assert y.shape == (1, 1000)


def test_convert_caffemodel_is_not_available():
    with pytest.raises(NotImplementedError, match="CaffeFunction"):
        L.GoogLeNet.convert_caffemodel_to_npz("a.caffemodel", "b.npz")
