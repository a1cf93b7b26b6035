"""Target creators of Light-Head R-CNN."""

from kusari_cv.links.model.light_head_rcnn.utils.proposal_target_creator import (
    ProposalTargetCreator,
)

__all__ = ["ProposalTargetCreator"]
