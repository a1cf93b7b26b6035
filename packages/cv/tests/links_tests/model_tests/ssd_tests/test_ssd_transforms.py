import random

import numpy as np
import pytest

from kusari_cv.links.model.ssd import (
    random_crop_with_bbox_constraints,
    random_distort,
    resize_with_random_interpolation,
)
from kusari_cv.links.model.ssd import transforms as ssd_transforms
from kusari_cv.utils import bbox_iou


def test_random_crop_meets_its_constraint():
    random.seed(0)
    img = np.zeros((3, 120, 160), np.float32)
    bbox = np.array([[10, 20, 100, 130]], np.float32)
    seen = set()
    for _ in range(60):
        out, param = random_crop_with_bbox_constraints(img, bbox, return_param=True)
        ys, xs = param["y_slice"], param["x_slice"]
        assert out.shape == (3, ys.stop - ys.start, xs.stop - xs.start)
        assert 0 <= ys.start < ys.stop <= 120 and 0 <= xs.start < xs.stop <= 160
        if param["constraint"] is None:
            assert out.shape == img.shape
            continue
        lo, hi = param["constraint"]
        window = np.array([[ys.start, xs.start, ys.stop, xs.stop]], np.float32)
        iou = bbox_iou(bbox, window)
        assert (lo or 0) <= iou.min() + 1e-6 and iou.max() <= (hi or 1) + 1e-6
        seen.add(param["constraint"])
    assert len(seen) >= 3


def test_random_crop_without_boxes_keeps_image():
    img = np.zeros((3, 10, 12), np.float32)
    out, param = random_crop_with_bbox_constraints(
        img, np.zeros((0, 4), np.float32), return_param=True
    )
    assert out.shape == img.shape and param["constraint"] is None


def test_hsv_round_trip():
    rgb = np.random.default_rng(0).uniform(0, 255, (3, 5, 7))
    h, s, v = ssd_transforms._rgb_to_hsv(rgb)
    np.testing.assert_allclose(ssd_transforms._hsv_to_rgb(h, s, v), rgb, atol=1e-9)
    # pure red, green and blue have hues 0, 120 and 240 degrees
    prim = np.eye(3).reshape(3, 1, 3) * 255
    h, s, v = ssd_transforms._rgb_to_hsv(prim)
    np.testing.assert_allclose(h.ravel(), [0, 120, 240])


def test_random_distort_range_and_variety():
    random.seed(1)
    img = np.random.default_rng(1).uniform(0, 255, (3, 8, 9)).astype(np.float32)
    outs = [random_distort(img) for _ in range(10)]
    for out in outs:
        assert out.shape == img.shape and out.dtype == np.float32
        assert out.min() >= 0 and out.max() <= 255
    assert any(not np.allclose(out, img, atol=1e-3) for out in outs)
    with pytest.raises(ValueError, match="random_distort"):
        random_distort(img[:1])


def test_random_distort_brightness_only():
    random.seed(2)
    img = np.full((3, 2, 2), 100, np.float32)
    out = random_distort(
        img,
        brightness_delta=10,
        contrast_low=1,
        contrast_high=1,
        saturation_low=1,
        saturation_high=1,
        hue_delta=0,
    )
    # gray stays gray; only a uniform shift of at most 10 is possible
    assert np.ptp(out) < 1e-3 and abs(float(out[0, 0, 0]) - 100) <= 10 + 1e-3


def test_resize_with_random_interpolation():
    random.seed(3)
    img = np.random.default_rng(2).uniform(0, 255, (3, 10, 12)).astype(np.float32)
    out, param = resize_with_random_interpolation(img, (5, 6), return_param=True)
    assert out.shape == (3, 5, 6) and "interpolation" in param
