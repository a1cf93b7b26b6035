"""Small helpers shared by the FPN detector's parts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

import kusari.functions as F
from kusari import backend
from kusari.backends import cuda
from kusari_cv import transforms
from kusari_cv._typing import Array

#: Largest log-scale offset applied to a box (Detectron's clip, log(1000/16)).
exp_clip = float(numpy.log(1000 / 16))


def smooth_l1(x: Any, t: Any, beta: float) -> Any:
    """Element-wise smooth L1 loss with transition point ``beta``."""
    return F.huber_loss(x, t, beta, reduce="no") / beta


def argsort(x: Array) -> Array:
    """``argsort`` on the host (large sorts on the GPU can run out of memory)."""
    xp = backend.get_array_module(x)
    return xp.asarray(numpy.argsort(cuda.to_cpu(x), kind="stable"))


def choice(x: Array, size: int) -> Array:
    """``size`` distinct elements of ``x``, drawn with NumPy's generator."""
    xp = backend.get_array_module(x)
    return xp.asarray(numpy.random.choice(cuda.to_cpu(x), size, replace=False))


def scale_img(img: Array, min_size: int, max_size: int) -> tuple[Array, float]:
    """Resize so the shorter side is ``min_size`` (the longer at most
    ``max_size``); returns the image and the scale."""
    _, H, W = img.shape
    scale = min_size / min(H, W)
    if scale * max(H, W) > max_size:
        scale = max_size / max(H, W)
    out = transforms.resize(img, (int(H * scale), int(W * scale)))
    return out, scale


def flatten_levels(
    rois: Sequence[Array], roi_indices: Sequence[Array]
) -> tuple[Array, Array, Array]:
    """The per-level RoIs and image indices as one ``(R, 4)`` float32 and one
    ``(R,)`` int32 array, after the ``(R,)`` int32 level of each RoI:
    ``(levels, rois, roi_indices)``."""
    xp = backend.get_array_module(rois[0])
    levels = xp.concatenate(
        [xp.full(len(r), lvl, dtype=numpy.int32) for lvl, r in enumerate(rois)]
    )
    roi_all = xp.concatenate(list(rois)).astype(numpy.float32)
    index_all = xp.concatenate(list(roi_indices)).astype(numpy.int32)
    return levels, roi_all, index_all


def split_levels(
    levels: Array, n_level: int, rois: Array, roi_indices: Array, *targets: Array
) -> Any:
    """Split ``rois``, ``roi_indices`` and each of ``targets`` (rows matching
    ``levels``) into lists of ``n_level`` arrays, one per level, as the
    tuple ``(rois, roi_indices, *targets)``: the inverse of
    :func:`flatten_levels`."""
    masks = [levels == lvl for lvl in range(n_level)]
    return tuple([a[m] for m in masks] for a in (rois, roi_indices, *targets))
