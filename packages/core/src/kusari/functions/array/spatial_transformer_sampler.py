"""``spatial_transformer_sampler``: bilinear sampling of images at a grid."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.utils import type_check
from kusari.variable import Variable, as_variable


def _check(x: Any, grid: Any) -> None:
    problems = []
    if x.dtype.kind != "f":
        problems.append(("x.dtype.kind == 'f'", f"x.dtype == {x.dtype}"))
    if grid.dtype != x.dtype:
        problems.append(("grid.dtype == x.dtype", f"{grid.dtype} != {x.dtype}"))
    if x.ndim != 4:
        problems.append(("x.ndim == 4", f"{x.ndim} != 4"))
    if grid.ndim != 4:
        problems.append(("grid.ndim == 4", f"{grid.ndim} != 4"))
    elif grid.shape[1] != 2:
        problems.append(("grid.shape[1] == 2", f"{grid.shape[1]} != 2"))
    if x.ndim and grid.ndim and x.shape[0] != grid.shape[0]:
        problems.append(
            ("x.shape[0] == grid.shape[0]", f"{x.shape[0]} != {grid.shape[0]}")
        )
    if problems:
        expect, actual = problems[0]
        raise type_check.InvalidType(
            expect,
            actual,
            msg="\nInvalid operation is performed in: SpatialTransformerSampler "
            f"(Forward)\n\nExpect: {expect}\nActual: {actual}",
        )


def spatial_transformer_sampler(x: Any, grid: Any, **kwargs: Any) -> Variable:
    """Sample ``x`` bilinearly at the points of ``grid`` (spatial transformer).

    Points outside the image read zeros. The gradient with respect to the
    grid treats the clipping of far-outside points as the identity, as
    Chainer does.

    Args:
        x: Images of shape ``(n, c, h, w)``.
        grid: Coordinates of shape ``(n, 2, out_h, out_w)``, normalised to
            ``[-1, 1]``; channel 0 is x (width), channel 1 is y (height).

    Returns:
        Variable of shape ``(n, c, out_h, out_w)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
        >>> g = np.zeros((1, 2, 1, 1), np.float32)
        >>> F.spatial_transformer_sampler(x, g).array
        array([[[[1.5]]]], dtype=float32)
    """
    from kusari.functions.array.broadcast import broadcast_to
    from kusari.functions.array.get_item import get_item
    from kusari.functions.array.pad import pad
    from kusari.functions.array.reshape import reshape
    from kusari.functions.array.transpose import transpose

    if kwargs:
        if "use_cudnn" in kwargs:
            raise ValueError(
                "spatial_transformer_sampler: use_cudnn is not supported "
                "anymore; use kusari.using_config('use_cudnn', ...)"
            )
        raise TypeError(
            f"spatial_transformer_sampler: unexpected keyword arguments "
            f"{sorted(kwargs)}"
        )
    x = as_variable(x)
    grid = as_variable(grid)
    _check(x, grid)
    xp = backend.get_array_module(x.array)
    n, c, h, w = x.shape
    out_h, out_w = grid.shape[2:]
    dt = x.dtype

    # Pixel coordinates in the image padded by one zero pixel on each side.
    u = get_item(grid, (slice(None), 0)) * ((w - 1) / 2) + ((w - 1) / 2 + 1)
    v = get_item(grid, (slice(None), 1)) * ((h - 1) / 2) + ((h - 1) / 2 + 1)
    # Clip far-outside points (gradient passes through unchanged).
    u = u + (xp.clip(u.array, 0, w + 1) - u.array).astype(dt)
    v = v + (xp.clip(v.array, 0, h + 1) - v.array).astype(dt)
    u0 = xp.clip(xp.floor(u.array), 0, w).astype(numpy.intp)
    v0 = xp.clip(xp.floor(v.array), 0, h).astype(numpy.intp)
    u1, v1 = u0 + 1, v0 + 1
    du0 = u - u0.astype(dt)
    du1 = u1.astype(dt) - u
    dv0 = v - v0.astype(dt)
    dv1 = v1.astype(dt) - v

    x_pad = pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), "constant")
    flat = transpose(reshape(x_pad, (n, c, (h + 2) * (w + 2))), (0, 2, 1))
    batch = xp.arange(n)[:, None, None]
    y = None
    for vi, ui, wt in (
        (v0, u0, du1 * dv1),
        (v0, u1, du0 * dv1),
        (v1, u0, du1 * dv0),
        (v1, u1, du0 * dv0),
    ):
        taps = get_item(flat, (batch, vi * (w + 2) + ui))  # (n, oh, ow, c)
        wt4 = broadcast_to(reshape(wt, (n, out_h, out_w, 1)), taps.shape)
        term = wt4 * taps
        y = term if y is None else y + term
    assert y is not None
    return transpose(y, (0, 3, 1, 2))
