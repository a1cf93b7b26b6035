"""The base shared by the (de)convolution links."""

from __future__ import annotations

import numpy as np
import pytest

import kusari.links as L
from kusari.links.connection import _conv_link_base as base


@pytest.mark.parametrize(
    ("link", "w_shape"),
    [
        (L.Convolution2D(4, 6, 3, groups=2), (6, 2, 3, 3)),
        (L.Deconvolution2D(4, 6, (3, 2), groups=2), (4, 3, 3, 2)),
        (L.ConvolutionND(1, 4, 6, 3, groups=2), (6, 2, 3)),
        (L.DeconvolutionND(1, 4, 6, 3, groups=2), (4, 3, 3)),
    ],
)
def test_filter_layout_follows_the_direction(link, w_shape):
    assert isinstance(link, base.ConvolutionLinkBase)
    assert link.W.shape == w_shape
    assert link.b.shape == (6,)


@pytest.mark.parametrize(
    "make",
    [
        lambda: L.Convolution2D(5, 2),
        lambda: L.Deconvolution2D(5, 2),
        lambda: L.Convolution1D(5, 2),
        lambda: L.Deconvolution3D(5, 2),
    ],
)
def test_short_form_learns_in_channels_from_the_first_input(make):
    link = make()
    assert link.W.array is None and link.in_channels is None
    nd = 2 if "2D" in type(link).__name__ else int(type(link).__name__[-2])
    link(np.zeros((1, 3) + (4,) * nd, np.float32))
    assert link.in_channels == 3


def test_errors_name_the_link():
    with pytest.raises(ValueError, match="Deconvolution2D: out_channels and ksize"):
        L.Deconvolution2D(None, None, None)
    with pytest.raises(ValueError, match=r"ConvolutionND: ksize must have 2"):
        L.ConvolutionND(2, 1, 1, (1, 2, 3))
    with pytest.raises(ValueError, match="Convolution2D: the number of input"):
        L.Convolution2D(3, 4, 1, groups=2)
    with pytest.raises(ValueError, match="Convolution1D: groups must be positive"):
        L.Convolution1D(2, 2, 1, groups=0)
    with pytest.raises(ValueError, match=r"DeconvolutionND: initial_bias must have"):
        L.DeconvolutionND(1, 2, 3, 1, initial_bias=np.zeros(2, np.float32))


def test_repr_lists_the_extra_fields_in_place():
    specs = dict(L.Deconvolution2D(2, 3, 1).printable_specs)
    assert list(specs)[-3:] == ["outsize", "dilate", "groups"]
    specs = dict(L.Convolution3D(2, 3, 1).printable_specs)
    assert list(specs)[-3:] == ["cover_all", "dilate", "groups"]
