"""Box coding, anchors and target creators of Faster R-CNN."""

from kusari_cv.links.model.faster_rcnn.utils.anchor_target_creator import (
    AnchorTargetCreator,
)
from kusari_cv.links.model.faster_rcnn.utils.bbox2loc import bbox2loc
from kusari_cv.links.model.faster_rcnn.utils.generate_anchor_base import (
    generate_anchor_base,
)
from kusari_cv.links.model.faster_rcnn.utils.loc2bbox import loc2bbox
from kusari_cv.links.model.faster_rcnn.utils.proposal_creator import ProposalCreator
from kusari_cv.links.model.faster_rcnn.utils.proposal_target_creator import (
    ProposalTargetCreator,
)

__all__ = [
    "AnchorTargetCreator",
    "ProposalCreator",
    "ProposalTargetCreator",
    "bbox2loc",
    "generate_anchor_base",
    "loc2bbox",
]
