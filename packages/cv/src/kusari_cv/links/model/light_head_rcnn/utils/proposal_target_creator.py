"""Light-Head R-CNN's proposal sampling: by default every proposal is kept."""

from __future__ import annotations

from kusari_cv.links.model.faster_rcnn.utils.proposal_target_creator import (
    ProposalTargetCreator as _FasterRCNNProposalTargetCreator,
)


class ProposalTargetCreator(_FasterRCNNProposalTargetCreator):
    """Faster R-CNN's :class:`ProposalTargetCreator` with ``n_sample=-1``.

    With a non-positive ``n_sample`` all proposals (and the ground truths)
    are assigned targets; online hard example mining picks the ones that
    count afterwards.
    """

    def __init__(
        self,
        n_sample: int = -1,
        pos_ratio: float = 0.25,
        pos_iou_thresh: float = 0.5,
        neg_iou_thresh_hi: float = 0.5,
        neg_iou_thresh_lo: float = 0.0,
    ) -> None:
        super().__init__(
            n_sample, pos_ratio, pos_iou_thresh, neg_iou_thresh_hi, neg_iou_thresh_lo
        )
