"""Public names of kusari.functions.array (re-exported by kusari.functions)."""

from kusari.functions.array.as_strided import as_strided
from kusari.functions.array.broadcast import broadcast, broadcast_to
from kusari.functions.array.cast import cast
from kusari.functions.array.concat import concat
from kusari.functions.array.copy import copy
from kusari.functions.array.depth2space import depth2space
from kusari.functions.array.diagonal import diagonal
from kusari.functions.array.dstack import dstack
from kusari.functions.array.expand_dims import expand_dims
from kusari.functions.array.flatten import flatten
from kusari.functions.array.flip import flip
from kusari.functions.array.fliplr import fliplr
from kusari.functions.array.flipud import flipud
from kusari.functions.array.get_item import get_item
from kusari.functions.array.hstack import hstack
from kusari.functions.array.im2col import im2col
from kusari.functions.array.moveaxis import moveaxis
from kusari.functions.array.pad import pad
from kusari.functions.array.pad_sequence import pad_sequence
from kusari.functions.array.permutate import permutate
from kusari.functions.array.repeat import repeat
from kusari.functions.array.reshape import reshape
from kusari.functions.array.resize_images import resize_images
from kusari.functions.array.rollaxis import rollaxis
from kusari.functions.array.scatter_add import scatter_add
from kusari.functions.array.select_item import select_item
from kusari.functions.array.separate import separate
from kusari.functions.array.space2depth import space2depth
from kusari.functions.array.spatial_transformer_grid import spatial_transformer_grid
from kusari.functions.array.spatial_transformer_sampler import (
    spatial_transformer_sampler,
)
from kusari.functions.array.split_axis import split_axis
from kusari.functions.array.squeeze import squeeze
from kusari.functions.array.stack import stack
from kusari.functions.array.swapaxes import swapaxes
from kusari.functions.array.tile import tile
from kusari.functions.array.transpose import transpose
from kusari.functions.array.transpose_sequence import transpose_sequence
from kusari.functions.array.vstack import vstack
from kusari.functions.array.where import where

__all__ = [
    "as_strided",
    "broadcast",
    "broadcast_to",
    "cast",
    "concat",
    "copy",
    "depth2space",
    "diagonal",
    "dstack",
    "expand_dims",
    "flatten",
    "flip",
    "fliplr",
    "flipud",
    "get_item",
    "hstack",
    "im2col",
    "moveaxis",
    "pad",
    "pad_sequence",
    "permutate",
    "repeat",
    "reshape",
    "resize_images",
    "rollaxis",
    "scatter_add",
    "select_item",
    "separate",
    "space2depth",
    "spatial_transformer_grid",
    "spatial_transformer_sampler",
    "split_axis",
    "squeeze",
    "stack",
    "swapaxes",
    "tile",
    "transpose",
    "transpose_sequence",
    "vstack",
    "where",
]
