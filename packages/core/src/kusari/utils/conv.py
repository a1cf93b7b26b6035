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

import numpy

from kusari import backend
from kusari.utils import get_conv_outsize, get_deconv_outsize

__all__ = [
    "col2im_cpu",
    "col2im_gpu",
    "get_conv_outsize",
    "get_deconv_outsize",
    "im2col_cpu",
    "im2col_gpu",
]


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
    """Patches of ``img`` (n, c, h, w) as (n, c, kh, kw, out_h, out_w)."""
    xp = backend.get_array_module(img)
    n, c, h, w = img.shape
    out_h = get_conv_outsize(h, kh, sy, ph, cover_all, dy)
    out_w = get_conv_outsize(w, kw, sx, pw, cover_all, dx)
    if out_h <= 0 or out_w <= 0:
        raise ValueError(
            f"im2col: the output would be empty ({out_h}x{out_w}); "
            "check ksize, stride and pad against the input size"
        )
    # Bottom/right padding large enough for every strided window (cover_all
    # may read past the normal padding).
    ph2 = max(ph, sy * (out_h - 1) + dy * (kh - 1) - h - ph + 1)
    pw2 = max(pw, sx * (out_w - 1) + dx * (kw - 1) - w - pw + 1)
    padded = xp.pad(img, ((0, 0), (0, 0), (ph, ph2), (pw, pw2)))
    s = padded.strides
    view = xp.lib.stride_tricks.as_strided(
        padded,
        (n, c, kh, kw, out_h, out_w),
        (s[0], s[1], s[2] * dy, s[3] * dx, s[2] * sy, s[3] * sx),
    )
    return xp.ascontiguousarray(view)


def col2im_array(
    col: Any, sy: int, sx: int, ph: int, pw: int, h: int, w: int, dy: int, dx: int
) -> Any:
    """The adjoint of :func:`im2col_array`: sum patches back into an image."""
    xp = backend.get_array_module(col)
    n, c, kh, kw, out_h, out_w = col.shape
    hp = max(h + 2 * ph, sy * (out_h - 1) + dy * (kh - 1) + 1)
    wp = max(w + 2 * pw, sx * (out_w - 1) + dx * (kw - 1) + 1)
    iy = (xp.arange(kh) * dy)[:, None, None, None] + (xp.arange(out_h) * sy)[
        None, None, :, None
    ]
    ix = (xp.arange(kw) * dx)[None, :, None, None] + (xp.arange(out_w) * sx)[
        None, None, None, :
    ]
    base = xp.arange(n * c) * (hp * wp)
    index = (iy * wp + ix)[None] + base[:, None, None, None, None]
    # One vectorised scatter-add (bincount) over every kernel offset at once,
    # accumulated in float64.
    flat = xp.bincount(
        index.ravel(),
        weights=col.reshape(n * c, kh, kw, out_h, out_w).ravel().astype(numpy.float64),
        minlength=n * c * hp * wp,
    ).astype(col.dtype, copy=False)
    return flat.reshape(n, c, hp, wp)[:, :, ph : ph + h, pw : pw + w]


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
    n, c, h, w = img.shape
    expect_h = get_conv_outsize(h, kh, sy, ph, cover_all, dy)
    expect_w = get_conv_outsize(w, kw, sx, pw, cover_all, dx)
    if (out_h is not None and out_h != expect_h) or (
        out_w is not None and out_w != expect_w
    ):
        raise ValueError(
            f"im2col: out_h/out_w ({out_h}, {out_w}) disagree with the input and "
            f"kernel settings, which give ({expect_h}, {expect_w})"
        )
    if pval == 0:
        return im2col_array(img, kh, kw, sy, sx, ph, pw, cover_all, dy, dx)
    # A non-zero fill: pad by hand with it, then take patches without padding.
    xp = backend.get_array_module(img)
    extra_h = max(0, sy * (expect_h - 1) + dy * (kh - 1) + 1 - (h + 2 * ph))
    extra_w = max(0, sx * (expect_w - 1) + dx * (kw - 1) + 1 - (w + 2 * pw))
    padded = xp.pad(
        img,
        ((0, 0), (0, 0), (ph, ph + extra_h), (pw, pw + extra_w)),
        constant_values=pval,
    )
    col = im2col_array(padded, kh, kw, sy, sx, 0, 0, cover_all, dy, dx)
    return col[:, :, :, :, :expect_h, :expect_w]


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
