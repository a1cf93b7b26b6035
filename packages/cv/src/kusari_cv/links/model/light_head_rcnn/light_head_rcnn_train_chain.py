"""Losses of Light-Head R-CNN, with online hard example mining in the head."""

from __future__ import annotations

from typing import Any

import numpy

import kusari
import kusari.functions as F
from kusari import backend
from kusari.backends import cuda
from kusari_cv._typing import Array
from kusari_cv.links.model.faster_rcnn.faster_rcnn_train_chain import (
    n_sampled,
    report_losses,
    smooth_l1,
    unwrap_targets,
)
from kusari_cv.links.model.faster_rcnn.utils.anchor_target_creator import (
    AnchorTargetCreator,
)
from kusari_cv.links.model.light_head_rcnn.light_head_rcnn import LightHeadRCNN
from kusari_cv.links.model.light_head_rcnn.utils.proposal_target_creator import (
    ProposalTargetCreator,
)


def _loc_loss(pred: Any, gt: Array, label: Array, sigma: float, mean: bool) -> Any:
    # only foregrounds are localized
    loss = F.sum(smooth_l1(pred, gt, label, sigma), axis=1)
    if mean:
        return F.sum(loss) / n_sampled(label)
    return loss


def _ohem_loss(
    roi_cls_locs: Any,
    roi_scores: Any,
    gt_roi_locs: Array,
    gt_roi_labels: Array,
    n_ohem_sample: int,
    roi_sigma: float = 1.0,
) -> tuple[Any, Any]:
    # keep the n_ohem_sample RoIs with the largest loc + cls loss
    xp = backend.get_array_module(gt_roi_locs)
    n_sample = roi_cls_locs.shape[0]
    roi_cls_locs = F.reshape(roi_cls_locs, (n_sample, -1, 4))
    roi_locs = roi_cls_locs[xp.arange(n_sample), gt_roi_labels]
    loc_loss = _loc_loss(roi_locs, gt_roi_locs, gt_roi_labels, roi_sigma, mean=False)
    cls_loss = F.softmax_cross_entropy(roi_scores, gt_roi_labels, reduce="no")
    n_ohem_sample = min(n_ohem_sample, n_sample)
    total = cuda.to_cpu(loc_loss.array + cls_loss.array)
    keep = xp.asarray(numpy.argsort(-total, kind="stable")[:n_ohem_sample])
    return (
        F.sum(loc_loss[keep]) / n_ohem_sample,
        F.sum(cls_loss[keep]) / n_ohem_sample,
    )


class LightHeadRCNNTrainChain(kusari.Chain):
    """Wrap a :class:`LightHeadRCNN` to return its training loss.

    RPN losses as in Faster R-CNN; the head is trained on the
    ``n_ohem_sample`` (per image) RoIs with the largest loss, its
    localization loss doubled. Reports ``rpn_loc_loss``, ``rpn_cls_loss``,
    ``roi_loc_loss``, ``roi_cls_loss`` and ``loss``.

    Args:
        light_head_rcnn: The model to train.
        rpn_sigma: Sigma of the RPN's smooth L1 loss.
        roi_sigma: Sigma of the head's smooth L1 loss.
        n_ohem_sample: Hard RoIs kept per image.
        anchor_target_creator: Makes the RPN's targets.
        proposal_target_creator: Assigns the head's targets.
    """

    def __init__(
        self,
        light_head_rcnn: LightHeadRCNN,
        rpn_sigma: float = 3.0,
        roi_sigma: float = 1.0,
        n_ohem_sample: int = 256,
        anchor_target_creator: AnchorTargetCreator | None = None,
        proposal_target_creator: ProposalTargetCreator | None = None,
    ) -> None:
        super().__init__()
        with self.init_scope():
            self.light_head_rcnn = light_head_rcnn
        self.rpn_sigma = rpn_sigma
        self.roi_sigma = roi_sigma
        self.n_ohem_sample = n_ohem_sample
        self.anchor_target_creator = anchor_target_creator or AnchorTargetCreator()
        self.proposal_target_creator = (
            proposal_target_creator or ProposalTargetCreator()
        )
        self.loc_normalize_mean = light_head_rcnn.loc_normalize_mean
        self.loc_normalize_std = light_head_rcnn.loc_normalize_std

    def forward(self, imgs: Any, bboxes: Any, labels: Any, scales: Any) -> Any:
        """Loss of a batch of prepared images (boxes per image may differ
        when given as lists)."""
        bboxes, labels, scales = unwrap_targets(bboxes, labels, scales)
        batch_size, _, H, W = imgs.shape
        img_size = (H, W)
        xp = self.xp
        model = self.light_head_rcnn

        rpn_features, roi_features = model.extractor(imgs)
        rpn_locs, rpn_scores, rois, roi_indices, anchor = model.rpn(
            rpn_features, img_size, scales
        )
        rpn_locs = F.reshape(rpn_locs, (-1, 4))
        rpn_scores = F.reshape(rpn_scores, (-1, 2))

        gt_rpn_locs, gt_rpn_labels = [], []
        sample_rois, sample_indices, gt_roi_locs, gt_roi_labels = [], [], [], []
        for i, (bbox, label) in enumerate(zip(bboxes, labels)):
            loc, lbl = self.anchor_target_creator(bbox, anchor, img_size)
            gt_rpn_locs.append(xp.asarray(loc))
            gt_rpn_labels.append(xp.asarray(lbl))
            roi, roi_loc, roi_label = self.proposal_target_creator(
                rois[roi_indices == i],
                bbox,
                label,
                self.loc_normalize_mean,
                self.loc_normalize_std,
            )
            sample_rois.append(roi)
            sample_indices.append(xp.full(len(roi), i, dtype=numpy.int32))
            gt_roi_locs.append(roi_loc)
            gt_roi_labels.append(roi_label)

        roi_cls_locs, roi_scores = model.head(
            roi_features, xp.concatenate(sample_rois), xp.concatenate(sample_indices)
        )
        gt_rpn_label = xp.concatenate(gt_rpn_labels)
        rpn_loc_loss = _loc_loss(
            rpn_locs, xp.concatenate(gt_rpn_locs), gt_rpn_label, self.rpn_sigma, True
        )
        rpn_cls_loss = F.softmax_cross_entropy(rpn_scores, gt_rpn_label)
        roi_loc_loss, roi_cls_loss = _ohem_loss(
            roi_cls_locs,
            roi_scores,
            xp.concatenate(gt_roi_locs),
            xp.concatenate(gt_roi_labels),
            self.n_ohem_sample * batch_size,
            self.roi_sigma,
        )
        roi_loc_loss = 2 * roi_loc_loss

        return report_losses(
            self, rpn_loc_loss, rpn_cls_loss, roi_loc_loss, roi_cls_loss
        )
