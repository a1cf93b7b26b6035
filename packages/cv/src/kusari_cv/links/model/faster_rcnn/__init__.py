"""Faster R-CNN: region proposals and RoI classification."""

from kusari_cv.links.model.faster_rcnn.faster_rcnn import FasterRCNN
from kusari_cv.links.model.faster_rcnn.faster_rcnn_train_chain import (
    FasterRCNNTrainChain,
)
from kusari_cv.links.model.faster_rcnn.faster_rcnn_vgg16 import (
    FasterRCNNVGG16,
    VGG16RoIHead,
)
from kusari_cv.links.model.faster_rcnn.region_proposal_network import (
    RegionProposalNetwork,
)
from kusari_cv.links.model.faster_rcnn.utils import (
    AnchorTargetCreator,
    ProposalCreator,
    ProposalTargetCreator,
    bbox2loc,
    generate_anchor_base,
    loc2bbox,
)

__all__ = [
    "AnchorTargetCreator",
    "FasterRCNN",
    "FasterRCNNTrainChain",
    "FasterRCNNVGG16",
    "ProposalCreator",
    "ProposalTargetCreator",
    "RegionProposalNetwork",
    "VGG16RoIHead",
    "bbox2loc",
    "generate_anchor_base",
    "loc2bbox",
]
