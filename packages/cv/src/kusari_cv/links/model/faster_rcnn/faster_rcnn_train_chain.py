"""Losses of Faster R-CNN's four-step joint training."""

from __future__ import annotations

from typing import Any

import numpy

import kusari
import kusari.functions as F
from kusari import backend, reporter
from kusari.backends import cuda
from kusari_cv._typing import Array
from kusari_cv.links.model.faster_rcnn.faster_rcnn import FasterRCNN
from kusari_cv.links.model.faster_rcnn.utils.anchor_target_creator import (
    AnchorTargetCreator,
)
from kusari_cv.links.model.faster_rcnn.utils.proposal_target_creator import (
    ProposalTargetCreator,
)


def smooth_l1(x: Any, t: Array, label: Array, sigma: float) -> Any:
    """Element-wise smooth L1 loss of the rows whose ``label`` is positive
    (foreground): only foregrounds are localized, the others weigh 0."""
    xp = backend.get_array_module(t)
    in_weight = xp.zeros_like(t)
    in_weight[label > 0] = 1
    sigma2 = sigma**2
    diff = (x - t) * in_weight
    abs_diff = F.absolute(diff)
    flag = (abs_diff.array < (1.0 / sigma2)).astype(abs_diff.dtype)
    return flag * (sigma2 / 2.0) * F.square(diff) + (1 - flag) * (
        abs_diff - 0.5 / sigma2
    )


def n_sampled(label: Array) -> int:
    """How many labels are sampled (not ignored, ``-1``); at least 1."""
    return max(int((label >= 0).sum()), 1)


def _fast_rcnn_loc_loss(
    pred_loc: Any, gt_loc: Array, gt_label: Array, sigma: float
) -> Any:
    # Only positives contribute, but the loss is averaged over every sampled
    # (non-ignored) label, as in the paper.
    return F.sum(smooth_l1(pred_loc, gt_loc, gt_label, sigma)) / n_sampled(gt_label)


def unwrap_targets(bboxes: Any, labels: Any, scales: Any) -> tuple[Any, Any, list]:
    """The arrays of Variables (or the values as given) and ``scales`` as a
    list of floats on the host."""
    bboxes = getattr(bboxes, "array", bboxes)
    labels = getattr(labels, "array", labels)
    scales = getattr(scales, "array", scales)
    return bboxes, labels, numpy.asarray(cuda.to_cpu(scales)).reshape(-1).tolist()


def report_losses(
    link: kusari.Link, rpn_loc: Any, rpn_cls: Any, roi_loc: Any, roi_cls: Any
) -> Any:
    """Reports the four losses and their sum (``loss``) for ``link``;
    returns the sum."""
    loss = rpn_loc + rpn_cls + roi_loc + roi_cls
    reporter.report(
        {
            "rpn_loc_loss": rpn_loc,
            "rpn_cls_loss": rpn_cls,
            "roi_loc_loss": roi_loc,
            "roi_cls_loss": roi_cls,
            "loss": loss,
        },
        link,
    )
    return loss


class FasterRCNNTrainChain(kusari.Chain):
    """Wrap a :class:`FasterRCNN` to return its training loss.

    The loss is the sum of the RPN's and the head's localization (smooth L1)
    and classification (softmax cross entropy) losses; each is reported
    (``rpn_loc_loss``, ``rpn_cls_loss``, ``roi_loc_loss``, ``roi_cls_loss``,
    ``loss``). Batches hold one image.

    Args:
        faster_rcnn: The model to train.
        rpn_sigma: Sigma of the RPN's smooth L1 loss.
        roi_sigma: Sigma of the head's smooth L1 loss.
        anchor_target_creator: Makes the RPN's targets.
        proposal_target_creator: Samples the head's RoIs and targets.
    """

    def __init__(
        self,
        faster_rcnn: FasterRCNN,
        rpn_sigma: float = 3.0,
        roi_sigma: float = 1.0,
        anchor_target_creator: AnchorTargetCreator | None = None,
        proposal_target_creator: ProposalTargetCreator | None = None,
    ) -> None:
        super().__init__()
        with self.init_scope():
            self.faster_rcnn = faster_rcnn
        self.rpn_sigma = rpn_sigma
        self.roi_sigma = roi_sigma
        self.anchor_target_creator = anchor_target_creator or AnchorTargetCreator()
        self.proposal_target_creator = (
            proposal_target_creator or ProposalTargetCreator()
        )
        self.loc_normalize_mean = faster_rcnn.loc_normalize_mean
        self.loc_normalize_std = faster_rcnn.loc_normalize_std

    def forward(self, imgs: Any, bboxes: Any, labels: Any, scales: Any) -> Any:
        """Loss of one prepared image.

        Args:
            imgs: ``(1, 3, H, W)`` prepared image.
            bboxes: ``(1, R, 4)`` boxes in the prepared image's pixels.
            labels: ``(1, R)`` labels in ``[0, n_fg_class)``.
            scales: ``(1,)`` factor from the original image to ``imgs``.

        Returns:
            The scalar loss.
        """
        bboxes, labels, scales = unwrap_targets(bboxes, labels, scales)
        if len(bboxes) != 1:
            raise ValueError(
                "FasterRCNNTrainChain: only batches of one image are supported, "
                f"got {len(bboxes)}"
            )
        _, _, H, W = imgs.shape
        img_size = (H, W)
        xp = self.xp

        model = self.faster_rcnn
        features = model.extractor(imgs)
        rpn_locs, rpn_scores, rois, _, anchor = model.rpn(features, img_size, scales)

        bbox, label = bboxes[0], labels[0]
        sample_roi, gt_roi_loc, gt_roi_label = self.proposal_target_creator(
            rois, bbox, label, self.loc_normalize_mean, self.loc_normalize_std
        )
        sample_roi_index = xp.zeros(len(sample_roi), dtype=numpy.int32)
        roi_cls_loc, roi_score = model.head(features, sample_roi, sample_roi_index)

        gt_rpn_loc, gt_rpn_label = self.anchor_target_creator(bbox, anchor, img_size)
        rpn_loc_loss = _fast_rcnn_loc_loss(
            rpn_locs[0], gt_rpn_loc, gt_rpn_label, self.rpn_sigma
        )
        rpn_cls_loss = F.softmax_cross_entropy(rpn_scores[0], gt_rpn_label)

        n_sample = roi_cls_loc.shape[0]
        roi_cls_loc = F.reshape(roi_cls_loc, (n_sample, -1, 4))
        roi_loc = roi_cls_loc[xp.arange(n_sample), gt_roi_label]
        roi_loc_loss = _fast_rcnn_loc_loss(
            roi_loc, gt_roi_loc, gt_roi_label, self.roi_sigma
        )
        roi_cls_loss = F.softmax_cross_entropy(roi_score, gt_roi_label)

        return report_losses(
            self, rpn_loc_loss, rpn_cls_loss, roi_loc_loss, roi_cls_loss
        )
