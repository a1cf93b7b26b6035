"""Training targets of the RPN: which anchors are objects, and their offsets."""

from __future__ import annotations

from collections.abc import Sequence

import numpy

from kusari import backend
from kusari.backends import cuda
from kusari_cv._typing import Array
from kusari_cv.links.model.faster_rcnn.utils.bbox2loc import bbox2loc
from kusari_cv.utils.bbox.bbox_iou import bbox_iou


class AnchorTargetCreator:
    """Label anchors as object (1), background (0) or ignored (-1).

    Anchors that cross the image border are ignored. An anchor is an object
    when its IoU with some ground truth reaches ``pos_iou_thresh`` or it is
    the best anchor of some ground truth; background when its best IoU is
    below ``neg_iou_thresh``. At most ``n_sample * pos_ratio`` objects and
    ``n_sample`` labels in all are kept (randomly, with NumPy's generator).

    Args:
        n_sample: Number of labelled anchors.
        pos_iou_thresh: IoU of a positive anchor.
        neg_iou_thresh: IoU below which an anchor is negative.
        pos_ratio: Largest share of positives among the sampled anchors.
    """

    def __init__(
        self,
        n_sample: int = 256,
        pos_iou_thresh: float = 0.7,
        neg_iou_thresh: float = 0.3,
        pos_ratio: float = 0.5,
    ) -> None:
        self.n_sample = n_sample
        self.pos_iou_thresh = pos_iou_thresh
        self.neg_iou_thresh = neg_iou_thresh
        self.pos_ratio = pos_ratio

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n_sample={self.n_sample})"

    def __call__(
        self, bbox: Array, anchor: Array, img_size: Sequence[int]
    ) -> tuple[Array, Array]:
        """Targets of one image.

        Args:
            bbox: ``(R, 4)`` ground truth boxes.
            anchor: ``(A, 4)`` anchors.
            img_size: ``(H, W)`` of the input image.

        Returns:
            ``(loc, label)``: float32 ``(A, 4)`` offsets to each anchor's best
            ground truth and int32 ``(A,)`` labels in ``{-1, 0, 1}``.
        """
        xp = backend.get_array_module(anchor)
        bbox = cuda.to_cpu(bbox)
        anchor = cuda.to_cpu(anchor)
        if len(bbox) == 0:
            raise ValueError("AnchorTargetCreator: an image needs at least one box")
        H, W = img_size
        n_anchor = len(anchor)
        inside = numpy.where(
            (anchor[:, 0] >= 0)
            & (anchor[:, 1] >= 0)
            & (anchor[:, 2] <= H)
            & (anchor[:, 3] <= W)
        )[0]
        anchor = anchor[inside]
        argmax_ious, label = self._create_label(anchor, bbox)
        loc = bbox2loc(anchor, bbox[argmax_ious]) if len(anchor) else anchor

        full_label = numpy.full(n_anchor, -1, dtype=numpy.int32)
        full_label[inside] = label
        full_loc = numpy.zeros((n_anchor, 4), dtype=numpy.float32)
        full_loc[inside] = loc
        return xp.asarray(full_loc), xp.asarray(full_label)

    def _create_label(self, anchor: Array, bbox: Array) -> tuple[Array, Array]:
        label = numpy.full(len(anchor), -1, dtype=numpy.int32)
        if len(anchor) == 0:
            return numpy.zeros(0, dtype=numpy.int64), label
        ious = bbox_iou(anchor, bbox)
        argmax_ious = ious.argmax(axis=1)
        max_ious = ious[numpy.arange(len(anchor)), argmax_ious]
        gt_max_ious = ious.max(axis=0)
        # every anchor tied for a ground truth's best IoU is positive
        gt_argmax_ious = numpy.where(ious == gt_max_ious)[0]

        label[max_ious < self.neg_iou_thresh] = 0
        label[gt_argmax_ious] = 1
        label[max_ious >= self.pos_iou_thresh] = 1

        n_pos = int(self.pos_ratio * self.n_sample)
        pos_index = numpy.where(label == 1)[0]
        if len(pos_index) > n_pos:
            drop = numpy.random.choice(pos_index, len(pos_index) - n_pos, replace=False)
            label[drop] = -1
        n_neg = self.n_sample - int(numpy.sum(label == 1))
        neg_index = numpy.where(label == 0)[0]
        if len(neg_index) > n_neg:
            drop = numpy.random.choice(neg_index, len(neg_index) - n_neg, replace=False)
            label[drop] = -1
        return argmax_ious, label
