"""Encoding of ground truth boxes into SSD's default boxes, and back."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy

from kusari import backend
from kusari_cv._typing import Array
from kusari_cv.utils.bbox.bbox_iou import bbox_iou
from kusari_cv.utils.bbox.non_maximum_suppression import non_maximum_suppression


class MultiboxCoder:
    """Translate between boxes and SSD's per-default-box offsets.

    The default boxes are laid out on each feature map of ``grids``: for a
    map ``k`` every cell gets a square box of side ``sizes[k]``, a square of
    side ``sqrt(sizes[k] * sizes[k + 1])`` and two boxes per aspect ratio in
    ``aspect_ratios[k]``. Offsets are normalized by ``variance``.

    Args:
        grids: Side of each feature map, e.g. ``(38, 19, 10, 5, 3, 1)``.
        aspect_ratios: Aspect ratios per feature map, e.g. ``((2,), (2, 3))``.
        steps: Stride of each feature map in input pixels.
        sizes: Box sizes; one more entry than ``grids``.
        variance: Two scales for the center and the size offsets.

    Example:
        >>> import numpy as np
        >>> coder = MultiboxCoder((2,), ((2,),), (4,), (3, 6), (0.1, 0.2))
        >>> bbox = np.array([[0, 0, 4, 4]], np.float32)
        >>> loc, label = coder.encode(bbox, np.array([1], np.int32))
        >>> loc.shape, int(label.max())
        ((16, 4), 2)
    """

    def __init__(
        self,
        grids: Sequence[int],
        aspect_ratios: Sequence[Sequence[float]],
        steps: Sequence[float],
        sizes: Sequence[float],
        variance: Sequence[float],
    ) -> None:
        if not len(aspect_ratios) == len(grids) == len(steps):
            raise ValueError(
                "MultiboxCoder: grids, aspect_ratios and steps must have the "
                f"same length, got {len(grids)}, {len(aspect_ratios)} and "
                f"{len(steps)}"
            )
        if len(sizes) != len(grids) + 1:
            raise ValueError(
                "MultiboxCoder: sizes needs one entry more than grids "
                f"({len(grids) + 1}), got {len(sizes)}"
            )
        default_bbox = []
        for k, grid in enumerate(grids):
            s = sizes[k]
            s_mid = numpy.sqrt(sizes[k] * sizes[k + 1])
            for v, u in itertools.product(range(grid), repeat=2):
                cy = (v + 0.5) * steps[k]
                cx = (u + 0.5) * steps[k]
                default_bbox.append((cy, cx, s, s))
                default_bbox.append((cy, cx, s_mid, s_mid))
                for ar in aspect_ratios[k]:
                    r = numpy.sqrt(ar)
                    default_bbox.append((cy, cx, s / r, s * r))
                    default_bbox.append((cy, cx, s * r, s / r))
        # (center_y, center_x, height, width)
        self._default_bbox = numpy.array(default_bbox, dtype=numpy.float32)
        self._variance = tuple(float(v) for v in variance)
        if len(self._variance) != 2:
            raise ValueError(
                f"MultiboxCoder: variance must have two entries, got {variance!r}"
            )
        self._on_device: dict[int, Array] = {}

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(n_default_bbox={len(self._default_bbox)}, "
            f"variance={self._variance})"
        )

    @property
    def default_bbox(self) -> Array:
        """``(K, 4)`` default boxes as ``(center_y, center_x, height, width)``."""
        return self._default_bbox

    def to_cpu(self) -> None:
        """Kept for ChainerCV compatibility; boxes follow the input's device."""
        self._on_device.clear()

    def to_gpu(self, device: int | None = None) -> None:
        """Kept for ChainerCV compatibility; boxes follow the input's device."""
        self._on_device.clear()

    def _default(self, xp: object) -> Array:
        # The default boxes are copied once per array module, so decode on a
        # GPU does not transfer them on every call.
        key = id(xp)
        if key not in self._on_device:
            self._on_device[key] = xp.asarray(self._default_bbox)  # type: ignore[attr-defined]
        return self._on_device[key]

    def encode(
        self, bbox: Array, label: Array, iou_thresh: float = 0.5
    ) -> tuple[Array, Array]:
        """Assign ground truth boxes to default boxes and encode them.

        Every ground truth box first takes its best default box (greedily by
        IoU, one default box per ground truth); the remaining default boxes
        take the ground truth they overlap most when that IoU reaches
        ``iou_thresh``. Unassigned default boxes get label 0 (background).

        Args:
            bbox: ``(R, 4)`` boxes ``(y_min, x_min, y_max, x_max)``.
            label: ``(R,)`` int labels in ``[0, n_fg_class)``.
            iou_thresh: IoU needed for an extra assignment.

        Returns:
            ``(mb_loc, mb_label)``: float32 ``(K, 4)`` offsets and int32
            ``(K,)`` labels where 0 is background and ``l + 1`` is class ``l``.
        """
        xp = backend.get_array_module(bbox)
        default = self._default(xp)
        n_default = len(default)
        if len(bbox) == 0:
            return (
                xp.zeros((n_default, 4), dtype=numpy.float32),
                xp.zeros(n_default, dtype=numpy.int32),
            )
        corners = xp.concatenate(
            (default[:, :2] - default[:, 2:] / 2, default[:, :2] + default[:, 2:] / 2),
            axis=1,
        )
        iou = bbox_iou(corners, bbox)
        index = xp.full(n_default, -1, dtype=numpy.int64)
        masked = iou.copy()
        # Greedy one-to-one matching: each ground truth gets at least one box.
        for _ in range(len(bbox)):
            i, j = numpy.unravel_index(int(masked.argmax()), masked.shape)
            if masked[i, j] <= 1e-6:
                break
            index[i] = j
            masked[i, :] = 0
            masked[:, j] = 0
        mask = xp.logical_and(index < 0, iou.max(axis=1) >= iou_thresh)
        index[mask] = iou[mask].argmax(axis=1)

        mb_bbox = xp.asarray(bbox, dtype=numpy.float32)[index]
        size = mb_bbox[:, 2:] - mb_bbox[:, :2]
        center = mb_bbox[:, :2] + size / 2
        v0, v1 = self._variance
        mb_loc = xp.empty_like(mb_bbox)
        mb_loc[:, :2] = (center - default[:, :2]) / (v0 * default[:, 2:])
        mb_loc[:, 2:] = xp.log(size / default[:, 2:]) / v1
        mb_label = xp.asarray(label, dtype=numpy.int32)[index] + 1
        mb_label[index < 0] = 0
        return mb_loc.astype(numpy.float32), mb_label

    def decode(
        self,
        mb_loc: Array,
        mb_conf: Array,
        nms_thresh: float = 0.45,
        score_thresh: float = 0.6,
    ) -> tuple[Array, Array, Array]:
        """Turn offsets and class scores into boxes, with NMS per class.

        Args:
            mb_loc: ``(K, 4)`` offsets.
            mb_conf: ``(K, n_fg_class + 1)`` class logits (0 is background).
            nms_thresh: IoU above which NMS drops the lower scored box.
            score_thresh: Minimum probability of a kept box.

        Returns:
            ``(bbox, label, score)``: float32 ``(R, 4)`` boxes in input
            pixels, int32 ``(R,)`` labels, float32 ``(R,)`` probabilities.
        """
        xp = backend.get_array_module(mb_loc)
        default = self._default(xp)
        v0, v1 = self._variance
        center = default[:, :2] + mb_loc[:, :2] * v0 * default[:, 2:]
        # untrained weights can ask for sizes beyond float range; such boxes
        # become infinite rather than raising an overflow warning
        with numpy.errstate(over="ignore"):
            size = default[:, 2:] * xp.exp(mb_loc[:, 2:] * v1)
        mb_bbox = xp.concatenate((center - size / 2, center + size / 2), axis=1)

        conf = mb_conf - mb_conf.max(axis=1, keepdims=True)
        mb_score = xp.exp(conf)
        mb_score /= mb_score.sum(axis=1, keepdims=True)

        bboxes, labels, scores = [], [], []
        for lbl in range(mb_conf.shape[1] - 1):
            score_l = mb_score[:, lbl + 1]
            mask = score_l >= score_thresh
            bbox_l = mb_bbox[mask]
            score_l = score_l[mask]
            keep = non_maximum_suppression(bbox_l, nms_thresh, score_l)
            bboxes.append(bbox_l[keep])
            labels.append(xp.full(len(keep), lbl, dtype=numpy.int32))
            scores.append(score_l[keep])
        bbox = xp.concatenate(bboxes).astype(numpy.float32, copy=False)
        label = xp.concatenate(labels).astype(numpy.int32, copy=False)
        score = xp.concatenate(scores).astype(numpy.float32, copy=False)
        return bbox, label, score
