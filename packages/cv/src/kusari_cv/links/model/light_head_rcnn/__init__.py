"""Light-Head R-CNN."""

from kusari_cv.links.model.light_head_rcnn.global_context_module import (
    GlobalContextModule,
)
from kusari_cv.links.model.light_head_rcnn.light_head_rcnn import LightHeadRCNN
from kusari_cv.links.model.light_head_rcnn.light_head_rcnn_resnet101 import (
    LightHeadRCNNResNet101,
)
from kusari_cv.links.model.light_head_rcnn.light_head_rcnn_train_chain import (
    LightHeadRCNNTrainChain,
)

__all__ = [
    "GlobalContextModule",
    "LightHeadRCNN",
    "LightHeadRCNNResNet101",
    "LightHeadRCNNTrainChain",
]
