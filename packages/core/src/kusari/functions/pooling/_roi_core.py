"""Shared machinery of the RoI pooling family.

Every RoI function is, once the bins (and for max variants the argmax) are
known, a sparse linear map ``y.flat[dst] += w * x.flat[src]``.  The forward
builds the triplets ``(src, dst, w)`` with vectorised index arithmetic over
RoIs x bins x candidates (no loop over pixels), applies them with one
``bincount``, and :class:`SparseLinear` / :class:`SparseLinearT` give the
backward and double backward (each is the other's adjoint).
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check


def pair(v: Any, fname: str, argname: str) -> tuple[int, int]:
    if isinstance(v, (tuple, list)):
        a, b = v
    else:
        a = b = v
    for t in (a, b):
        if not (isinstance(t, (int, numpy.integer)) and t > 0):
            raise TypeError(
                f"{fname}: {argname} must be a positive int or a pair of "
                f"positive ints, got {v!r}"
            )
    return int(a), int(b)


def check_scale(spatial_scale: Any, fname: str) -> float:
    if isinstance(spatial_scale, (int, float, numpy.floating)) and spatial_scale > 0:
        return float(spatial_scale)
    raise TypeError(
        f"{fname}: spatial_scale must be a positive float, got {spatial_scale!r}"
    )


def apply_triplets(x: Any, src: Any, dst: Any, w: Any, size: int) -> Any:
    xp = backend.get_array_module(x)
    vals = x.reshape(-1)[src]
    if w is not None:
        vals = vals * w
    return xp.bincount(dst, weights=vals, minlength=size).astype(x.dtype, copy=False)


class SparseLinear(FunctionNode):
    """``y.flat[dst] += w * x.flat[src]`` with ``y`` of ``out_shape``."""

    def __init__(
        self,
        src: Any,
        dst: Any,
        w: Any,
        in_shape: tuple[int, ...],
        out_shape: tuple[int, ...],
        label: str,
    ) -> None:
        self.src, self.dst, self.w = src, dst, w
        self.in_shape, self.out_shape = in_shape, out_shape
        self._label = label

    @property
    def label(self) -> str:
        return self._label

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        size = 1
        for v in self.out_shape:
            size *= v
        return (
            apply_triplets(x, self.src, self.dst, self.w, size).reshape(self.out_shape),
        )

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return SparseLinear(
            self.dst,
            self.src,
            self.w,
            self.out_shape,
            self.in_shape,
            self._label + "Grad",
        ).apply(grad_outputs)


def roi_inputs_check(in_types: Any, n_cols: int, with_indices: bool) -> None:
    names = ("x", "rois", "roi_indices") if with_indices else ("x", "rois")
    type_check._argname(in_types, names)
    x, rois = in_types[0], in_types[1]
    type_check.expect(
        x.dtype.kind == "f",
        x.ndim == 4,
        rois.dtype.kind == "f",
        rois.ndim == 2,
        rois.shape[1] == n_cols,
    )
    if with_indices:
        idx = in_types[2]
        type_check.expect(
            idx.dtype.kind == "i", idx.ndim == 1, rois.shape[0] == idx.shape[0]
        )


class RoIFunction(FunctionNode):
    """Base: subclasses compute ``(src, dst, w)`` from the (host) inputs in
    :meth:`triplets`; forward applies them, backward is the adjoint map."""

    n_cols = 4
    with_indices = True
    outsize: tuple[int, int] = (1, 1)

    def check_type_forward(self, in_types: Any) -> None:
        roi_inputs_check(in_types, self.n_cols, self.with_indices)

    def triplets(self, x: Any, rois: Any, idx: Any) -> tuple[Any, Any, Any]:
        raise NotImplementedError

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        xp = backend.get_array_module(x)
        rois = inputs[1] if xp is numpy else inputs[1].get()
        if self.with_indices:
            idx = inputs[2] if xp is numpy else inputs[2].get()
        else:
            idx = rois[:, 0].astype(numpy.int64)
            rois = rois[:, 1:]
        x_host = x if xp is numpy else x.get()
        src, dst, w = self.triplets(
            x_host, numpy.asarray(rois, numpy.float64), numpy.asarray(idx, numpy.int64)
        )
        self._in_shape = tuple(x.shape)
        self._out_shape = (len(rois), x.shape[1]) + self.outsize
        if xp is not numpy:
            src, dst = xp.asarray(src), xp.asarray(dst)
            w = None if w is None else xp.asarray(w)
        self._t = (src, dst, w)
        size = 1
        for v in self._out_shape:
            size *= v
        return (apply_triplets(x, src, dst, w, size).reshape(self._out_shape),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        src, dst, w = self._t
        (gx,) = SparseLinear(
            dst, src, w, self._out_shape, self._in_shape, self.label + "Grad"
        ).apply(grad_outputs)
        return (gx,) + (None,) * (len(indexes) - 1)


# -- bins ----------------------------------------------------------------------
def _round_half_even(v: Any) -> Any:
    return numpy.round(v).astype(numpy.int64)


def int_bins(
    start: Any, end: Any, n_out: int, limit: int, plus_one: bool
) -> tuple[Any, Any]:
    """Integer bin bounds ``(lo, hi)`` of shape ``(R, n_out)`` (Fast R-CNN rule)."""
    length = end - start + (1 if plus_one else 0)
    length = numpy.maximum(length, 1)
    bin_size = length.astype(numpy.float64) / n_out
    p = numpy.arange(n_out)
    lo = numpy.floor(p[None, :] * bin_size[:, None]).astype(numpy.int64)
    hi = numpy.ceil((p[None, :] + 1) * bin_size[:, None]).astype(numpy.int64)
    lo = numpy.clip(lo + start[:, None], 0, limit)
    hi = numpy.clip(hi + start[:, None], 0, limit)
    return lo, hi


def bin_candidates(
    rois: Any,
    idx: Any,
    x_shape: tuple[int, ...],
    outsize: tuple[int, int],
    scale: float,
    plus_one: bool,
) -> tuple[Any, Any, Any]:
    """Every pixel of every bin: ``(pos, valid, count)``.

    ``pos`` (R, oh, ow, M) is the flat index of the pixel within image
    ``idx[r]`` (channel 0); ``valid`` marks real candidates; ``count`` is the
    number of pixels of each bin (R, oh, ow).
    """
    _, C, H, W = x_shape
    oh, ow = outsize
    r = _round_half_even(rois * scale)
    ylo, yhi = int_bins(r[:, 0], r[:, 2], oh, H, plus_one)
    xlo, xhi = int_bins(r[:, 1], r[:, 3], ow, W, plus_one)
    bh = int(max(1, (yhi - ylo).max(initial=1)))
    bw = int(max(1, (xhi - xlo).max(initial=1)))
    iy = ylo[:, :, None, None, None] + numpy.arange(bh)[:, None]  # R, oh, 1, bh, 1
    ix = xlo[:, None, :, None, None] + numpy.arange(bw)[None, :]  # R, 1, ow, 1, bw
    valid = (iy < yhi[:, :, None, None, None]) & (ix < xhi[:, None, :, None, None])
    pos = (
        idx[:, None, None, None, None] * C * H * W
        + numpy.minimum(iy, H - 1) * W
        + numpy.minimum(ix, W - 1)
    )
    pos, valid = numpy.broadcast_arrays(pos, valid)
    # The window size explicitly, not -1: with no RoIs the arrays are empty.
    R, M = len(rois), bh * bw
    count = valid.reshape(R, oh, ow, M).sum(-1)
    return pos.reshape(R, oh, ow, M), valid.reshape(R, oh, ow, M), count


def expand_channels(
    pos: Any, valid: Any, w: Any, C: int, HW: int
) -> tuple[Any, Any, Any]:
    """Triplets over all channels from per-plane candidates ``(R, oh, ow, M)``.

    ``pos`` holds flat positions for channel 0; ``w`` is None or broadcastable
    to ``pos``.
    """
    R, oh, ow, M = pos.shape
    sel = valid.reshape(-1)
    p = pos.reshape(-1)[sel]
    b = numpy.nonzero(sel)[0] // M  # flat (r, ph, pw)
    r, q = b // (oh * ow), b % (oh * ow)
    c = numpy.arange(C)[:, None]
    src = p[None, :] + c * HW
    dst = (r[None, :] * C + c) * (oh * ow) + q[None, :]
    ww = None
    if w is not None:
        ww = numpy.broadcast_to(
            numpy.broadcast_to(w, pos.shape).reshape(-1)[sel], src.shape
        )
    return src.ravel(), dst.ravel(), None if ww is None else ww.ravel()


def per_channel(pos: Any, C: int, HW: int) -> Any:
    """``(R, C, ...)`` positions from channel-0 positions ``(R, ...)``."""
    c = numpy.arange(C).reshape((1, C) + (1,) * (pos.ndim - 1)) * HW
    return pos[:, None] + c


def select_max(vals: Any, valid: Any, pos: Any, w: Any) -> tuple[Any, Any, Any]:
    """Triplets of a max over the candidate axis.

    ``vals``/``valid`` are (R, C, oh, ow, M); ``pos`` (and ``w``, or None) are
    (R, C, oh, ow, M, T): the ``T`` source terms of each candidate.  Outputs
    without a valid candidate get no triplet (they stay zero).
    """
    v = numpy.where(valid, vals, -numpy.inf)
    am = v.argmax(axis=-1)
    has = valid.any(axis=-1)
    take = am[..., None, None]
    psel = numpy.take_along_axis(pos, take, axis=-2)[..., 0, :]  # R, C, oh, ow, T
    dst = numpy.broadcast_to(
        numpy.arange(has.size).reshape(has.shape + (1,)), psel.shape
    )
    keep = numpy.broadcast_to(has[..., None], psel.shape)
    wsel = None
    if w is not None:
        wsel = numpy.take_along_axis(w, take, axis=-2)[..., 0, :][keep]
    return psel[keep], dst[keep], wsel


# -- RoIAlign sampling -----------------------------------------------------------
def align_samples(
    rois: Any,
    idx: Any,
    x_shape: tuple[int, ...],
    outsize: tuple[int, int],
    scale: float,
    sampling_ratio: Any,
) -> tuple[Any, Any, Any, Any]:
    """Bilinear sample points of RoIAlign (Caffe2 rules).

    Returns ``(pos, wts, ok, count)``: the 4 corner positions (flat, channel
    0) and weights of each sample point, shape (R, oh, ow, S, 4) with ``S``
    the largest sampling grid; ``ok`` (R, oh, ow, S) marks samples of the RoI's
    own grid that lie inside the image (weights of the others are zero);
    ``count`` (R,) is the grid size of each RoI (the averaging divisor).
    """
    _, C, H, W = x_shape
    oh, ow = outsize
    R = len(rois)
    start = rois * scale
    rh = numpy.maximum(start[:, 2] - start[:, 0], 1.0)
    rw = numpy.maximum(start[:, 3] - start[:, 1], 1.0)
    bin_h, bin_w = rh / oh, rw / ow
    # Per axis: a fixed grid, or None for the adaptive ceil(roi size / out).
    sr = (
        (None, None)
        if sampling_ratio is None
        else sampling_ratio
        if isinstance(sampling_ratio, (tuple, list))
        else (sampling_ratio, sampling_ratio)
    )
    if sr[0] is None:
        gh = numpy.ceil(rh / oh).astype(numpy.int64)
    else:
        gh = numpy.full(R, int(sr[0]), numpy.int64)
    if sr[1] is None:
        gw = numpy.ceil(rw / ow).astype(numpy.int64)
    else:
        gw = numpy.full(R, int(sr[1]), numpy.int64)
    gh = numpy.maximum(gh, 1)
    gw = numpy.maximum(gw, 1)
    Gh, Gw = int(gh.max(initial=1)), int(gw.max(initial=1))
    iy, ix = numpy.arange(Gh), numpy.arange(Gw)
    ph, pw = numpy.arange(oh), numpy.arange(ow)
    y = (
        start[:, 0, None, None]
        + ph[None, :, None] * bin_h[:, None, None]
        + (iy[None, None, :] + 0.5) * (bin_h / gh)[:, None, None]
    )  # R, oh, Gh
    x = (
        start[:, 1, None, None]
        + pw[None, :, None] * bin_w[:, None, None]
        + (ix[None, None, :] + 0.5) * (bin_w / gw)[:, None, None]
    )  # R, ow, Gw
    vy = iy[None, None, :] < gh[:, None, None]
    vx = ix[None, None, :] < gw[:, None, None]
    ylo, yhi, ly, oky = _axis_interp(y, H)
    xlo, xhi, lx, okx = _axis_interp(x, W)
    e = (slice(None), slice(None), None, slice(None), None)  # -> R, oh, 1, Gh, 1
    f = (slice(None), None, slice(None), None, slice(None))  # -> R, 1, ow, 1, Gw
    ok = (vy & oky)[e] & (vx & okx)[f]
    base = idx[:, None, None, None, None] * (C * H * W)
    pos = numpy.stack(
        [
            base + ylo[e] * W + xlo[f],
            base + ylo[e] * W + xhi[f],
            base + yhi[e] * W + xlo[f],
            base + yhi[e] * W + xhi[f],
        ],
        axis=-1,
    )
    hy, hx = 1.0 - ly, 1.0 - lx
    wts = (
        numpy.stack(
            [hy[e] * hx[f], hy[e] * lx[f], ly[e] * hx[f], ly[e] * lx[f]], axis=-1
        )
        * ok[..., None]
    )
    S = Gh * Gw
    shape5 = (R, oh, ow, S, 4)
    return (
        numpy.broadcast_to(pos, (R, oh, ow, Gh, Gw, 4)).reshape(shape5),
        numpy.broadcast_to(wts, (R, oh, ow, Gh, Gw, 4)).reshape(shape5),
        numpy.broadcast_to(ok, (R, oh, ow, Gh, Gw)).reshape(R, oh, ow, S),
        gh * gw,
    )


def _axis_interp(v: Any, size: int) -> tuple[Any, Any, Any, Any]:
    """Caffe2 RoIAlign rule along one axis: low/high index, fraction, in-range."""
    ok = (v >= -1.0) & (v <= size)
    v = numpy.maximum(v, 0.0)
    lo = numpy.floor(v).astype(numpy.int64)
    top = lo >= size - 1
    lo = numpy.where(top, size - 1, lo)
    hi = numpy.where(top, size - 1, lo + 1)
    v = numpy.where(top, lo.astype(numpy.float64), v)
    frac = v - lo
    return lo, hi, frac, ok
