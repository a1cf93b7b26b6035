"""Model links (``chainercv.links.model``): one subpackage per architecture."""

from kusari_cv.links.model import (
    faster_rcnn,
    fpn,
    light_head_rcnn,
    mobilenet,
    ssd,
    yolo,
)
from kusari_cv.links.model.feature_predictor import FeaturePredictor
from kusari_cv.links.model.pickable_sequential_chain import (
    PickableSequentialChain,
)
from kusari_cv.links.model.pixelwise_softmax_classifier import (
    PixelwiseSoftmaxClassifier,
)

# Detection.
