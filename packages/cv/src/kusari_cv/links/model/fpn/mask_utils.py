"""Conversions between image-sized masks and box-aligned mask patches."""

from __future__ import annotations

from collections.abc import Sequence

import numpy

from kusari.backends import cuda
from kusari_cv import transforms
from kusari_cv._typing import Array

# Patches are resized with one pixel of zero padding around them, so that
# interpolation at the border does not repeat the edge values.
_PAD = 1


def _expand_bbox(bbox: Array, scale: float) -> Array:
    half = (bbox[:, 2:] - bbox[:, :2]) * 0.5 * scale
    center = (bbox[:, 2:] + bbox[:, :2]) * 0.5
    return numpy.concatenate((center - half, center + half), axis=1)


def _integer_bbox(bbox: Array, segm_size: int) -> Array:
    expanded = _expand_bbox(bbox, (segm_size + 2 * _PAD) / segm_size)
    return numpy.round(expanded).astype(numpy.int64)


def mask_to_segm(
    mask: Array, bbox: Array, segm_size: int, index: Array | None = None
) -> Array:
    """Crop ``mask[index[i]]`` to ``bbox[i]`` and resize it to a patch.

    Args:
        mask: ``(N, H, W)`` bool masks.
        bbox: ``(R, 4)`` boxes.
        segm_size: Side ``S`` of the patches.
        index: ``(R,)`` mask of each box (default ``arange(R)``).

    Returns:
        float32 ``(R, S, S)`` patches with values 0 or 1.
    """
    mask = cuda.to_cpu(mask)
    _, H, W = mask.shape
    boxes = _integer_bbox(numpy.asarray(cuda.to_cpu(bbox), numpy.float64), segm_size)
    index = numpy.arange(len(boxes)) if index is None else cuda.to_cpu(index)
    size = segm_size + 2 * _PAD
    out = numpy.zeros((len(boxes), segm_size, segm_size), dtype=numpy.float32)
    for r, (i, bb) in enumerate(zip(index, boxes)):
        y0, x0 = max(bb[0], 0), max(bb[1], 0)
        y1, x1 = max(min(bb[2], H), 0), max(min(bb[3], W), 0)
        if y1 <= y0 or x1 <= x0:
            continue
        crop = numpy.zeros((bb[2] - bb[0], bb[3] - bb[1]), dtype=numpy.float32)
        crop[y0 - bb[0] : y1 - bb[0], x0 - bb[1] : x1 - bb[1]] = mask[i, y0:y1, x0:x1]
        patch = transforms.resize(crop[None], (size, size))[0]
        # values at or above one half count as inside (resize then threshold)
        out[r] = (patch[_PAD:-_PAD, _PAD:-_PAD] >= 0.5).astype(numpy.float32)
    return out


def segm_to_mask(segm: Array, bbox: Array, size: Sequence[int]) -> Array:
    """Paste ``(R, S, S)`` patch probabilities back into ``(R, H, W)`` bool
    masks at their boxes (threshold 0.5)."""
    H, W = size
    segm = cuda.to_cpu(segm)
    segm_size = segm.shape[1]
    boxes = _integer_bbox(numpy.asarray(cuda.to_cpu(bbox), numpy.float64), segm_size)
    mask = numpy.zeros((len(boxes), H, W), dtype=bool)
    canvas = numpy.zeros((segm_size + 2 * _PAD,) * 2, dtype=numpy.float32)
    for r, (bb, sgm) in enumerate(zip(boxes, segm)):
        h, w = bb[2] - bb[0], bb[3] - bb[1]
        if h <= 0 or w <= 0:
            continue
        canvas[_PAD:-_PAD, _PAD:-_PAD] = sgm
        crop = transforms.resize(canvas[None], (int(h), int(w)))[0] > 0.5
        y0, x0 = max(bb[0], 0), max(bb[1], 0)
        y1, x1 = max(min(bb[2], H), 0), max(min(bb[3], W), 0)
        if y1 <= y0 or x1 <= x0:
            continue
        mask[r, y0:y1, x0:x1] = crop[y0 - bb[0] : y1 - bb[0], x0 - bb[1] : x1 - bb[1]]
    return mask
