"""Box head of the FPN detector: RoIAlign per level, two fc layers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import backend, initializers
from kusari.backends import cuda
from kusari_cv._typing import Array
from kusari_cv.links.model.fpn.misc import (
    argsort,
    choice,
    exp_clip,
    flatten_levels,
    smooth_l1,
    split_levels,
)
from kusari_cv.utils.bbox.bbox_iou import bbox_iou
from kusari_cv.utils.bbox.non_maximum_suppression import non_maximum_suppression


class Caffe2FCUniform(kusari.Initializer):
    """Uniform in ``[-1 / sqrt(fan_in), 1 / sqrt(fan_in))`` (Caffe2's fc init)."""

    def __call__(self, array: Any) -> None:
        scale = 1 / numpy.sqrt(array.shape[-1])
        initializers.Uniform(scale)(array)


class BboxHead(kusari.Chain):
    """Classify RoIs and refine their boxes per class.

    RoIs go to the pyramid level matching their size (224 px at level 2),
    are pooled by RoIAlign to 7x7 (2x2 samples per bin) and pass two
    1024-wide fc layers.

    Args:
        n_class: Number of classes including the background.
        scales: Scale of each feature map relative to the input.

    Attributes:
        std: Scales of the center and the size offsets.
    """

    _canonical_level = 2
    _canonical_scale = 224
    _roi_size = 7
    _roi_sample_ratio = 2
    std = (0.1, 0.2)

    def __init__(self, n_class: int, scales: Sequence[float]) -> None:
        super().__init__()
        fc_init: dict[str, Any] = {
            "initialW": Caffe2FCUniform(),
            "initial_bias": Caffe2FCUniform(),
        }
        with self.init_scope():
            self.fc1 = L.Linear(1024, **fc_init)
            self.fc2 = L.Linear(1024, **fc_init)
            self.loc = L.Linear(n_class * 4, initialW=initializers.Normal(0.001))
            self.conf = L.Linear(n_class, initialW=initializers.Normal(0.01))
        self._n_class = n_class
        self._scales = tuple(scales)

    def forward(
        self, hs: Sequence[Any], rois: Sequence[Array], roi_indices: Sequence[Array]
    ) -> tuple[kusari.Variable, kusari.Variable]:
        """``(R, n_class, 4)`` offsets and ``(R, n_class)`` logits of the RoIs
        of every level (level by level)."""
        pooled = []
        for lvl, h in enumerate(hs):
            if len(rois[lvl]) == 0:
                continue
            pooled.append(
                F.roi_average_align_2d(
                    h,
                    rois[lvl],
                    roi_indices[lvl],
                    self._roi_size,
                    self._scales[lvl],
                    self._roi_sample_ratio,
                )
            )
        if not pooled:
            xp = self.xp
            return (
                kusari.Variable(xp.zeros((0, self._n_class, 4), numpy.float32)),
                kusari.Variable(xp.zeros((0, self._n_class), numpy.float32)),
            )
        h = F.concat(pooled, axis=0)
        h = F.reshape(h, (h.shape[0], -1))
        h = F.relu(self.fc2(F.relu(self.fc1(h))))
        locs = self.loc(h)
        return F.reshape(locs, (locs.shape[0], -1, 4)), self.conf(h)

    def distribute(
        self, rois: Array, roi_indices: Array
    ) -> tuple[list[Array], list[Array]]:
        """Split RoIs by level: ``floor(log2(sqrt(area) / 224)) + 2``, clipped
        to all but the last level."""
        xp = self.xp
        # clipped boxes can come out inverted; treat them as empty (level 0)
        size = xp.sqrt(xp.maximum(xp.prod(rois[:, 2:] - rois[:, :2], axis=1), 0))
        level = xp.floor(xp.log2(size / self._canonical_scale + 1e-6)).astype(
            numpy.int32
        )
        level = xp.clip(level + self._canonical_level, 0, len(self._scales) - 2)
        masks = [level == lvl for lvl in range(len(self._scales))]
        return [rois[m] for m in masks], [roi_indices[m] for m in masks]

    def decode(
        self,
        rois: Sequence[Array],
        roi_indices: Sequence[Array],
        locs: Any,
        confs: Any,
        scales: Sequence[float],
        sizes: Sequence[Sequence[int]],
        nms_thresh: float,
        score_thresh: float,
    ) -> tuple[list[Array], list[Array], list[Array]]:
        """Boxes, labels and scores per image, in each original image's pixels."""
        xp = self.xp
        roi_all = xp.concatenate(list(rois))
        index_all = xp.concatenate(list(roi_indices))
        locs = getattr(locs, "array", locs)
        confs = getattr(confs, "array", confs)
        bboxes, labels, scores = [], [], []
        for i in range(len(scales)):
            mask = index_all == i
            roi, loc, conf = roi_all[mask], locs[mask], confs[mask]
            box = xp.broadcast_to(roi[:, None], loc.shape) / scales[i]
            hw = box[:, :, 2:] - box[:, :, :2]
            yx = box[:, :, :2] + hw / 2
            yx = yx + loc[:, :, :2] * hw * self.std[0]
            hw = hw * xp.exp(xp.minimum(loc[:, :, 2:] * self.std[1], exp_clip))
            box = xp.concatenate((yx - hw / 2, yx + hw / 2), axis=2)
            box[:, :, :2] = xp.maximum(box[:, :, :2], 0)
            box[:, :, 2:] = xp.minimum(box[:, :, 2:], xp.asarray(sizes[i], box.dtype))
            conf = xp.exp(conf - conf.max(axis=1, keepdims=True))
            score = conf / conf.sum(axis=1, keepdims=True)
            b, lbl, s = _suppress(box, score, nms_thresh, score_thresh)
            bboxes.append(b)
            labels.append(lbl)
            scores.append(s)
        return bboxes, labels, scores


def _suppress(
    raw_bbox: Array, raw_score: Array, nms_thresh: float, score_thresh: float
) -> tuple[Array, Array, Array]:
    xp = backend.get_array_module(raw_bbox)
    bboxes, labels, scores = [], [], []
    for lbl in range(raw_score.shape[1] - 1):
        bbox = raw_bbox[:, lbl + 1]
        score = raw_score[:, lbl + 1]
        mask = score >= score_thresh
        bbox, score = bbox[mask], score[mask]
        order = argsort(-score)
        bbox, score = bbox[order], score[order]
        keep = non_maximum_suppression(bbox, nms_thresh)
        bboxes.append(bbox[keep])
        labels.append(xp.full(len(keep), lbl, dtype=numpy.int32))
        scores.append(score[keep])
    return (
        xp.concatenate(bboxes).astype(numpy.float32).reshape(-1, 4),
        xp.concatenate(labels).astype(numpy.int32),
        xp.concatenate(scores).astype(numpy.float32),
    )


def bbox_head_loss_pre(
    rois: Sequence[Array],
    roi_indices: Sequence[Array],
    std: Sequence[float],
    bboxes: Sequence[Array],
    labels: Sequence[Array],
) -> tuple[list[Array], list[Array], list[Array], list[Array]]:
    """Assign targets to the RoIs of every level and sample them.

    A RoI is foreground (label of its best ground truth plus one) at IoU 0.5
    or more, else background; per image at most 512 RoIs are kept, at most a
    quarter of them foreground.

    Returns:
        Per level: kept RoIs, their image indices, encoded target offsets and
        target labels.
    """
    thresh, n_per_image, fg_ratio = 0.5, 512, 0.25
    xp = backend.get_array_module(rois[0])
    n_level = len(rois)
    levels, roi_all, index_all = flatten_levels(rois, roi_indices)
    roi_yx = (roi_all[:, 2:] + roi_all[:, :2]) / 2
    roi_hw = roi_all[:, 2:] - roi_all[:, :2]

    gt_locs = xp.zeros_like(roi_all)
    gt_labels = xp.zeros_like(index_all)
    for i in numpy.unique(cuda.to_cpu(index_all)):
        mask = index_all == i
        bbox = xp.asarray(bboxes[i], dtype=numpy.float32)
        if len(bbox) > 0:
            iou = bbox_iou(roi_all[mask], bbox)
            gt_index = iou.argmax(axis=1)
            gt = bbox[gt_index]
            gt_hw = gt[:, 2:] - gt[:, :2]
            gt_yx = gt[:, :2] + gt_hw / 2
            loc = xp.concatenate(
                (
                    (gt_yx - roi_yx[mask]) / roi_hw[mask] / std[0],
                    xp.log(gt_hw / roi_hw[mask]) / std[1],
                ),
                axis=1,
            )
            label = xp.asarray(labels[i], dtype=numpy.int32)[gt_index] + 1
            label[iou.max(axis=1) < thresh] = 0
        else:
            loc = xp.zeros((int(mask.sum()), 4), dtype=numpy.float32)
            label = xp.zeros(int(mask.sum()), dtype=numpy.int32)
        fg_index = xp.where(label > 0)[0]
        n_fg = int(n_per_image * fg_ratio)
        if len(fg_index) > n_fg:
            label[choice(fg_index, len(fg_index) - n_fg)] = -1
        bg_index = xp.where(label == 0)[0]
        n_bg = n_per_image - int((label > 0).sum())
        if len(bg_index) > n_bg:
            label[choice(bg_index, len(bg_index) - n_bg)] = -1
        gt_locs[mask] = loc
        gt_labels[mask] = label

    keep = gt_labels >= 0
    roi_all, index_all, levels = roi_all[keep], index_all[keep], levels[keep]
    gt_locs, gt_labels = gt_locs[keep], gt_labels[keep]
    return split_levels(levels, n_level, roi_all, index_all, gt_locs, gt_labels)


def bbox_head_loss_post(
    locs: Any,
    confs: Any,
    roi_indices: Sequence[Array],
    gt_locs: Sequence[Array],
    gt_labels: Sequence[Array],
    batchsize: int,
) -> tuple[Any, Any]:
    """Localization (smooth L1 of the true class's offsets, foregrounds only)
    and classification (softmax cross entropy) losses, averaged per image and
    over the batch."""
    xp = backend.get_array_module(locs.array)
    index_all = xp.concatenate(list(roi_indices)).astype(numpy.int32)
    gt_loc_all = xp.concatenate(list(gt_locs)).astype(numpy.float32)
    gt_label_all = xp.concatenate(list(gt_labels)).astype(numpy.int32)
    loc_loss: Any = 0
    conf_loss: Any = 0
    for i in numpy.unique(cuda.to_cpu(index_all)):
        rows = xp.where(index_all == i)[0]
        gt_loc, gt_label = gt_loc_all[rows], gt_label_all[rows]
        fg = xp.where(gt_label > 0)[0]
        pred = locs[rows[fg], gt_label[fg]]
        loc_loss += F.sum(smooth_l1(pred, gt_loc[fg], 1)) / len(rows)
        conf_loss += F.softmax_cross_entropy(confs[rows], gt_label)
    return loc_loss / batchsize, conf_loss / batchsize
