"""FCIS's mask voting: merge the masks of overlapping detections."""

from __future__ import annotations

import numpy as np

from kusari_cv._typing import Array
from kusari_cv.transforms import resize
from kusari_cv.utils import bbox_iou, non_maximum_suppression


def _paste(prob: Array, box: Array, binary_thresh: float) -> tuple[Array, int, int]:
    """``prob`` resized to the rounded ``box`` and binarized, with the box's
    top-left corner; an empty array for an empty box."""
    coords: list[int] = [int(v) for v in np.round(np.asarray(box, np.float64))]
    y_min, x_min, y_max, x_max = coords
    if y_max <= y_min or x_max <= x_min:
        return np.zeros((0, 0), np.float32), y_min, x_min
    resized = resize(prob.astype(np.float32)[None], (y_max - y_min, x_max - x_min))
    return (resized[0] >= binary_thresh).astype(np.float32), y_min, x_min


def _aggregate(
    bbox: Array,
    mask_prob: Array,
    weight: Array,
    size: tuple[int, int],
    binary_thresh: float,
) -> tuple[Array, Array] | None:
    """Weighted vote of binarized masks on the image canvas; the cropped
    vote and its box, or None when no pixel reaches ``binary_thresh``."""
    canvas = np.zeros(size, np.float32)
    for box, prob, w in zip(bbox, mask_prob, weight):
        binary, y0, x0 = _paste(prob, box, binary_thresh)
        h, w_ = binary.shape
        canvas[y0 : y0 + h, x0 : x0 + w_] += binary * w
    ys, xs = np.nonzero(canvas >= binary_thresh)
    if len(ys) == 0:
        return None
    y_min, y_max, x_min, x_max = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    box = np.array([y_min, x_min, y_max, x_max], np.float32)
    return canvas[y_min:y_max, x_min:x_max], box


def mask_voting(
    roi_cmask_prob: Array,
    bbox: Array,
    roi_cls_prob: Array,
    size: tuple[int, int],
    score_thresh: float,
    nms_thresh: float,
    mask_merge_thresh: float,
    binary_thresh: float,
    limit: int = 100,
    bg_label: int = 0,
) -> tuple[Array, Array, Array, Array]:
    """Refine FCIS's per-RoI masks by letting overlapping RoIs vote.

    For each foreground class, non-maximum suppression picks detections;
    only the ``limit`` best scores over all classes (and at least
    ``score_thresh``) are kept. Each kept detection's mask becomes the
    class-probability-weighted vote of the binarized masks of all RoIs
    whose box overlaps it by ``mask_merge_thresh`` (IoU) or more, cropped to
    the pixels that reach ``binary_thresh``, and resized back to the RoI mask
    size.

    Args:
        roi_cmask_prob: ``(R, RH, RW)`` foreground probabilities of the RoI
            masks.
        bbox: ``(R, 4)`` RoI boxes ``(y_min, x_min, y_max, x_max)`` in image
            pixels.
        roi_cls_prob: ``(R, n_class)`` class probabilities, background
            included.
        size: ``(H, W)`` of the image.
        score_thresh: Smallest class probability kept.
        nms_thresh: IoU threshold of the per-class suppression.
        mask_merge_thresh: Smallest IoU of a RoI that votes for a detection.
        binary_thresh: Threshold that binarizes mask probabilities.
        limit: Most detections returned.
        bg_label: Index of the background class in ``roi_cls_prob``.

    Returns:
        ``(mask_prob, bbox, label, score)``: ``(N, RH, RW)`` voted masks,
        ``(N, 4)`` their boxes (the voted pixels' extent), ``(N,)``
        foreground labels (background removed, so in ``[0, n_class - 1)``)
        and ``(N,)`` class probabilities.
    """
    roi_size = roi_cmask_prob.shape[1:]
    fg_labels = [lbl for lbl in range(roi_cls_prob.shape[1]) if lbl != bg_label]

    candidates = []
    for lbl in fg_labels:
        score = roi_cls_prob[:, lbl]
        keep = non_maximum_suppression(bbox, nms_thresh, score)
        candidates.append((bbox[keep], score[keep]))
    all_scores = np.sort(np.concatenate([s for _, s in candidates] or [[]]))[::-1]
    if len(all_scores) > 0 and limit > 0:
        # Raise the threshold so at most ``limit`` detections (ties aside) pass.
        score_thresh = max(all_scores[min(len(all_scores), limit) - 1], score_thresh)

    masks, boxes, labels, scores = [], [], [], []
    for fg_index, (lbl, (bbox_l, score_l)) in enumerate(zip(fg_labels, candidates)):
        passed = score_l >= score_thresh
        for box, score in zip(bbox_l[passed], score_l[passed]):
            near = np.nonzero(bbox_iou(bbox, box[None])[:, 0] >= mask_merge_thresh)[0]
            weight = roi_cls_prob[near, lbl]
            voted = _aggregate(
                bbox[near],
                roi_cmask_prob[near],
                weight / weight.sum(),
                size,
                binary_thresh,
            )
            if voted is None:
                continue
            vote, vote_box = voted
            vote = resize(vote[None], roi_size)
            masks.append(np.clip(vote, 0.0, 1.0))
            boxes.append(vote_box)
            labels.append(fg_index)
            scores.append(score)
    if not masks:
        return (
            np.zeros((0,) + tuple(roi_size), np.float32),
            np.zeros((0, 4), np.float32),
            np.zeros((0,), np.int32),
            np.zeros((0,), np.float32),
        )
    return (
        np.concatenate(masks).astype(np.float32, copy=False),
        np.stack(boxes),
        np.array(labels, np.int32),
        np.array(scores, np.float32),
    )
