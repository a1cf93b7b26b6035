import math

import numpy as np
import pytest

from kusari.testing import check_op
from kusari.utils import type_check
from kusari_cv.functions import (
    ps_roi_average_align_2d,
    ps_roi_average_pooling_2d,
    ps_roi_max_align_2d,
    ps_roi_max_pooling_2d,
)

G = 2  # group size
OUT = (2, 3)  # (out_h, out_w)
SCALE = 0.5
ROIS = np.array(
    [
        [1.0, 2.5, 9.0, 11.0],
        [0.0, 0.0, 7.4, 5.3],
        [3.2, 4.1, 5.0, 5.1],
        [-3.0, 6.0, 14.0, 20.0],
    ],
    np.float64,
)
ROI_INDICES = np.array([0, 1, 1, 0], np.int32)


def _channel(c, ph, pw, oh, ow):
    gh = min(max(int(math.floor(ph * G / oh)), 0), G - 1)
    gw = min(max(int(math.floor(pw * G / ow)), 0), G - 1)
    return (c * G + gh) * G + gw


def _ref_pooling(x, rois, idx, reduce):
    R, (oh, ow) = len(rois), OUT
    _, C, H, W = x.shape
    out = np.zeros((R, C // (G * G), oh, ow))
    for r in range(R):
        y0, x0, y1, x1 = rois[r] * SCALE
        bh = max(y1 - y0, 0.1) / oh
        bw = max(x1 - x0, 0.1) / ow
        for c in range(out.shape[1]):
            for ph in range(oh):
                hs = min(max(int(math.floor(ph * bh + y0)), 0), H)
                he = min(max(int(math.ceil((ph + 1) * bh + y0)), 0), H)
                for pw in range(ow):
                    ws = min(max(int(math.floor(pw * bw + x0)), 0), W)
                    we = min(max(int(math.ceil((pw + 1) * bw + x0)), 0), W)
                    if he <= hs or we <= ws:
                        continue
                    patch = x[idx[r], _channel(c, ph, pw, oh, ow), hs:he, ws:we]
                    out[r, c, ph, pw] = reduce(patch)
    return out


def _bilinear(img, y, x):
    H, W = img.shape
    if y < -1 or y > H or x < -1 or x > W:
        return None
    y, x = max(y, 0.0), max(x, 0.0)
    yl, xl = int(y), int(x)
    if yl >= H - 1:
        yl = yh = H - 1
        y = float(yl)
    else:
        yh = yl + 1
    if xl >= W - 1:
        xl = xh = W - 1
        x = float(xl)
    else:
        xh = xl + 1
    ly, lx = y - yl, x - xl
    return (
        (1 - ly) * (1 - lx) * img[yl, xl]
        + (1 - ly) * lx * img[yl, xh]
        + ly * (1 - lx) * img[yh, xl]
        + ly * lx * img[yh, xh]
    )


def _ref_align(x, rois, idx, mode, ratio=None):
    R, (oh, ow) = len(rois), OUT
    out = np.zeros((R, x.shape[1] // (G * G), oh, ow))
    for r in range(R):
        y0, x0, y1, x1 = rois[r] * SCALE
        rh, rw = max(y1 - y0, 1.0), max(x1 - x0, 1.0)
        bh, bw = rh / oh, rw / ow
        gh = ratio or int(math.ceil(rh / oh))
        gw = ratio or int(math.ceil(rw / ow))
        for c in range(out.shape[1]):
            for ph in range(oh):
                for pw in range(ow):
                    img = x[idx[r], _channel(c, ph, pw, oh, ow)]
                    vals = []
                    for iy in range(gh):
                        for ix in range(gw):
                            v = _bilinear(
                                img,
                                y0 + ph * bh + (iy + 0.5) * bh / gh,
                                x0 + pw * bw + (ix + 0.5) * bw / gw,
                            )
                            vals.append(v)
                    valid = [v for v in vals if v is not None]
                    if mode == "average":
                        out[r, c, ph, pw] = sum(valid) / (gh * gw)
                    elif valid:
                        out[r, c, ph, pw] = max(valid)
    return out


CASES = {
    "average_pooling": (
        ps_roi_average_pooling_2d,
        lambda x, r, i: _ref_pooling(x, r, i, np.mean),
        {},
    ),
    "max_pooling": (
        ps_roi_max_pooling_2d,
        lambda x, r, i: _ref_pooling(x, r, i, np.max),
        {},
    ),
    "average_align": (
        ps_roi_average_align_2d,
        lambda x, r, i: _ref_align(x, r, i, "average"),
        {},
    ),
    "max_align": (ps_roi_max_align_2d, lambda x, r, i: _ref_align(x, r, i, "max"), {}),
    "average_align_ratio": (
        ps_roi_average_align_2d,
        lambda x, r, i: _ref_align(x, r, i, "average", 2),
        {"sampling_ratio": 2},
    ),
    "max_align_ratio": (
        ps_roi_max_align_2d,
        lambda x, r, i: _ref_align(x, r, i, "max", 2),
        {"sampling_ratio": (2, 2)},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_against_reference_with_gradients(case, dtype):
    fn, ref, kwargs = CASES[case]

    def op(x, rois, idx):
        return fn(x, rois, idx, OUT, SCALE, G, **kwargs)

    def reference(x, rois, idx):
        return ref(x, rois, idx)

    is_max = case.startswith("max")
    check_op(
        op,
        reference,
        [
            (2, 3 * G * G, 7, 9),
            lambda rng, dt: ROIS.astype(dt),
            lambda rng, dt: ROI_INDICES,
        ],
        dtype=dtype,
        no_grads=[False, True, True],
        dodge_nondifferentiable=is_max,
        noncontiguous=False,
    )


def test_outsize_with_channels_and_errors():
    x = np.zeros((1, 8, 4, 4), np.float32)
    rois = np.array([[0, 0, 4, 4]], np.float32)
    idx = np.zeros(1, np.int32)
    y = ps_roi_average_pooling_2d(x, rois, idx, (2, 3, 3), 1.0, 2)
    assert y.shape == (1, 2, 3, 3)
    with pytest.raises(ValueError, match="ps_roi_max_pooling_2d: the channels of x"):
        ps_roi_max_pooling_2d(x, rois, idx, (3, 2, 2), 1.0, 2)
    with pytest.raises(ValueError, match="multiple of 9"):
        ps_roi_average_align_2d(x, rois, idx, 2, 1.0, 3)
    with pytest.raises(TypeError, match="outsize"):
        ps_roi_max_align_2d(x, rois, idx, (2, 0), 1.0, 2)
    with pytest.raises(TypeError, match="sampling_ratio"):
        ps_roi_max_align_2d(x, rois, idx, 2, 1.0, 2, sampling_ratio=0)
    with pytest.raises(type_check.InvalidType):
        ps_roi_average_pooling_2d(x, rois[:, :3], idx, 2, 1.0, 2)


def test_max_pooling_gradient_goes_to_the_maximum():
    import kusari

    x = kusari.Variable(np.zeros((1, 1, 3, 3), np.float32))
    x.array[0, 0, 1, 2] = 5
    y = ps_roi_max_pooling_2d(
        x, np.array([[0, 0, 3, 3]], np.float32), np.zeros(1, np.int32), 1, 1.0, 1
    )
    y.grad = np.ones_like(y.array)
    y.backward()
    expect = np.zeros((1, 1, 3, 3), np.float32)
    expect[0, 0, 1, 2] = 1
    np.testing.assert_array_equal(x.grad, expect)


@pytest.mark.parametrize("case", sorted(CASES))
def test_zero_rois(case):
    import kusari

    fn, _, kwargs = CASES[case]
    x = kusari.Variable(np.ones((1, 3 * G * G, 5, 5), np.float32))
    y = fn(
        x, np.zeros((0, 4), np.float32), np.zeros(0, np.int32), OUT, SCALE, G, **kwargs
    )
    assert y.shape == (0, 3) + OUT
    y.grad = np.zeros(y.shape, np.float32)
    y.backward()
    assert x.grad.shape == x.shape and not x.grad.any()
