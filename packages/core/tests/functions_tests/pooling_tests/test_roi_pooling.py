"""Tests of roi_pooling_2d, roi_max/average_pooling_2d and roi_max/average_align_2d
against loop references written from the Fast R-CNN / RoIAlign definitions."""

from __future__ import annotations

import math

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

ROIS = np.array(
    [
        [0.0, 1.0, 5.0, 6.0],
        [1.4, 0.6, 3.3, 4.6],
        [2.0, 2.0, 2.0, 2.0],
        [-1.0, 3.0, 8.0, 9.0],
    ]
)
ROI_IDX = np.array([1, 0, 1, 0], np.int32)


def _bins(start, end, n_out, limit, plus_one):
    length = max(end - start + (1 if plus_one else 0), 1)
    size = length / n_out
    out = []
    for p in range(n_out):
        lo = min(max(int(math.floor(p * size)) + start, 0), limit)
        hi = min(max(int(math.ceil((p + 1) * size)) + start, 0), limit)
        out.append((lo, hi))
    return out


def roi_pool_ref(x, rois, idx, outsize, scale, mode, plus_one=False):
    oh, ow = outsize
    y = np.zeros((len(rois), x.shape[1], oh, ow))
    for r, (y0, x0, y1, x1) in enumerate(rois):
        y0, x0, y1, x1 = (int(round(v * scale)) for v in (y0, x0, y1, x1))
        for i, (hs, he) in enumerate(_bins(y0, y1, oh, x.shape[2], plus_one)):
            for j, (ws, we) in enumerate(_bins(x0, x1, ow, x.shape[3], plus_one)):
                if he <= hs or we <= ws:
                    continue
                patch = x[idx[r], :, hs:he, ws:we].reshape(x.shape[1], -1)
                y[r, :, i, j] = patch.max(1) if mode == "max" else patch.mean(1)
    return y


def _bilinear(img, yy, xx):
    H, W = img.shape[-2:]
    if yy < -1 or yy > H or xx < -1 or xx > W:
        return None
    yy, xx = max(yy, 0.0), max(xx, 0.0)
    y0, x0 = int(yy), int(xx)
    if y0 >= H - 1:
        y0 = y1 = H - 1
        yy = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= W - 1:
        x0 = x1 = W - 1
        xx = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = yy - y0, xx - x0
    return (
        (1 - ly) * (1 - lx) * img[..., y0, x0]
        + (1 - ly) * lx * img[..., y0, x1]
        + ly * (1 - lx) * img[..., y1, x0]
        + ly * lx * img[..., y1, x1]
    )


def roi_align_ref(x, rois, idx, outsize, scale, mode, sampling_ratio=None):
    oh, ow = outsize
    C = x.shape[1]
    y = np.zeros((len(rois), C, oh, ow))
    for r, roi in enumerate(rois):
        y0, x0, y1, x1 = (v * scale for v in roi)
        rh, rw = max(y1 - y0, 1.0), max(x1 - x0, 1.0)
        bh, bw = rh / oh, rw / ow
        sh, sw = (
            sampling_ratio
            if isinstance(sampling_ratio, tuple)
            else (sampling_ratio, sampling_ratio)
        )
        gh = sh or int(math.ceil(rh / oh))
        gw = sw or int(math.ceil(rw / ow))
        for i in range(oh):
            for j in range(ow):
                vals = []
                for a in range(gh):
                    for b in range(gw):
                        yy = y0 + i * bh + (a + 0.5) * bh / gh
                        xx = x0 + j * bw + (b + 0.5) * bw / gw
                        v = _bilinear(x[idx[r]], yy, xx)
                        vals.append(v)
                if mode == "avg":
                    y[r, :, i, j] = (
                        sum(v for v in vals if v is not None) / (gh * gw)
                        if any(v is not None for v in vals)
                        else 0
                    )
                else:
                    ok = [v for v in vals if v is not None]
                    y[r, :, i, j] = np.max(ok, axis=0) if ok else 0
    return y


def _distinct(shape):
    def gen(rng, dtype):
        size = int(np.prod(shape))
        return (rng.permutation(size) / size * 2 - 1).reshape(shape).astype(dtype)

    return gen


def _consts(a, dtype_follows=True):
    def gen(rng, dtype):
        return a.astype(dtype) if dtype_follows else a.copy()

    return gen


@pytest.mark.parametrize("scale", [1.0, 0.6])
def test_roi_max_pooling_2d(scale, float_dtype, device):
    check_op(
        lambda x, r, i: F.roi_max_pooling_2d(x, r, i, (2, 3), scale),
        lambda x, r, i: roi_pool_ref(x, r, i, (2, 3), scale, "max"),
        [_distinct((2, 3, 6, 7)), _consts(ROIS), _consts(ROI_IDX, False)],
        dtype=float_dtype,
        device=device,
        no_grads=[False, True, True],
    )


@pytest.mark.parametrize("scale", [1.0, 0.6])
def test_roi_average_pooling_2d(scale, float_dtype, device):
    check_op(
        lambda x, r, i: F.roi_average_pooling_2d(x, r, i, 2, scale),
        lambda x, r, i: roi_pool_ref(x, r, i, (2, 2), scale, "avg"),
        [(2, 3, 6, 7), _consts(ROIS), _consts(ROI_IDX, False)],
        dtype=float_dtype,
        device=device,
        no_grads=[False, True, True],
    )


def test_roi_pooling_2d(float_dtype, device):
    rois5 = np.concatenate(
        [ROI_IDX[:, None].astype(np.float64), ROIS[:, [1, 0, 3, 2]]], axis=1
    )

    def ref(x, r):
        return roi_pool_ref(
            x,
            r[:, [2, 1, 4, 3]],
            r[:, 0].astype(int),
            (3, 2),
            0.8,
            "max",
            plus_one=True,
        )

    check_op(
        lambda x, r: F.roi_pooling_2d(x, r, 3, 2, 0.8),
        ref,
        [_distinct((2, 3, 6, 7)), _consts(rois5)],
        dtype=float_dtype,
        device=device,
        no_grads=[False, True],
    )


# A pair may leave one axis adaptive (None), as in Chainer 7.
@pytest.mark.parametrize("sampling_ratio", [None, 2, (None, 3), (1, None)])
def test_roi_average_align_2d(sampling_ratio, float_dtype, device):
    check_op(
        lambda x, r, i: F.roi_average_align_2d(x, r, i, (2, 3), 0.9, sampling_ratio),
        lambda x, r, i: roi_align_ref(x, r, i, (2, 3), 0.9, "avg", sampling_ratio),
        [(2, 3, 6, 7), _consts(ROIS), _consts(ROI_IDX, False)],
        dtype=float_dtype,
        device=device,
        no_grads=[False, True, True],
    )


@pytest.mark.parametrize("sampling_ratio", [None, 2, (2, None)])
def test_roi_max_align_2d(sampling_ratio, float_dtype, device):
    check_op(
        lambda x, r, i: F.roi_max_align_2d(x, r, i, 2, 0.9, sampling_ratio),
        lambda x, r, i: roi_align_ref(x, r, i, (2, 2), 0.9, "max", sampling_ratio),
        [_distinct((2, 3, 6, 7)), _consts(ROIS), _consts(ROI_IDX, False)],
        dtype=float_dtype,
        device=device,
        no_grads=[False, True, True],
    )


def test_roi_errors():
    x = np.zeros((1, 2, 4, 4), np.float32)
    with pytest.raises(type_check.InvalidType, match="ROIMaxPooling2D"):
        F.roi_max_pooling_2d(
            x, np.zeros((2, 5), np.float32), np.zeros(2, np.int32), 2, 1.0
        )
    with pytest.raises(type_check.InvalidType, match="ROIPooling2D"):
        F.roi_pooling_2d(x, np.zeros((2, 4), np.float32), 2, 2, 1.0)
    with pytest.raises(TypeError, match="roi_average_align_2d"):
        F.roi_average_align_2d(
            x, np.zeros((2, 4), np.float32), np.zeros(2, np.int32), 0, 1.0
        )
    with pytest.raises(TypeError, match="roi_max_align_2d"):
        F.roi_max_align_2d(
            x, np.zeros((2, 4), np.float32), np.zeros(2, np.int32), 2, -1.0
        )
    for bad in (0, (2, 0), (None, 1.5), (1, 2, 3)):
        with pytest.raises(TypeError, match="roi_average_align_2d: sampling_ratio"):
            F.roi_average_align_2d(
                x, np.zeros((2, 4), np.float32), np.zeros(2, np.int32), 2, 1.0, bad
            )


@pytest.mark.parametrize(
    "fn",
    [F.roi_max_pooling_2d, F.roi_average_pooling_2d, F.roi_average_align_2d],
)
def test_no_rois_gives_an_empty_output_and_a_zero_gradient(fn):
    x = kusari.Variable(np.random.rand(1, 2, 8, 8).astype(np.float32))
    rois = np.zeros((0, 4), np.float32)
    y = fn(x, rois, np.zeros((0,), np.int32), 2, 1.0)
    assert y.shape == (0, 2, 2, 2)
    F.sum(y).backward()
    assert x.grad.shape == x.shape and not x.grad.any()
