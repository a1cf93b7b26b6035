"""Public names of kusari.links.connection (re-exported by kusari.links)."""

from kusari.links.connection.bias import Bias
from kusari.links.connection.bilinear import Bilinear
from kusari.links.connection.convolution_2d import Convolution2D
from kusari.links.connection.convolution_nd import (
    Convolution1D,
    Convolution3D,
    ConvolutionND,
)
from kusari.links.connection.deconvolution_2d import Deconvolution2D
from kusari.links.connection.deconvolution_nd import (
    Deconvolution1D,
    Deconvolution3D,
    DeconvolutionND,
)
from kusari.links.connection.deformable_convolution_2d import DeformableConvolution2D
from kusari.links.connection.depthwise_convolution_2d import DepthwiseConvolution2D
from kusari.links.connection.dilated_convolution_2d import DilatedConvolution2D
from kusari.links.connection.embed_id import EmbedID
from kusari.links.connection.highway import Highway
from kusari.links.connection.inception import Inception
from kusari.links.connection.inceptionbn import InceptionBN
from kusari.links.connection.linear import Linear
from kusari.links.connection.local_convolution_2d import LocalConvolution2D
from kusari.links.connection.mlp_convolution_2d import MLPConvolution2D
from kusari.links.connection.parameter import Parameter
from kusari.links.connection.scale import Scale

__all__ = [
    "Bias",
    "Bilinear",
    "Convolution1D",
    "Convolution2D",
    "Convolution3D",
    "ConvolutionND",
    "Deconvolution1D",
    "Deconvolution2D",
    "Deconvolution3D",
    "DeconvolutionND",
    "DeformableConvolution2D",
    "DepthwiseConvolution2D",
    "DilatedConvolution2D",
    "EmbedID",
    "Highway",
    "Inception",
    "InceptionBN",
    "Linear",
    "LocalConvolution2D",
    "MLPConvolution2D",
    "Parameter",
    "Scale",
]
