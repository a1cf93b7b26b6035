"""MobileNetV2 and its TensorFlow-compatible building blocks."""

from kusari_cv.links.model.mobilenet.expanded_conv_2d import ExpandedConv2D
from kusari_cv.links.model.mobilenet.mobilenet_v2 import MobileNetV2
from kusari_cv.links.model.mobilenet.tf_conv_2d_bn_activ import TFConv2DBNActiv
from kusari_cv.links.model.mobilenet.tf_convolution_2d import TFConvolution2D
