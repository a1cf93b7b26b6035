"""Public names of kusari.functions.pooling (re-exported by kusari.functions)."""

from kusari.functions.pooling.average_pooling_2d import average_pooling_2d
from kusari.functions.pooling.average_pooling_nd import (
    average_pooling_1d,
    average_pooling_3d,
    average_pooling_nd,
)
from kusari.functions.pooling.max_pooling_2d import max_pooling_2d
from kusari.functions.pooling.max_pooling_nd import (
    max_pooling_1d,
    max_pooling_3d,
    max_pooling_nd,
)
from kusari.functions.pooling.unpooling_2d import unpooling_2d
from kusari.functions.pooling.unpooling_nd import unpooling_1d, unpooling_3d, unpooling_nd
from kusari.functions.pooling.upsampling_2d import upsampling_2d

__all__ = [
    "average_pooling_1d",
    "average_pooling_2d",
    "average_pooling_3d",
    "average_pooling_nd",
    "max_pooling_1d",
    "max_pooling_2d",
    "max_pooling_3d",
    "max_pooling_nd",
    "unpooling_1d",
    "unpooling_2d",
    "unpooling_3d",
    "unpooling_nd",
    "upsampling_2d",
]
