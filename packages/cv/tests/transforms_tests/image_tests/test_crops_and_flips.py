import random

import numpy as np
import pytest

from kusari_cv import transforms as T


def _img(c=3, h=8, w=10):
    return np.arange(c * h * w, dtype=np.float32).reshape(c, h, w)


def test_center_crop():
    img = _img()
    out, param = T.center_crop(img, (4, 5), return_param=True)
    np.testing.assert_array_equal(out, img[:, 2:6, 2:7])
    assert param == {"y_slice": slice(2, 6), "x_slice": slice(2, 7)}
    assert np.shares_memory(out, img)
    assert not np.shares_memory(T.center_crop(img, (4, 5), copy=True), img)
    with pytest.raises(ValueError, match=r"center_crop: size \(9, 5\) is larger"):
        T.center_crop(img, (9, 5))
    with pytest.raises(
        ValueError, match=r"center_crop: img must have shape \(C, H, W\)"
    ):
        T.center_crop(img[0], (2, 2))


def test_flip():
    img = _img()
    np.testing.assert_array_equal(T.flip(img, y_flip=True), img[:, ::-1])
    np.testing.assert_array_equal(T.flip(img, x_flip=True), img[:, :, ::-1])
    np.testing.assert_array_equal(T.flip(img, True, True), img[:, ::-1, ::-1])
    assert T.flip(img) is img


@pytest.mark.parametrize("seed", range(5))
def test_random_crop(seed):
    random.seed(seed)
    img = _img()
    out, param = T.random_crop(img, (3, 4), return_param=True)
    assert out.shape == (3, 3, 4)
    np.testing.assert_array_equal(out, img[:, param["y_slice"], param["x_slice"]])
    assert 0 <= param["y_slice"].start <= 5 and 0 <= param["x_slice"].start <= 6
    np.testing.assert_array_equal(T.random_crop(img, (8, 10)), img)
    with pytest.raises(ValueError, match="random_crop: size"):
        T.random_crop(img, (3, 11))


def test_random_crop_covers_all_offsets():
    random.seed(0)
    img = _img(1, 4, 4)
    starts = {
        T.random_crop(img, (3, 3), return_param=True)[1]["y_slice"].start
        for _ in range(50)
    }
    assert starts == {0, 1}


@pytest.mark.parametrize("seed", range(4))
def test_random_flip(seed):
    random.seed(seed)
    img = _img()
    out, param = T.random_flip(img, y_random=True, x_random=True, return_param=True)
    np.testing.assert_array_equal(out, T.flip(img, param["y_flip"], param["x_flip"]))
    out, param = T.random_flip(img, return_param=True)
    assert param == {"y_flip": False, "x_flip": False}


def test_random_flip_happens():
    random.seed(1)
    flips = {
        T.random_flip(_img(), x_random=True, return_param=True)[1]["x_flip"]
        for _ in range(30)
    }
    assert flips == {True, False}


def test_random_rotate():
    np.random.seed(0)
    img = _img()
    seen = set()
    for _ in range(20):
        out, param = T.random_rotate(img, return_param=True)
        np.testing.assert_array_equal(out, np.rot90(img, param["k"], axes=(1, 2)))
        seen.add(param["k"])
    assert seen == {0, 1, 2, 3}


@pytest.mark.parametrize("seed", range(5))
def test_random_expand(seed):
    random.seed(seed)
    img = _img() + 1
    out, param = T.random_expand(img, max_ratio=3, fill=(-1, -2, -3), return_param=True)
    _, h, w = img.shape
    assert 1 <= param["ratio"] <= 3
    assert out.shape == (3, int(h * param["ratio"]), int(w * param["ratio"]))
    y, x = param["y_offset"], param["x_offset"]
    np.testing.assert_array_equal(out[:, y : y + h, x : x + w], img)
    mask = np.ones(out.shape[1:], bool)
    mask[y : y + h, x : x + w] = False
    np.testing.assert_array_equal(
        out[:, mask], np.array([[-1], [-2], [-3]]).repeat(mask.sum(), 1)
    )
    same, param = T.random_expand(img, max_ratio=1, return_param=True)
    assert same is img and param == {"ratio": 1, "y_offset": 0, "x_offset": 0}


@pytest.mark.parametrize("seed", range(10))
def test_random_sized_crop(seed):
    random.seed(seed)
    img = np.zeros((3, 100, 120), np.float32)
    img[:] = np.arange(120)
    out, param = T.random_sized_crop(img, return_param=True)
    np.testing.assert_array_equal(out, img[:, param["y_slice"], param["x_slice"]])
    h, w = out.shape[1:]
    s, a = param["scale_ratio"], param["aspect_ratio"]
    assert h == int(np.floor(np.sqrt(s * 100 * 120 * a)))
    assert w == int(np.floor(np.sqrt(s * 100 * 120 / a)))
    assert 3 / 4 <= a <= 4 / 3 or 3 / 4 <= 1 / a <= 4 / 3
    assert h <= 100 and w <= 120


def test_ten_crop():
    img = _img(2, 6, 7)
    crops = T.ten_crop(img, (3, 4))
    assert crops.shape == (10, 2, 3, 4)
    np.testing.assert_array_equal(crops[0], img[:, 1:4, 1:5])
    np.testing.assert_array_equal(crops[1], img[:, :3, :4])
    np.testing.assert_array_equal(crops[2], img[:, 3:, :4])
    np.testing.assert_array_equal(crops[3], img[:, :3, 3:])
    np.testing.assert_array_equal(crops[4], img[:, 3:, 3:])
    np.testing.assert_array_equal(crops[5:], crops[:5, :, :, ::-1])
    with pytest.raises(ValueError, match="ten_crop: size"):
        T.ten_crop(img, (7, 4))


def test_pca_lighting():
    img = np.full((3, 4, 5), 100, np.float32)
    assert T.pca_lighting(img, 0) is img
    np.random.seed(3)
    out = T.pca_lighting(img, 25.5)
    np.random.seed(3)
    alpha = np.random.normal(0, 25.5, size=3)
    vec = np.array(
        [
            [0.4009, -0.814, 0.4203],
            [0.7192, -0.0045, -0.6948],
            [-0.5675, -0.5808, -0.5836],
        ]
    )
    shift = vec @ (np.array([0.2175, 0.0188, 0.0045]) * alpha)
    assert out.dtype == np.float32
    np.testing.assert_allclose(
        out, np.broadcast_to(100 + shift.reshape(3, 1, 1), out.shape), rtol=1e-5
    )
    # Custom eigen system: one direction only.
    np.random.seed(4)
    out = T.pca_lighting(
        img, 1.0, eigen_value=np.array([1.0, 0, 0]), eigen_vector=np.eye(3)
    )
    assert (
        np.ptp(out[1]) == 0
        and np.allclose(out[1:], 100)
        and not np.allclose(out[0], 100)
    )
    with pytest.raises(ValueError, match="pca_lighting: img must have 3 channels"):
        T.pca_lighting(np.zeros((1, 2, 2)), 1.0)
