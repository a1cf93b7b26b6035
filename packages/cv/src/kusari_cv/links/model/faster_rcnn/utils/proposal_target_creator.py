"""Training targets of the RoI head: sampled proposals with labels and offsets."""

from __future__ import annotations

from collections.abc import Sequence

import numpy

from kusari import backend
from kusari.backends import cuda
from kusari_cv._typing import Array
from kusari_cv.links.model.faster_rcnn.utils.bbox2loc import bbox2loc
from kusari_cv.utils.bbox.bbox_iou import bbox_iou


class ProposalTargetCreator:
    """Sample proposals and assign each a ground truth.

    The ground truth boxes join the proposals. A proposal is foreground when
    its best IoU reaches ``pos_iou_thresh`` (at most ``n_sample * pos_ratio``
    of them are kept) and background when that IoU lies in
    ``[neg_iou_thresh_lo, neg_iou_thresh_hi)``; backgrounds fill the sample up
    to ``n_sample``. Sampling uses NumPy's global generator.

    Args:
        n_sample: Number of sampled proposals; zero or less samples as many
            as there are proposals (plus ground truths).
        pos_ratio: Largest share of foreground proposals.
        pos_iou_thresh: IoU of a foreground proposal.
        neg_iou_thresh_hi: Upper IoU bound of a background proposal.
        neg_iou_thresh_lo: Lower IoU bound of a background proposal.
    """

    def __init__(
        self,
        n_sample: int = 128,
        pos_ratio: float = 0.25,
        pos_iou_thresh: float = 0.5,
        neg_iou_thresh_hi: float = 0.5,
        neg_iou_thresh_lo: float = 0.0,
    ) -> None:
        self.n_sample = n_sample
        self.pos_ratio = pos_ratio
        self.pos_iou_thresh = pos_iou_thresh
        self.neg_iou_thresh_hi = neg_iou_thresh_hi
        self.neg_iou_thresh_lo = neg_iou_thresh_lo

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n_sample={self.n_sample})"

    def __call__(
        self,
        roi: Array,
        bbox: Array,
        label: Array,
        loc_normalize_mean: Sequence[float] = (0.0, 0.0, 0.0, 0.0),
        loc_normalize_std: Sequence[float] = (0.1, 0.1, 0.2, 0.2),
    ) -> tuple[Array, Array, Array]:
        """Sample the proposals of one image.

        Args:
            roi: ``(R, 4)`` proposals.
            bbox: ``(R', 4)`` ground truth boxes.
            label: ``(R',)`` ground truth labels in ``[0, n_fg_class)``.
            loc_normalize_mean: Subtracted from the offsets.
            loc_normalize_std: Divides the offsets.

        Returns:
            ``(sample_roi, gt_roi_loc, gt_roi_label)``: float32 ``(S, 4)``
            boxes, float32 ``(S, 4)`` normalized offsets and int32 ``(S,)``
            labels where 0 is background. Foregrounds come first.
        """
        xp = backend.get_array_module(roi)
        roi = cuda.to_cpu(roi)
        bbox = cuda.to_cpu(bbox)
        label = cuda.to_cpu(label)
        if len(bbox) == 0:
            raise ValueError("ProposalTargetCreator: an image needs at least one box")
        roi = numpy.concatenate((roi, bbox), axis=0).astype(numpy.float32)
        # a non-positive n_sample keeps every RoI (Light-Head R-CNN's default)
        n_sample = self.n_sample if self.n_sample > 0 else len(roi)
        pos_per_image = int(numpy.round(n_sample * self.pos_ratio))
        iou = bbox_iou(roi, bbox)
        gt_assignment = iou.argmax(axis=1)
        max_iou = iou.max(axis=1)
        gt_roi_label = label[gt_assignment].astype(numpy.int32) + 1

        pos_index = numpy.where(max_iou >= self.pos_iou_thresh)[0]
        n_pos = min(pos_per_image, len(pos_index))
        if len(pos_index) > 0:
            pos_index = numpy.random.choice(pos_index, n_pos, replace=False)
        neg_index = numpy.where(
            (max_iou < self.neg_iou_thresh_hi) & (max_iou >= self.neg_iou_thresh_lo)
        )[0]
        n_neg = min(n_sample - n_pos, len(neg_index))
        if len(neg_index) > 0:
            neg_index = numpy.random.choice(neg_index, n_neg, replace=False)

        keep = numpy.concatenate((pos_index, neg_index)).astype(numpy.int64)
        gt_roi_label = gt_roi_label[keep]
        gt_roi_label[n_pos:] = 0
        sample_roi = roi[keep]
        gt_roi_loc = bbox2loc(
            sample_roi, bbox[gt_assignment[keep]].astype(numpy.float32)
        )
        mean = numpy.asarray(loc_normalize_mean, numpy.float32)
        std = numpy.asarray(loc_normalize_std, numpy.float32)
        gt_roi_loc = ((gt_roi_loc - mean) / std).astype(numpy.float32)
        return xp.asarray(sample_roi), xp.asarray(gt_roi_loc), xp.asarray(gt_roi_label)
