"""Array-level kernels shared by the convolution family (N-d, device agnostic).

The forward of a convolution is ``im2col`` as one strided view of the padded
input followed by one batched GEMM; the transposed convolution (the input
gradient of a convolution) is one batched GEMM followed by ``col2im``, a
scatter-add with one vectorised add per kernel offset.  Work is split into
chunks of whole samples so that the column buffer stays cache sized.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy

# Target size of one column buffer (bytes); a chunk holds at least one sample.
_CHUNK_BYTES = 8 << 20


def as_tuple(value: Any, n: int, fname: str, argname: str) -> tuple[int, ...]:
    """``value`` as a tuple of ``n`` ints (an int is repeated)."""
    if isinstance(value, (int, numpy.integer)):
        return (int(value),) * n
    try:
        t = tuple(int(v) for v in value)
    except TypeError:
        raise TypeError(f"{fname}: {argname} must be an int or a tuple of {n} ints, "
                        f"got {value!r}") from None
    if len(t) != n:
        raise ValueError(f"{fname}: {argname} must have {n} elements, got {value!r}")
    return t


def compute_dtype(dtype: Any, xp: Any) -> Any:
    """float16 is computed in float32 on the CPU (no half GEMM in OpenBLAS)."""
    if dtype == numpy.float16 and xp is numpy:
        return numpy.dtype(numpy.float32)
    return dtype


def _as_strided(xp: Any) -> Any:
    return xp.lib.stride_tricks.as_strided


def pad_input(x: Any, lo: tuple[int, ...], hi: tuple[int, ...], value: float = 0.0,
              dtype: Any = None) -> Any:
    """Pad the spatial axes (2:) of ``x``; returns ``x`` itself when no padding."""
    if dtype is None:
        dtype = x.dtype
    if not any(lo) and not any(hi) and dtype == x.dtype:
        return x
    xp = _xp(x)
    shape = x.shape[:2] + tuple(s + a + b for s, a, b in zip(x.shape[2:], lo, hi))
    if value == 0:
        out = xp.zeros(shape, dtype=dtype)
    else:
        out = xp.full(shape, value, dtype=dtype)
    out[(slice(None), slice(None)) + tuple(slice(a, a + s) for a, s in
                                           zip(lo, x.shape[2:]))] = x
    return out


def _xp(x: Any) -> Any:
    return numpy if isinstance(x, numpy.ndarray) else _cupy()


def _cupy() -> Any:
    import cupy
    return cupy


def high_pad(size: tuple[int, ...], k: tuple[int, ...], s: tuple[int, ...],
             p: tuple[int, ...], d: tuple[int, ...], out: tuple[int, ...]) -> tuple[int, ...]:
    """Padding needed after the end so that ``out`` windows fit."""
    return tuple(max(0, (o - 1) * st + (kk - 1) * dd + 1 - n - pp)
                 for n, kk, st, pp, dd, o in zip(size, k, s, p, d, out))


def window_view(xpad: Any, k: tuple[int, ...], s: tuple[int, ...], d: tuple[int, ...],
                out: tuple[int, ...], kernel_first: bool = True) -> Any:
    """Strided view ``(N, C, *k, *out)`` (or ``(N, C, *out, *k)``) of ``xpad``."""
    st = xpad.strides
    ks = tuple(a * b for a, b in zip(st[2:], d))
    os_ = tuple(a * b for a, b in zip(st[2:], s))
    if kernel_first:
        shape = xpad.shape[:2] + k + out
        strides = st[:2] + ks + os_
    else:
        shape = xpad.shape[:2] + out + k
        strides = st[:2] + os_ + ks
    return _as_strided(_xp(xpad))(xpad, shape=shape, strides=strides)


def _chunk(per_sample_elems: int, itemsize: int, n: int) -> int:
    return max(1, min(n, _CHUNK_BYTES // max(1, per_sample_elems * itemsize)))


def _col_source(x: Any, k: tuple[int, ...], s: tuple[int, ...], p: tuple[int, ...],
                d: tuple[int, ...], out: tuple[int, ...]) -> tuple[Any, bool]:
    """Return (view (N, C, *k, *out), is_pointwise)."""
    if all(v == 1 for v in k) and all(v == 1 for v in s) and not any(p) \
            and tuple(x.shape[2:]) == out:
        return x, True
    hi = high_pad(x.shape[2:], k, s, p, d, out)
    xpad = pad_input(x, p, hi)
    return window_view(xpad, k, s, d, out), False


def conv_forward(x: Any, W: Any, b: Any, s: tuple[int, ...], p: tuple[int, ...],
                 d: tuple[int, ...], groups: int, out: tuple[int, ...]) -> Any:
    """``y[n, o] = sum_{c, k} W[o, c, k] x_pad[n, c, s*out + d*k] (+ b)``."""
    xp = _xp(x)
    N, C = x.shape[:2]
    O = W.shape[0]
    k = tuple(W.shape[2:])
    cdt = compute_dtype(x.dtype, xp)
    Cg, Og = C // groups, O // groups
    K = Cg
    for v in k:
        K *= v
    L = 1
    for v in out:
        L *= v
    W2 = xp.ascontiguousarray(W.reshape(groups, Og, K), dtype=cdt)
    y = xp.empty((N, groups, Og, L), dtype=cdt)
    src, pointwise = _col_source(x, k, s, p, d, out)
    if pointwise:
        xr = src.reshape(N, groups, K, L)
        if xr.dtype != cdt:
            xr = xr.astype(cdt)
        xp.matmul(W2, xr, out=y)
    else:
        n = _chunk(C * K // Cg * L, numpy.dtype(cdt).itemsize, N)
        buf = xp.empty((n,) + src.shape[1:], dtype=cdt)
        for i in range(0, N, n):
            m = min(n, N - i)
            bm = buf[:m]
            bm[...] = src[i:i + m]
            xp.matmul(W2, bm.reshape(m, groups, K, L), out=y[i:i + m])
    y = y.reshape((N, O) + out)
    if b is not None:
        y += b.reshape((1, O) + (1,) * len(out)).astype(cdt, copy=False)
    if y.dtype != x.dtype:
        y = y.astype(x.dtype)
    return y


def conv_grad_weight(x: Any, gy: Any, w_shape: tuple[int, ...], s: tuple[int, ...],
                     p: tuple[int, ...], d: tuple[int, ...], groups: int) -> Any:
    """``gW[o, c, k] = sum_{n, out} gy[n, o, out] x_pad[n, c, s*out + d*k]``."""
    xp = _xp(x)
    N, C = x.shape[:2]
    O = gy.shape[1]
    k = tuple(w_shape[2:])
    out = tuple(gy.shape[2:])
    cdt = compute_dtype(x.dtype, xp)
    Cg, Og = C // groups, O // groups
    K = Cg
    for v in k:
        K *= v
    L = 1
    for v in out:
        L *= v
    gy4 = gy.reshape(N, groups, Og, L)
    if gy4.dtype != cdt:
        gy4 = gy4.astype(cdt)
    src, pointwise = _col_source(x, k, s, p, d, out)
    if pointwise:
        xr = src.reshape(N, groups, K, L)
        if xr.dtype != cdt:
            xr = xr.astype(cdt)
        if groups == 1 and N > 1:
            gW = xp.tensordot(gy4[:, 0], xr[:, 0], axes=([0, 2], [0, 2]))[None]
        else:
            gW = xp.matmul(gy4, xr.swapaxes(-1, -2)).sum(axis=0)
    else:
        n = _chunk(C * K // Cg * L, numpy.dtype(cdt).itemsize, N)
        buf = xp.empty((n,) + src.shape[1:], dtype=cdt)
        gW = None
        for i in range(0, N, n):
            m = min(n, N - i)
            bm = buf[:m]
            bm[...] = src[i:i + m]
            part = xp.matmul(gy4[i:i + m], bm.reshape(m, groups, K, L).swapaxes(-1, -2))
            part = part.sum(axis=0) if m > 1 else part[0]
            if gW is None:
                gW = part
            else:
                gW += part
    return gW.reshape(w_shape).astype(x.dtype, copy=False)


def col2im_add(col: Any, ypad: Any, k: tuple[int, ...], s: tuple[int, ...],
               d: tuple[int, ...], insz: tuple[int, ...]) -> None:
    """``ypad[:, :, s*i + d*kk] += col[:, :, kk, i]`` (one add per kernel offset)."""
    nd = len(k)
    lead = (slice(None), slice(None))
    for off in itertools.product(*[range(v) for v in k]):
        sl = tuple(slice(o * dd, o * dd + (n - 1) * st + 1, st)
                   for o, dd, n, st in zip(off, d, insz, s))
        ypad[lead + sl] += col[lead + off + (slice(None),) * nd]


def deconv_forward(x: Any, W: Any, b: Any, s: tuple[int, ...], p: tuple[int, ...],
                   d: tuple[int, ...], groups: int, out: tuple[int, ...]) -> Any:
    """Transposed convolution: ``col = W^T x`` then ``col2im`` into ``out``."""
    xp = _xp(x)
    N, Cin = x.shape[:2]
    insz = tuple(x.shape[2:])
    k = tuple(W.shape[2:])
    Coutg = W.shape[1]
    Cout = Coutg * groups
    Cing = Cin // groups
    cdt = compute_dtype(x.dtype, xp)
    Kk = 1
    for v in k:
        Kk *= v
    Lin = 1
    for v in insz:
        Lin *= v
    W2 = xp.ascontiguousarray(W.reshape(groups, Cing, Coutg * Kk).swapaxes(1, 2),
                              dtype=cdt)
    x4 = x.reshape(N, groups, Cing, Lin)
    pointwise = all(v == 1 for v in k) and all(v == 1 for v in s) and not any(p) \
        and insz == out
    if pointwise:
        if x4.dtype != cdt:
            x4 = x4.astype(cdt)
        y = xp.matmul(W2, x4).reshape((N, Cout) + out)
    else:
        # Padded output region that every window write lands in.
        P = tuple(max(o + 2 * pp, (n - 1) * st + (kk - 1) * dd + 1)
                  for o, pp, n, st, kk, dd in zip(out, p, insz, s, k, d))
        y = xp.empty((N, Cout) + out, dtype=cdt)
        n = _chunk(Cout * Kk * Lin, numpy.dtype(cdt).itemsize, N)
        ypad = xp.empty((n, Cout) + P, dtype=cdt)
        crop = tuple(slice(pp, pp + o) for pp, o in zip(p, out))
        for i in range(0, N, n):
            m = min(n, N - i)
            col = xp.matmul(W2, x4[i:i + m].astype(cdt, copy=False))
            col = col.reshape((m, Cout) + k + insz)
            yp = ypad[:m]
            yp.fill(0)
            col2im_add(col, yp, k, s, d, insz)
            y[i:i + m] = yp[(slice(None), slice(None)) + crop]
    if b is not None:
        y += b.reshape((1, Cout) + (1,) * len(out)).astype(cdt, copy=False)
    if y.dtype != x.dtype:
        y = y.astype(x.dtype)
    return y
