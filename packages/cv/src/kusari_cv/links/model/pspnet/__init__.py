"""PSPNet (pyramid scene parsing) for semantic segmentation."""

from kusari_cv.links.model.pspnet.pspnet import (
    DilatedResNet,
    PSPNet,
    PSPNetResNet50,
    PSPNetResNet101,
    PyramidPoolingModule,
)
from kusari_cv.links.model.pspnet.transforms import convolution_crop
