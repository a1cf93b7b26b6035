"""kusari.utils.conv_nd: N-d patches and their adjoint."""

from __future__ import annotations

import numpy as np
import pytest

from kusari.utils import conv, conv_nd


def test_as_tuple():
    assert conv_nd.as_tuple(2, 3) == (2, 2, 2)
    assert conv_nd.as_tuple([1, 2], 2) == (1, 2)
    with pytest.raises(AssertionError, match="expected 3 values, got 1"):
        conv_nd.as_tuple((1,), 3)


@pytest.mark.parametrize("cover_all", [False, True])
@pytest.mark.parametrize("dilate", [1, 2])
def test_2d_case_matches_conv(cover_all, dilate):
    img = np.random.default_rng(0).standard_normal((2, 3, 7, 6)).astype(np.float32)
    col = conv_nd.im2col_nd_cpu(
        img, (3, 2), (2, 1), (1, 2), cover_all=cover_all, dilate=dilate
    )
    ref = conv.im2col_cpu(
        img, 3, 2, 2, 1, 1, 2, cover_all=cover_all, dy=dilate, dx=dilate
    )
    np.testing.assert_array_equal(col, ref)
    back = conv_nd.col2im_nd_cpu(col, (2, 1), (1, 2), (7, 6), dilate=dilate)
    ref_back = conv.col2im_cpu(ref, 2, 1, 1, 2, 7, 6, dy=dilate, dx=dilate)
    np.testing.assert_allclose(back, ref_back, rtol=1e-6)


def test_col2im_is_the_adjoint_in_3d():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 2, 5, 4, 3))
    args = ((2, 3, 1), (1, 2, 2), (1, 0, 1))
    col = conv_nd.im2col_nd_cpu(x, *args)
    assert col.shape == (1, 2, 2, 3, 1, 6, 1, 3)
    y = rng.standard_normal(col.shape)
    lhs = float((col * y).sum())
    rhs = float((x * conv_nd.col2im_nd_cpu(y, args[1], args[2], (5, 4, 3))).sum())
    assert lhs == pytest.approx(rhs, rel=1e-10)


def test_padding_value_and_rank_checks():
    img = np.ones((1, 1, 3), np.float32)
    col = conv_nd.im2col_nd_cpu(img, (2,), (1,), (1,), pval=-5)
    assert col[0, 0, 0, 0] == -5 and col[0, 0, 1, -1] == -5
    with pytest.raises(AssertionError):
        conv_nd.im2col_nd_cpu(img, (2, 2), (1,), (0,))
    with pytest.raises(AssertionError):
        conv_nd.col2im_nd_cpu(np.ones((1, 1, 2, 2)), (1,), (0,), (3, 3))
