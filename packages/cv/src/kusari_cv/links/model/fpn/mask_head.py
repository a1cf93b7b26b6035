"""Mask head of Mask R-CNN on a feature pyramid."""

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
from kusari_cv.links.connection import Conv2DActiv
from kusari_cv.links.model.fpn.mask_utils import mask_to_segm, segm_to_mask
from kusari_cv.links.model.fpn.misc import flatten_levels, split_levels
from kusari_cv.utils.bbox.bbox_iou import bbox_iou


class MaskHead(kusari.Chain):
    """Per-class mask logits of RoIs: RoIAlign 14x14, four 3x3 convolutions,
    a stride-2 deconvolution and a 1x1 classifier (28x28 output).

    Args:
        n_class: Number of classes including the background.
        scales: Scale of each feature map relative to the input.
    """

    _canonical_level = 2
    _canonical_scale = 224
    _roi_size = 14
    _roi_sample_ratio = 2
    segm_size = _roi_size * 2

    def __init__(self, n_class: int, scales: Sequence[float]) -> None:
        super().__init__()
        initialW = initializers.HeNormal(1, fan_option="fan_out")
        with self.init_scope():
            self.conv1 = Conv2DActiv(256, 3, pad=1, initialW=initialW)
            self.conv2 = Conv2DActiv(256, 3, pad=1, initialW=initialW)
            self.conv3 = Conv2DActiv(256, 3, pad=1, initialW=initialW)
            self.conv4 = Conv2DActiv(256, 3, pad=1, initialW=initialW)
            self.conv5 = L.Deconvolution2D(256, 2, pad=0, stride=2, initialW=initialW)
            self.seg = L.Convolution2D(n_class, 1, pad=0, initialW=initialW)
        self._n_class = n_class
        self._scales = tuple(scales)

    def forward(
        self, hs: Sequence[Any], rois: Sequence[Array], roi_indices: Sequence[Array]
    ) -> kusari.Variable:
        """``(R, n_class, 28, 28)`` mask logits of the RoIs, level by level."""
        pooled = [
            F.roi_average_align_2d(
                h,
                rois[lvl],
                roi_indices[lvl],
                self._roi_size,
                self._scales[lvl],
                self._roi_sample_ratio,
            )
            for lvl, h in enumerate(hs)
            if len(rois[lvl]) > 0
        ]
        if not pooled:
            shape = (0, self._n_class, self.segm_size, self.segm_size)
            return kusari.Variable(self.xp.zeros(shape, numpy.float32))
        h = F.concat(pooled, axis=0)
        h = self.conv4(self.conv3(self.conv2(self.conv1(h))))
        return self.seg(F.relu(self.conv5(h)))

    def distribute(
        self, rois: Array, roi_indices: Array
    ) -> tuple[list[Array], list[Array], Array]:
        """Split RoIs by level like the box head; ``order`` maps each input
        RoI to its row in the concatenated output."""
        xp = self.xp
        # clipped boxes can come out inverted; treat them as empty (level 0)
        size = xp.sqrt(xp.maximum(xp.prod(rois[:, 2:] - rois[:, :2], axis=1), 0))
        level = xp.floor(xp.log2(size / self._canonical_scale + 1e-6)).astype(
            numpy.int32
        )
        level = xp.clip(level + self._canonical_level, 0, len(self._scales) - 2)
        masks = [level == lvl for lvl in range(len(self._scales))]
        order = xp.argsort(xp.concatenate([xp.where(m)[0] for m in masks]))
        return [rois[m] for m in masks], [roi_indices[m] for m in masks], order

    def decode(
        self,
        segms: Sequence[Array],
        bboxes: Sequence[Array],
        labels: Sequence[Array],
        sizes: Sequence[Sequence[int]],
    ) -> list[Array]:
        """Bool ``(R, H, W)`` masks per image from the predicted class's
        patch probabilities."""
        masks = []
        for segm, bbox, label, size in zip(segms, bboxes, labels, sizes):
            if len(segm) > 0:
                patch = cuda.to_cpu(segm)[numpy.arange(len(label)), label + 1]
                masks.append(segm_to_mask(patch, bbox, size))
            else:
                masks.append(numpy.zeros((0, *size), dtype=bool))
        return masks


def mask_head_loss_pre(
    rois: Sequence[Array],
    roi_indices: Sequence[Array],
    gt_masks: Sequence[Array],
    gt_bboxes: Sequence[Array],
    gt_head_labels: Sequence[Array],
    segm_size: int,
) -> tuple[list[Array], list[Array], list[Array], list[Array]]:
    """Keep the foreground RoIs (label > 0 from the box head's targets) and
    crop their best ground truth mask into a ``segm_size`` patch.

    Returns:
        Per level: RoIs, image indices, target patches and labels.
    """
    xp = backend.get_array_module(rois[0])
    n_level = len(rois)
    levels, roi_all, index_all = flatten_levels(rois, roi_indices)
    label_all = xp.concatenate(list(gt_head_labels)).astype(numpy.int32)

    fg = xp.where(label_all > 0)[0]
    levels, roi_all, index_all = levels[fg], roi_all[fg], index_all[fg]
    label_all = label_all[fg]
    gt_segms = xp.zeros((len(roi_all), segm_size, segm_size), dtype=numpy.float32)
    for i in numpy.unique(cuda.to_cpu(index_all)):
        rows = xp.where(index_all == i)[0]
        iou = bbox_iou(roi_all[rows], xp.asarray(gt_bboxes[i], numpy.float32))
        gt_segms[rows] = xp.asarray(
            mask_to_segm(gt_masks[i], roi_all[rows], segm_size, iou.argmax(axis=1))
        )
    return split_levels(levels, n_level, roi_all, index_all, gt_segms, label_all)


def mask_head_loss_post(
    segms: Any,
    mask_roi_indices: Sequence[Array],
    gt_segms: Sequence[Array],
    gt_mask_labels: Sequence[Array],
    batchsize: int,
) -> Any:
    """Sigmoid cross entropy of the true class's mask logits."""
    xp = backend.get_array_module(segms.array)
    gt_segm = xp.concatenate(list(gt_segms))
    gt_label = xp.concatenate(list(gt_mask_labels)).astype(numpy.int32)
    logits = segms[xp.arange(len(gt_label)), gt_label]
    return F.sigmoid_cross_entropy(logits, gt_segm.astype(numpy.int32))
