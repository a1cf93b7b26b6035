"""kusari.utils.conv: im2col/col2im in Chainer's layout, against loops."""

from __future__ import annotations

import numpy as np
import pytest

from kusari.utils import conv


def _im2col_loop(img, kh, kw, sy, sx, ph, pw, pval, cover_all, dy, dx):
    n, c, h, w = img.shape
    out_h = conv.get_conv_outsize(h, kh, sy, ph, cover_all, dy)
    out_w = conv.get_conv_outsize(w, kw, sx, pw, cover_all, dx)
    big = np.full(
        (n, c, h + 2 * ph + 2 * sy + kh * dy, w + 2 * pw + 2 * sx + kw * dx),
        pval,
        img.dtype,
    )
    big[:, :, ph : ph + h, pw : pw + w] = img
    col = np.empty((n, c, kh, kw, out_h, out_w), img.dtype)
    for i in range(kh):
        for j in range(kw):
            for y in range(out_h):
                for x in range(out_w):
                    col[:, :, i, j, y, x] = big[:, :, y * sy + i * dy, x * sx + j * dx]
    return col


@pytest.mark.parametrize(
    "kh, kw, sy, sx, ph, pw, pval, cover_all, dy, dx",
    [
        (3, 3, 1, 1, 1, 1, 0, False, 1, 1),
        (2, 3, 2, 1, 0, 2, 0, True, 1, 1),
        (3, 2, 2, 3, 1, 0, -1.5, False, 2, 1),
        (2, 2, 3, 3, 2, 1, 7.0, True, 1, 2),
    ],
)
def test_im2col_cpu_matches_loops_and_col2im_is_its_adjoint(
    kh, kw, sy, sx, ph, pw, pval, cover_all, dy, dx
):
    rng = np.random.default_rng(0)
    img = rng.standard_normal((2, 3, 7, 8))
    col = conv.im2col_cpu(img, kh, kw, sy, sx, ph, pw, pval, cover_all, dy, dx)
    expected = _im2col_loop(img, kh, kw, sy, sx, ph, pw, pval, cover_all, dy, dx)
    np.testing.assert_array_equal(col, expected)
    # <im2col(x), c> == <x, col2im(c)> for zero padding value.
    if pval == 0:
        c = rng.standard_normal(col.shape)
        back = conv.col2im_cpu(c, sy, sx, ph, pw, 7, 8, dy, dx)
        assert back.shape == img.shape
        np.testing.assert_allclose((col * c).sum(), (img * back).sum(), rtol=1e-10)


def test_im2col_rejects_inconsistent_out_size():
    with pytest.raises(ValueError, match="disagree"):
        conv.im2col_cpu(np.zeros((1, 1, 4, 4)), 2, 2, 2, 2, 0, 0, out_h=3)
    assert conv.im2col_gpu is conv.im2col_cpu
    assert conv.get_deconv_outsize(2, 2, 2, 0) == 4
