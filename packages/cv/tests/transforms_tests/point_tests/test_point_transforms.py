import numpy as np
import pytest

from kusari_cv import transforms as T

POINT = np.array([[[1, 2], [3, 4]], [[0, 0], [5, 9]]], np.float32)


def test_flip_point():
    out = T.flip_point(POINT, (6, 10), y_flip=True)
    np.testing.assert_array_equal(out[..., 0], 6 - POINT[..., 0])
    np.testing.assert_array_equal(out[..., 1], POINT[..., 1])
    out = T.flip_point(POINT, (6, 10), x_flip=True)
    np.testing.assert_array_equal(out[..., 1], 10 - POINT[..., 1])
    np.testing.assert_array_equal(POINT[0, 0], [1, 2])  # input untouched


def test_resize_and_translate_point():
    np.testing.assert_allclose(
        T.resize_point(POINT, (6, 10), (3, 30)), POINT * [0.5, 3]
    )
    np.testing.assert_allclose(T.translate_point(POINT, 2, -1), POINT + [2, -1])


def test_lists_of_arrays():
    pts = [POINT[0], POINT[1][:1]]
    out = T.translate_point(pts, 1, 1)
    assert isinstance(out, list) and out[1].shape == (1, 2)
    np.testing.assert_array_equal(out[0], POINT[0] + 1)
    out = T.flip_point(pts, (6, 10), x_flip=True)
    np.testing.assert_array_equal(out[1], [[0, 10]])


def test_point_shape_errors():
    with pytest.raises(
        ValueError, match=r"flip_point: point must have shape \(R, K, 2\)"
    ):
        T.flip_point(np.zeros((2, 3)), (4, 4))
    with pytest.raises(
        ValueError, match=r"resize_point: each array of point must have shape"
    ):
        T.resize_point([np.zeros((2, 3))], (4, 4), (2, 2))
