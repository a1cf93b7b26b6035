"""Links (models and building blocks), with ChainerCV's ``chainercv.links`` names."""

from kusari_cv.links.connection import (
    Conv2DActiv,
    Conv2DBNActiv,
    SEBlock,
    SeparableConv2DBNActiv,
)
from kusari_cv.links.model.deeplab import DeepLabV3plusXception65
from kusari_cv.links.model.faster_rcnn import FasterRCNNVGG16
from kusari_cv.links.model.feature_predictor import FeaturePredictor
from kusari_cv.links.model.fpn import (
    FasterRCNNFPNResNet50,
    FasterRCNNFPNResNet101,
    MaskRCNNFPNResNet50,
    MaskRCNNFPNResNet101,
)
from kusari_cv.links.model.light_head_rcnn import LightHeadRCNNResNet101
from kusari_cv.links.model.mobilenet import MobileNetV2
from kusari_cv.links.model.pickable_sequential_chain import (
    PickableSequentialChain,
)
from kusari_cv.links.model.pixelwise_softmax_classifier import (
    PixelwiseSoftmaxClassifier,
)
from kusari_cv.links.model.pspnet import (
    PSPNetResNet50,
    PSPNetResNet101,
)
from kusari_cv.links.model.resnet import (
    ResNet50,
    ResNet101,
    ResNet152,
)
from kusari_cv.links.model.segnet import SegNetBasic
from kusari_cv.links.model.senet import (
    SEResNet50,
    SEResNet101,
    SEResNet152,
    SEResNeXt50,
    SEResNeXt101,
)
from kusari_cv.links.model.ssd import SSD300, SSD512
from kusari_cv.links.model.vgg import VGG16
from kusari_cv.links.model.yolo import YOLOv2, YOLOv2Tiny, YOLOv3

# Detection.
