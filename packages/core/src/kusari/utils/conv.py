"""Convolution helpers under Chainer's names (``chainer.utils.conv``).

``im2col_cpu`` / ``col2im_cpu`` (and the ``_gpu`` forms, the same code on
CuPy arrays) lay out convolution patches as ``(n, c, kh, kw, out_h, out_w)``.

Example:
    >>> import numpy as np
    >>> from kusari.utils import conv
    >>> img = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> conv.im2col_cpu(img, 2, 2, 2, 2, 0, 0).shape
    (1, 1, 2, 2, 2, 2)
    >>> conv.get_conv_outsize(4, 2, 2, 0)
    2
"""

from __future__ import annotations

from typing import Any

from kusari.utils import conv_nd, get_conv_outsize, get_deconv_outsize

__all__ = [
    "col2im_cpu",
    "col2im_gpu",
    "get_conv_outsize",
    "get_deconv_outsize",
    "im2col_cpu",
    "im2col_gpu",
]


def _check_out(out_h: int, out_w: int) -> None:
    if out_h <= 0 or out_w <= 0:
        raise ValueError(
            f"im2col: the output would be empty ({out_h}x{out_w}); "
            "check ksize, stride and pad against the input size"
        )


def im2col_array(
    img: Any,
    kh: int,
    kw: int,
    sy: int,
    sx: int,
    ph: int,
    pw: int,
    cover_all: bool,
    dy: int,
    dx: int,
) -> Any:
    """Patches of ``img`` (n, c, h, w) as (n, c, kh, kw, out_h, out_w): the
    2-d case of :func:`kusari.utils.conv_nd.im2col_nd_cpu`."""
    h, w = img.shape[2:]
    _check_out(
        get_conv_outsize(h, kh, sy, ph, cover_all, dy),
        get_conv_outsize(w, kw, sx, pw, cover_all, dx),
    )
    return conv_nd.im2col_nd_cpu(
        img, (kh, kw), (sy, sx), (ph, pw), 0, cover_all, (dy, dx)
    )


def col2im_array(
    col: Any, sy: int, sx: int, ph: int, pw: int, h: int, w: int, dy: int, dx: int
) -> Any:
    """The adjoint of :func:`im2col_array`: sum patches back into an image
    (the 2-d case of :func:`kusari.utils.conv_nd.col2im_nd_cpu`)."""
    return conv_nd.col2im_nd_cpu(col, (sy, sx), (ph, pw), (h, w), (dy, dx))


def im2col_cpu(
    img: Any,
    kh: int,
    kw: int,
    sy: int,
    sx: int,
    ph: int,
    pw: int,
    pval: float = 0,
    cover_all: bool = False,
    dy: int = 1,
    dx: int = 1,
    out_h: int | None = None,
    out_w: int | None = None,
) -> Any:
    """Patches of ``img`` (n, c, h, w) as ``(n, c, kh, kw, out_h, out_w)``.

    ``pval`` fills the padding; ``out_h``/``out_w``, when given, must agree
    with the sizes the other arguments imply.
    """
    h, w = img.shape[2:]
    expect_h = get_conv_outsize(h, kh, sy, ph, cover_all, dy)
    expect_w = get_conv_outsize(w, kw, sx, pw, cover_all, dx)
    if (out_h is not None and out_h != expect_h) or (
        out_w is not None and out_w != expect_w
    ):
        raise ValueError(
            f"im2col: out_h/out_w ({out_h}, {out_w}) disagree with the input and "
            f"kernel settings, which give ({expect_h}, {expect_w})"
        )
    _check_out(expect_h, expect_w)
    return conv_nd.im2col_nd_cpu(
        img, (kh, kw), (sy, sx), (ph, pw), pval, cover_all, (dy, dx)
    )


def col2im_cpu(
    col: Any,
    sy: int,
    sx: int,
    ph: int,
    pw: int,
    h: int,
    w: int,
    dy: int = 1,
    dx: int = 1,
) -> Any:
    """Sum patches ``(n, c, kh, kw, out_h, out_w)`` back into ``(n, c, h, w)``
    (the adjoint of :func:`im2col_cpu`)."""
    return col2im_array(col, sy, sx, ph, pw, h, w, dy, dx)


# The same array-module-agnostic code runs on CuPy arrays.
im2col_gpu = im2col_cpu
col2im_gpu = col2im_cpu
