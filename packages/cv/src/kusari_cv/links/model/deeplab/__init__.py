"""DeepLab v3+ for semantic segmentation."""

from kusari_cv.links.model.deeplab.aspp import SeparableASPP
from kusari_cv.links.model.deeplab.deeplab_v3_plus import (
    Decoder,
    DeepLabV3plus,
    DeepLabV3plusXception65,
)
from kusari_cv.links.model.deeplab.xception import (
    Xception65,
    XceptionBlock,
)
