"""2-d convolution on CuPy: im2col and col2im as one kernel each, plus GEMMs.

CuPy 14 has no cuDNN. The device-agnostic path in ``_conv_core`` builds the
columns from strided views (a padded copy, then a transposing copy) and
scatters them back with one strided add per kernel offset; on a GPU each of
those is a full pass over memory. Here every column element is written by
one thread straight from the unpadded input (padding is a bounds test), and
``col2im`` is a gather: each output element sums its own contributions, so
there are no atomics and no zero-fill. N-d convolutions keep the generic
path.

Layouts: columns are ``(C, kh, kw, N, oh, ow)`` so that one batched GEMM
per group covers the whole batch (chunked only when the columns would pass
``_GPU_COL_BYTES``).
"""

from __future__ import annotations

from typing import Any

from kusari.backends import cuda

# Bound on one column buffer; larger batches are processed in chunks.
_GPU_COL_BYTES = 1 << 30

_IM2COL = """
    ptrdiff_t t = i;
    const int ox = t % ow; t /= ow;
    const int oy = t % oh; t /= oh;
    const int n = t % N; t /= N;
    const int kx = t % kw; t /= kw;
    const int ky = t % kh;
    const int c = t / kh;
    const int iy = oy * sy - ph + ky * dy;
    const int ix = ox * sx - pw + kx * dx;
    col = (iy >= 0 && iy < H && ix >= 0 && ix < W)
        ? (U)x[((ptrdiff_t)(n0 + n) * C + c) * H * W + (ptrdiff_t)iy * W + ix]
        : (U)0;
"""

_COL2IM = """
    ptrdiff_t t = i;
    const int X = t % W; t /= W;
    const int Y = t % H; t /= H;
    const int c = t % C;
    const int n = t / C;
    T acc = (T)0;
    for (int ky = 0; ky < kh; ++ky) {
        const int ynum = Y + ph - ky * dy;
        if (ynum < 0 || ynum % sy != 0) continue;
        const int iy = ynum / sy;
        if (iy >= h) continue;
        for (int kx = 0; kx < kw; ++kx) {
            const int xnum = X + pw - kx * dx;
            if (xnum < 0 || xnum % sx != 0) continue;
            const int ix = xnum / sx;
            if (ix >= w) continue;
            acc += col[((((ptrdiff_t)c * kh + ky) * kw + kx) * N + n) * h * w
                       + (ptrdiff_t)iy * w + ix];
        }
    }
    y = acc;
"""

_SIZES = (
    "int32 C, int32 H, int32 W, int32 kh, int32 kw, int32 sy, int32 sx, "
    "int32 ph, int32 pw, int32 dy, int32 dx"
)


def _im2col(
    x: Any,
    n0: int,
    m: int,
    k: tuple[int, ...],
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    out: tuple[int, ...],
    dtype: Any,
) -> Any:
    """Columns ``(C, kh, kw, m, oh, ow)`` of samples ``n0:n0+m`` of ``x``."""
    cupy = cuda.cupy
    _, C, H, W = x.shape
    col = cupy.empty((C, k[0], k[1], m) + out, dtype=dtype)
    cuda.elementwise(
        "raw T x, int32 n0, int32 N, " + _SIZES + ", int32 oh, int32 ow",
        "U col",
        _IM2COL,
        "kusari_im2col_2d",
    )(
        x,
        n0,
        m,
        C,
        H,
        W,
        k[0],
        k[1],
        s[0],
        s[1],
        p[0],
        p[1],
        d[0],
        d[1],
        out[0],
        out[1],
        col,
    )
    return col


def _col2im(
    col: Any,
    N: int,
    C: int,
    insz: tuple[int, ...],
    k: tuple[int, ...],
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    out: tuple[int, ...],
) -> Any:
    """``y[n, c, s*i - p + d*kk] += col[c, kk, n, i]`` as a gather (N, C, *out)."""
    y = cuda.cupy.empty((N, C) + out, dtype=col.dtype)
    cuda.elementwise(
        "raw T col, int32 N, " + _SIZES + ", int32 h, int32 w",
        "T y",
        _COL2IM,
        "kusari_col2im_2d",
    )(
        col,
        N,
        C,
        out[0],
        out[1],
        k[0],
        k[1],
        s[0],
        s[1],
        p[0],
        p[1],
        d[0],
        d[1],
        insz[0],
        insz[1],
        y,
    )
    return y


def _chunks(n: int, per_sample_bytes: int) -> list[tuple[int, int]]:
    step = max(1, min(n, _GPU_COL_BYTES // max(1, per_sample_bytes)))
    return [(i, min(step, n - i)) for i in range(0, n, step)]


def conv_forward(
    x: Any,
    W2: Any,
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    k: tuple[int, ...],
    out: tuple[int, ...],
    cdt: Any,
) -> Any:
    """``(N, G*Og, *out)`` from ``W2`` (G, Og, K); bias not added."""
    cupy = cuda.cupy
    x = cupy.ascontiguousarray(x)
    N = x.shape[0]
    G, Og, K = W2.shape
    L = out[0] * out[1]
    y = cupy.empty((N, G, Og, L), dtype=cdt)
    for n0, m in _chunks(N, K * G * L * cupy.dtype(cdt).itemsize):
        col = _im2col(x, n0, m, k, s, p, d, out, cdt).reshape(G, K, m * L)
        r = cupy.matmul(W2, col)  # (G, Og, m*L)
        y[n0 : n0 + m] = r.reshape(G, Og, m, L).transpose(2, 0, 1, 3)
    return y.reshape((N, G * Og) + out)


def conv_grad_weight(
    x: Any,
    gy: Any,
    groups: int,
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    k: tuple[int, ...],
    cdt: Any,
) -> Any:
    """``(G, Og, K)`` weight gradient."""
    cupy = cuda.cupy
    x = cupy.ascontiguousarray(x)
    N, C = x.shape[:2]
    out = tuple(gy.shape[2:])
    O = gy.shape[1]
    G, Og = groups, O // groups
    K = (C // G) * k[0] * k[1]
    L = out[0] * out[1]
    gy4 = gy.reshape(N, G, Og, L)
    gW = None
    for n0, m in _chunks(N, K * G * L * cupy.dtype(cdt).itemsize):
        col = _im2col(x, n0, m, k, s, p, d, out, cdt).reshape(G, K, m * L)
        g = cupy.ascontiguousarray(
            gy4[n0 : n0 + m].transpose(1, 2, 0, 3), dtype=cdt
        ).reshape(G, Og, m * L)
        part = cupy.matmul(g, col.transpose(0, 2, 1))
        gW = part if gW is None else gW + part
    assert gW is not None
    return gW


def deconv_forward(
    x: Any,
    W2: Any,
    Cout: int,
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    k: tuple[int, ...],
    out: tuple[int, ...],
    cdt: Any,
) -> Any:
    """Transposed convolution ``(N, Cout, *out)`` from ``W2`` (G, Coutg*Kk, Cing)."""
    cupy = cuda.cupy
    N, Cin = x.shape[:2]
    insz = tuple(x.shape[2:])
    G, CK, Cing = W2.shape
    Lin = insz[0] * insz[1]
    x4 = x.reshape(N, G, Cing, Lin)
    ys = []
    for n0, m in _chunks(N, G * CK * Lin * cupy.dtype(cdt).itemsize):
        xt = cupy.ascontiguousarray(
            x4[n0 : n0 + m].transpose(1, 2, 0, 3), dtype=cdt
        ).reshape(G, Cing, m * Lin)
        col = cupy.matmul(W2, xt)  # (G, Coutg*Kk, m*Lin) = (Cout, kh, kw, m, h, w)
        ys.append(_col2im(col, m, Cout, insz, k, s, p, d, out))
    return ys[0] if len(ys) == 1 else cupy.concatenate(ys)
