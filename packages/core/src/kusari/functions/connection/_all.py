"""Public names of kusari.functions.connection (re-exported by kusari.functions)."""

from kusari.functions.connection.bilinear import bilinear
from kusari.functions.connection.convolution_2d import convolution_2d
from kusari.functions.connection.convolution_nd import (
    convolution_1d,
    convolution_3d,
    convolution_nd,
)
from kusari.functions.connection.deconvolution_2d import deconvolution_2d
from kusari.functions.connection.deconvolution_nd import (
    deconvolution_1d,
    deconvolution_3d,
    deconvolution_nd,
)
from kusari.functions.connection.deformable_convolution_2d_sampler import (
    deformable_convolution_2d_sampler,
)
from kusari.functions.connection.depthwise_convolution_2d import (
    depthwise_convolution_2d,
)
from kusari.functions.connection.dilated_convolution_2d import dilated_convolution_2d
from kusari.functions.connection.embed_id import embed_id
from kusari.functions.connection.linear import linear
from kusari.functions.connection.local_convolution_2d import local_convolution_2d
from kusari.functions.connection.shift import shift

__all__ = [
    "bilinear",
    "convolution_1d",
    "convolution_2d",
    "convolution_3d",
    "convolution_nd",
    "deconvolution_1d",
    "deconvolution_2d",
    "deconvolution_3d",
    "deconvolution_nd",
    "deformable_convolution_2d_sampler",
    "depthwise_convolution_2d",
    "dilated_convolution_2d",
    "embed_id",
    "linear",
    "local_convolution_2d",
    "shift",
]
