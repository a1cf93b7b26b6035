"""Shared machinery of the position-sensitive RoI functions.

Every one of them is, for fixed RoIs, a sparse linear map of ``x``: each output
element is a weighted sum of a few input elements ("taps"). The forward pass
builds the taps (flat input index and weight per output element) from the RoIs,
and for the max variants picks the winning taps from the data; the map and its
transpose are then two small FunctionNodes, each the other's gradient, so double
backprop works and the GPU runs the same array code.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy

import kusari
from kusari import backend
from kusari.utils import type_check
from kusari_cv._typing import Array


class _TapMap(kusari.FunctionNode):
    # The taps (idx, w) of shape (M, T) and the shapes of x and y; the map
    # and its transpose (each the other's gradient) keep them alike.
    def __init__(
        self,
        idx: Array,
        w: Array,
        in_shape: tuple[int, ...],
        out_shape: tuple[int, ...],
        name: str,
    ) -> None:
        self.idx, self.w = idx, w
        self.in_shape, self.out_shape = in_shape, out_shape
        self._name = name

    @property
    def label(self) -> str:
        return self._name


class _TapLinear(_TapMap):
    # y.flat[m] = sum_t w[m, t] * x.flat[idx[m, t]]
    def forward(self, inputs: tuple[Array, ...]) -> tuple[Array, ...]:
        (x,) = inputs
        y = (x.reshape(-1)[self.idx] * self.w).sum(axis=1)
        return (y.reshape(self.out_shape).astype(x.dtype, copy=False),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (gy,) = grad_outputs
        node = _TapLinearT(
            self.idx, self.w, self.in_shape, self.out_shape, self._name + "Grad"
        )
        return node.apply((gy,))


class _TapLinearT(_TapMap):
    # the transpose: gx.flat[idx[m, t]] += w[m, t] * gy.flat[m]
    def forward(self, inputs: tuple[Array, ...]) -> tuple[Array, ...]:
        (gy,) = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(math.prod(self.in_shape), dtype=gy.dtype)
        contrib = (self.w * gy.reshape(-1, 1)).astype(gy.dtype, copy=False)
        xp.add.at(gx, self.idx.reshape(-1), contrib.reshape(-1))
        return (gx.reshape(self.in_shape),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (ggx,) = grad_outputs
        node = _TapLinear(self.idx, self.w, self.in_shape, self.out_shape, self._name)
        return node.apply((ggx,))


class PSRoIFunction(kusari.FunctionNode):
    """Base of the four functions: subclasses build the taps in ``taps``."""

    fname = "ps_roi"

    def __init__(self, outsize: Any, spatial_scale: float, group_size: int) -> None:
        self.out_c, self.out_h, self.out_w = parse_outsize(self.fname, outsize)
        if not isinstance(group_size, int) or group_size < 1:
            raise TypeError(
                f"{self.fname}: group_size must be a positive int, got {group_size!r}"
            )
        self.spatial_scale = float(spatial_scale)
        self.group_size = group_size

    @property
    def label(self) -> str:
        return self.fname

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() == 3)
        x, rois, idx = in_types
        type_check.expect(
            x.dtype.kind == "f",
            x.ndim == 4,
            rois.dtype.kind == "f",
            rois.ndim == 2,
            rois.shape[1] == 4,
            idx.dtype.kind == "i",
            idx.ndim == 1,
            rois.shape[0] == idx.shape[0],
        )

    # (x, rois (float64), roi_indices (int64), out_c) -> (idx, w) of shape (M, T)
    taps: Callable[[Array, Array, Array, int], tuple[Array, Array]]

    def forward(self, inputs: tuple[Array, ...]) -> tuple[Array, ...]:
        x, rois, roi_indices = inputs
        _, C, _, _ = x.shape
        g2 = self.group_size * self.group_size
        if C % g2 != 0 or (self.out_c is not None and C != self.out_c * g2):
            expected = "a multiple of" if self.out_c is None else "equal to"
            want = g2 if self.out_c is None else self.out_c * g2
            raise ValueError(
                f"{self.fname}: the channels of x must be {expected} {want} "
                f"(outsize[0] * group_size ** 2), got {C}"
            )
        out_c = C // g2
        idx, w = self.taps(
            x, rois.astype(numpy.float64), roi_indices.astype(numpy.int64), out_c
        )
        out_shape = (len(rois), out_c, self.out_h, self.out_w)
        self._linear = _TapLinear(
            idx, w.astype(x.dtype), tuple(x.shape), out_shape, self.fname
        )
        return self._linear.forward((x,))

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        lin = self._linear
        node = _TapLinearT(
            lin.idx, lin.w, lin.in_shape, lin.out_shape, self.fname + "Grad"
        )
        return node.apply(grad_outputs) + (None, None)


def parse_outsize(fname: str, outsize: Any) -> tuple[int | None, int, int]:
    """``o``, ``(h, w)`` or ``(c, h, w)`` -> ``(c or None, h, w)``."""
    if isinstance(outsize, int):
        out = (None, outsize, outsize)
    elif isinstance(outsize, Sequence) and len(outsize) in (2, 3):
        out = (None, *outsize) if len(outsize) == 2 else tuple(outsize)
    else:
        raise TypeError(
            f"{fname}: outsize must be an int, (h, w) or (c, h, w), got {outsize!r}"
        )
    c, h, w = out
    for v in (h, w) + (() if c is None else (c,)):
        if not isinstance(v, int) or v < 1:
            raise TypeError(
                f"{fname}: outsize entries must be positive ints, got {outsize!r}"
            )
    return c, h, w


def flat_index(
    rois_idx: Array, c: Array, y: Array, x: Array, C: int, H: int, W: int
) -> Array:
    """Flat index of ``x[b, c, y, x]`` in an ``(N, C, H, W)`` array."""
    return ((rois_idx * C + c) * H + y) * W + x


def channel_index(xp: Any, out_c: int, out_h: int, out_w: int, g: int) -> Array:
    """Input channel of each output ``(c, ph, pw)``: ``(c * g + gh) * g + gw``."""
    gh = numpy.clip(numpy.floor(numpy.arange(out_h) * g / out_h), 0, g - 1)
    gw = numpy.clip(numpy.floor(numpy.arange(out_w) * g / out_w), 0, g - 1)
    c = (numpy.arange(out_c)[:, None, None] * g + gh[None, :, None]) * g
    return xp.asarray((c + gw[None, None, :]).astype(numpy.int64))


def bilinear_taps(
    xp: Any, y: Array, x: Array, H: int, W: int
) -> tuple[Array, Array, Array, Array]:
    """Corners and weights of bilinear sampling at ``(y, x)`` (same shape).

    Follows the RoIAlign convention: a point more than one pixel outside the
    map is invalid (weight 0); coordinates are clamped into the map.

    Returns:
        ``(ys, xs, ws, valid)`` with a trailing axis of 4 corners, and the
        point's validity.
    """
    valid = (y >= -1) & (y <= H) & (x >= -1) & (x <= W)
    y = xp.maximum(y, 0)
    x = xp.maximum(x, 0)
    y_low = xp.floor(y).astype(numpy.int64)
    x_low = xp.floor(x).astype(numpy.int64)
    top = y_low >= H - 1
    left = x_low >= W - 1
    y_low = xp.where(top, H - 1, y_low)
    x_low = xp.where(left, W - 1, x_low)
    y_high = xp.where(top, H - 1, y_low + 1)
    x_high = xp.where(left, W - 1, x_low + 1)
    ly = xp.where(top, 0.0, y - y_low)
    lx = xp.where(left, 0.0, x - x_low)
    hy, hx = 1 - ly, 1 - lx
    ys = xp.stack((y_low, y_low, y_high, y_high), axis=-1)
    xs = xp.stack((x_low, x_high, x_low, x_high), axis=-1)
    ws = xp.stack((hy * hx, hy * lx, ly * hx, ly * lx), axis=-1)
    ws = ws * valid[..., None]
    return ys, xs, ws, valid


def pick_max(
    xp: Any, x: Array, idx: Array, w: Array, valid: Array, group: int
) -> tuple[Array, Array]:
    """Keep, per output, the group of ``group`` taps with the largest value.

    ``idx`` / ``w`` are ``(M, S * group)``; ``valid`` is ``(M, S)``. Outputs
    with no valid group get zero weights (value 0).
    """
    M, S = valid.shape
    if M == 0:
        return idx[:, :group], w[:, :group]
    vals = (x.reshape(-1)[idx] * w.astype(x.dtype)).reshape(M, S, group).sum(axis=2)
    vals = xp.where(valid, vals, -xp.inf)
    best = vals.argmax(axis=1)
    rows = xp.arange(M)
    idx = idx.reshape(M, S, group)[rows, best]
    w = w.reshape(M, S, group)[rows, best] * valid[rows, best][:, None]
    return idx, w
