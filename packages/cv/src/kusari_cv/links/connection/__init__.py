"""Convolution building blocks shared by the models."""

from kusari_cv.links.connection.conv_2d_activ import Conv2DActiv
from kusari_cv.links.connection.conv_2d_bn_activ import Conv2DBNActiv
from kusari_cv.links.connection.seblock import SEBlock
from kusari_cv.links.connection.separable_conv_2d_bn_activ import (
    SeparableConv2DBNActiv,
)
