"""2-d max pooling on CuPy: one kernel forward, one gather kernel backward.

The device-agnostic path takes one pass over memory per kernel offset; on a
GPU one thread per output walks its window instead, and the backward is a
gather (each input element sums the gradients of the windows whose argmax it
is), so it needs neither atomics nor a zero-filled buffer. Semantics match
the generic path: padding never wins, the first maximum in row-major window
order is the argmax, and the argmax is stored as the offset in the window.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari.backends import cuda

_GEOMETRY = (
    "int32 H, int32 W, int32 kh, int32 kw, int32 sy, int32 sx, "
    "int32 ph, int32 pw, int32 oh, int32 ow"
)

_FORWARD = """
    ptrdiff_t t = i;
    const int ox = t % ow; t /= ow;
    const int oy = t % oh;
    const ptrdiff_t plane = (t / oh) * H * W;
    const int y0 = oy * sy - ph;
    const int x0 = ox * sx - pw;
    T best = neg_inf;
    int arg = 0;
    bool found = false;
    for (int ky = 0; ky < kh; ++ky) {
        const int iy = y0 + ky;
        if (iy < 0 || iy >= H) continue;
        for (int kx = 0; kx < kw; ++kx) {
            const int ix = x0 + kx;
            if (ix < 0 || ix >= W) continue;
            const T v = x[plane + (ptrdiff_t)iy * W + ix];
            if (!found || v > best) {
                best = v;
                arg = ky * kw + kx;
                found = true;
            }
        }
    }
    y = best;
    idx = (I)arg;
"""

_BACKWARD = """
    ptrdiff_t t = i;
    const int ix = t % W; t /= W;
    const int iy = t % H;
    const ptrdiff_t plane = (t / H) * oh * ow;
    const int py = iy + ph;
    const int px = ix + pw;
    // windows oy with oy*sy <= py < oy*sy + kh, likewise for x
    const int oy_lo = py < kh ? 0 : (py - kh) / sy + 1;
    const int oy_hi = min(oh - 1, py / sy);
    const int ox_lo = px < kw ? 0 : (px - kw) / sx + 1;
    const int ox_hi = min(ow - 1, px / sx);
    T acc = (T)0;
    for (int oy = oy_lo; oy <= oy_hi; ++oy) {
        for (int ox = ox_lo; ox <= ox_hi; ++ox) {
            const ptrdiff_t o = plane + (ptrdiff_t)oy * ow + ox;
            if ((int)idx[o] == (py - oy * sy) * kw + (px - ox * sx)) acc += gy[o];
        }
    }
    gx = acc;
"""


def _geometry(pp: Any, insz: tuple[int, ...], out: tuple[int, ...]) -> tuple[int, ...]:
    return (
        insz[0],
        insz[1],
        pp.k[0],
        pp.k[1],
        pp.s[0],
        pp.s[1],
        pp.p[0],
        pp.p[1],
        out[0],
        out[1],
    )


def max_pool(x: Any, pp: Any, out: tuple[int, ...], idx_dtype: Any) -> tuple[Any, Any]:
    """Window maxima ``(N, C, *out)`` and their in-window argmax."""
    cupy = cuda.cupy
    x = cupy.ascontiguousarray(x)
    N, C = x.shape[:2]
    y = cupy.empty((N, C) + out, dtype=x.dtype)
    idx = cupy.empty((N, C) + out, dtype=idx_dtype)
    cuda.elementwise(
        "raw T x, T neg_inf, " + _GEOMETRY,
        "T y, I idx",
        _FORWARD,
        "kusari_max_pool_2d_fwd",
    )(x, x.dtype.type(-numpy.inf), *_geometry(pp, tuple(x.shape[2:]), out), y, idx)
    return y, idx


def scatter_at_argmax(idx: Any, gy: Any, pp: Any, insz: tuple[int, ...]) -> Any:
    """``gx (N, C, *insz)`` with each ``gy`` added at its window's argmax."""
    cupy = cuda.cupy
    gy = cupy.ascontiguousarray(gy)
    idx = cupy.ascontiguousarray(idx)
    N, C = gy.shape[:2]
    out = tuple(gy.shape[2:])
    gx = cupy.empty((N, C) + insz, dtype=gy.dtype)
    cuda.elementwise(
        "raw T gy, raw I idx, " + _GEOMETRY,
        "T gx",
        _BACKWARD,
        "kusari_max_pool_2d_bwd",
    )(gy, idx, *_geometry(pp, insz, out), gx)
    return gx
