import numpy as np
import pytest

from kusari_cv.utils import mask_iou, mask_to_bbox, scale_mask


def test_mask_iou_against_naive():
    rng = np.random.default_rng(0)
    a = rng.uniform(size=(4, 6, 7)) < 0.5
    b = rng.uniform(size=(3, 6, 7)) < 0.3
    iou = mask_iou(a, b)
    assert iou.dtype == np.float32
    for i in range(4):
        for j in range(3):
            expected = (a[i] & b[j]).sum() / (a[i] | b[j]).sum()
            assert iou[i, j] == pytest.approx(expected)


def test_mask_iou_errors():
    with pytest.raises(
        ValueError, match=r"mask_iou: mask_a must have shape \(R, H, W\)"
    ):
        mask_iou(np.zeros((3, 3), bool), np.zeros((1, 3, 3), bool))
    with pytest.raises(ValueError, match="same"):
        mask_iou(np.zeros((1, 3, 3), bool), np.zeros((1, 3, 4), bool))


def test_mask_to_bbox():
    mask = np.zeros((3, 8, 9), bool)
    mask[0, 2:5, 3:7] = True
    mask[1, 7, 0] = True
    bbox = mask_to_bbox(mask)
    assert bbox.dtype == np.float32
    np.testing.assert_array_equal(bbox, [[2, 3, 5, 7], [7, 0, 8, 1], [0, 0, 0, 0]])
    assert mask_to_bbox(np.zeros((0, 4, 4), bool)).shape == (0, 4)


def test_scale_mask_matches_full_resize():
    mask = np.zeros((2, 20, 30), bool)
    mask[0, 4:10, 6:16] = True
    mask[1, 12:20, 20:30] = True
    out = scale_mask(mask, mask_to_bbox(mask), 40)
    assert out.shape == (2, 40, 60) and out.dtype == bool
    # An exact 2x scale of a rectangle is the 2x rectangle.
    np.testing.assert_array_equal(out[0], np.kron(mask[0], np.ones((2, 2), bool)))
    np.testing.assert_array_equal(out[1], np.kron(mask[1], np.ones((2, 2), bool)))
