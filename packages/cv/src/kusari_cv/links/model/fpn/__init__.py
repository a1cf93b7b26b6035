"""Feature Pyramid Network detectors: Faster R-CNN and Mask R-CNN with FPN."""

from kusari_cv.links.model.fpn.bbox_head import (
    BboxHead,
    bbox_head_loss_post,
    bbox_head_loss_pre,
)
from kusari_cv.links.model.fpn.faster_rcnn import FasterRCNN
from kusari_cv.links.model.fpn.faster_rcnn_fpn_resnet import (
    FasterRCNNFPNResNet,
    FasterRCNNFPNResNet50,
    FasterRCNNFPNResNet101,
    MaskRCNNFPNResNet,
    MaskRCNNFPNResNet50,
    MaskRCNNFPNResNet101,
)
from kusari_cv.links.model.fpn.fpn import FPN
from kusari_cv.links.model.fpn.mask_head import (
    MaskHead,
    mask_head_loss_post,
    mask_head_loss_pre,
)
from kusari_cv.links.model.fpn.mask_utils import mask_to_segm, segm_to_mask
from kusari_cv.links.model.fpn.rpn import RPN, rpn_loss

__all__ = [
    "FPN",
    "RPN",
    "BboxHead",
    "FasterRCNN",
    "FasterRCNNFPNResNet",
    "FasterRCNNFPNResNet50",
    "FasterRCNNFPNResNet101",
    "MaskHead",
    "MaskRCNNFPNResNet",
    "MaskRCNNFPNResNet50",
    "MaskRCNNFPNResNet101",
    "mask_head_loss_post",
    "mask_head_loss_pre",
    "mask_to_segm",
    "segm_to_mask",
    "bbox_head_loss_post",
    "bbox_head_loss_pre",
    "rpn_loss",
]
