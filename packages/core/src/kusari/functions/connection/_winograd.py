"""Winograd kernels for 3x3, stride-1 2-d convolutions (NumPy).

``F(m x m, 3 x 3)`` computes an ``m x m`` output tile from an ``a x a`` input
tile (``a = m + 2``) with ``a * a`` multiplications per channel pair instead
of ``9 * m * m``: the input tiles and the filters are moved into the
transformed domain (``V = B^T d B``, ``U = G g G^T``), multiplied there
element-wise and summed over the input channels, which for all tiles at once
is ``a * a`` batched GEMMs ``(O, C) @ (C, tiles)``, and the product is moved
back (``y = A^T M A``).

Layout.  Work goes by chunks of samples (the transformed tensors of a chunk
stay about ``_CHUNK_BYTES``).  The tiles of a chunk are read through a strided
view of the (padded) input; a block of a few channels is copied into a small
buffer and transformed there by two GEMMs with the small matrix on the left
(one per 1-d transform), writing ``V`` as (a, a, C, tiles).  The products
``M`` (a, a, O, tiles) are ``a * a`` GEMMs, and blocks of output channels are
transformed back by one GEMM with ``kron(A^T, A^T)`` and written into the
output.  On several threads the channel blocks and the ``a * a`` GEMMs are
split over the intra-op pool, with BLAS held to one thread meanwhile.

The three passes of a convolution are all Winograd forms:

* forward: ``y = conv(x, W)`` with the tiles of the padded ``x``;
* input gradient: ``gx = conv(pad(gy, 2 - p), flip(W)^T)``;
* weight gradient: ``gW = G^T (sum_tiles (A gy A^T) * (B^T d B)) G``, the
  transpose of the forward's bilinear map in ``W``; its element-wise stage is
  ``a * a`` GEMMs ``(O, tiles) @ (tiles, C)``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy

from kusari.functions.connection._conv_common import (
    _as_strided,
    _workspace,
    par_assign,
    par_zero,
)
from kusari.utils import threads

# Tests set this to "winograd" or "direct" to force the choice.
_FORCE: str | None = None
# Output tile size used (2 or 4); see _transforms.
TILE = 4
# Target bytes of the transformed tensors of one chunk of samples: the
# transformed input, the GEMM product and the transformed output of a chunk
# together stay about this large, so memory is bounded for any batch.
_CHUNK_BYTES = 24 << 20
# The dispatch rule, measured at one thread over batch 1..16, 16..512
# channels and 7..112 pixel planes (F(4x4, 3x3)): with few channels the
# transforms cost more than the multiplications they save, and on small planes
# the edge tiles waste work and the per-position GEMMs get thin.  Planes of at
# least _LARGE_PLANE tiles (28x28 and up) win from 16 channels and _MIN_BATCH
# tiles per batch; smaller planes of _MIN_TILES tiles or more (13..24 pixels)
# only from _SMALL_PLANE_CHANNELS channels and _MIN_BATCH_SMALL tiles per
# batch (ResNet-50's 256-channel 14x14 layers win, 64-channel ones do not);
# below that (ResNet's 7x7, 512 channels) the im2col path is faster.
_MIN_CHANNELS = 16
_LARGE_PLANE = 49
_MIN_BATCH = 96
_MIN_TILES = 16
_SMALL_PLANE_CHANNELS = 128
_MIN_BATCH_SMALL = 128
# Workspace slots (those of _conv_common's callers are 0..5).
_SLOT_V, _SLOT_M, _SLOT_BLOCK, _SLOT_HALF, _SLOT_PAD, _SLOT_G = range(10, 16)


def _transforms(m: int) -> tuple[Any, Any, Any]:
    """``(B^T, G, A^T)`` of ``F(m, 3)`` as float64 arrays."""
    if m == 2:
        bt = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]]
        g = [[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]]
        at = [[1, 1, 1, 0], [0, 1, -1, -1]]
    elif m == 4:
        # Interpolation points 0, 1, -1, 2, -2 and infinity.
        bt = [
            [4, 0, -5, 0, 1, 0],
            [0, -4, -4, 1, 1, 0],
            [0, 4, -4, -1, 1, 0],
            [0, -2, -1, 2, 1, 0],
            [0, 2, -1, -2, 1, 0],
            [0, 4, 0, -5, 0, 1],
        ]
        g = [
            [1 / 4, 0, 0],
            [-1 / 6, -1 / 6, -1 / 6],
            [-1 / 6, 1 / 6, -1 / 6],
            [1 / 24, 1 / 12, 1 / 6],
            [1 / 24, -1 / 12, 1 / 6],
            [0, 0, 1],
        ]
        at = [
            [1, 1, 1, 1, 1, 0],
            [0, 1, -1, 2, -2, 0],
            [0, 1, 1, 4, 4, 0],
            [0, 1, -1, 8, -8, 1],
        ]
    else:
        raise ValueError(f"_winograd._transforms: expected m of 2 or 4, got {m}")
    return numpy.array(bt, float), numpy.array(g, float), numpy.array(at, float)


def applicable(
    k: tuple[int, ...],
    s: tuple[int, ...],
    d: tuple[int, ...],
    groups: int,
    n: int,
    channels: tuple[int, int],
    out: tuple[int, ...],
    natural: bool,
) -> bool:
    """Whether a 2-d convolution (or its transpose) takes the Winograd path.

    Only 3x3, stride 1, dilation 1, one group, with the natural output size
    (``natural``: ``out == in + 2 * pad - 2``); then the measured rule (enough
    channels, tiles per sample and tiles per batch) unless a test forces it.

    Args:
        k, s, d: Kernel size, stride and dilation.
        groups: Channel groups.
        n: Batch size.
        channels: Input and output channels.
        out: Output size of the convolution (input size of a transpose).
        natural: Whether ``out`` is what stride 1 gives without cover-all.
    """
    if k != (3, 3) or s != (1, 1) or d != (1, 1) or groups != 1 or not natural:
        return False
    if _FORCE is not None:
        return _FORCE == "winograd"
    th, tw = _tiles(tuple(out), TILE)
    tiles, c = th * tw, min(channels)
    if tiles >= _LARGE_PLANE:
        return c >= _MIN_CHANNELS and n * tiles >= _MIN_BATCH
    return (
        tiles >= _MIN_TILES
        and c >= _SMALL_PLANE_CHANNELS
        and n * tiles >= _MIN_BATCH_SMALL
    )


def _tiles(out: tuple[int, ...], m: int) -> tuple[int, int]:
    return -(-out[0] // m), -(-out[1] // m)


def _samples_per_chunk(per_sample: int, itemsize: int, n: int) -> int:
    return max(1, min(n, _CHUNK_BYTES // max(1, per_sample * itemsize)))


def _filter_transform(W: Any, m: int, cdt: Any) -> Any:
    """``U = G W G^T`` as ``(a * a, O, C)`` for ``W`` (O, C, 3, 3)."""
    _, g, _ = _transforms(m)
    a = m + 2
    O, C = W.shape[:2]
    # One GEMM kron(G, G) (a*a, 9) @ W as (9, O*C), split by columns; in the
    # compute dtype (U is a*a/9 times the size of W: for 512x512 filters
    # this pass counts).
    w = numpy.empty((9, O * C), dtype=cdt)
    # Through a 4-d view: W may be the flipped, transposed filter of the
    # input gradient, whose reshape would be a copy on this thread.
    par_assign(w.reshape(3, 3, O, C), W.transpose(2, 3, 0, 1))
    return _columns_gemm(numpy.kron(g, g).astype(cdt), w).reshape(a * a, O, C)


def _columns_gemm(mat: Any, src: Any) -> Any:
    """``mat @ src`` for a small ``mat`` and a wide ``src``, blocks of columns
    spread over the intra-op threads."""
    dst = numpy.empty((mat.shape[0], src.shape[1]), dtype=src.dtype)

    def run(c0: int, c1: int) -> None:
        numpy.matmul(mat, src[:, c0:c1], out=dst[:, c0:c1])

    nbytes = (src.size + dst.size) * dst.itemsize
    _split_blocks(run, src.shape[1], nbytes)
    return dst


# Elements of one block of tiles that a thread transforms at a time (the
# block and its half-transformed copy stay in the L2 cache).
_BLOCK_ELEMS = 1 << 15


def _split_blocks(run: Callable[[int, int], None], n: int, nbytes: int) -> None:
    """``run(start, stop)`` over ``n`` blocks, on the intra-op threads when
    worth it (and BLAS is held to one thread, see :func:`_pool_blas`)."""
    if threads.blas_controller() is None:
        run(0, n)
    else:
        threads.run_split(run, n, nbytes)


@contextlib.contextmanager
def _pool_blas() -> Iterator[None]:
    """BLAS on one thread while a Winograd pass runs on several threads.

    The stages call many small and mid-sized GEMMs and split them over the
    intra-op pool themselves: OpenBLAS, called from several threads while
    itself threaded, serialises the calls, and its threads (which spin for a
    while after each call) take the cores from the pool's.  Where BLAS
    threads cannot be set (no BLAS library found) the stages run on the
    calling thread and BLAS threads each GEMM instead.
    """
    if threads.get_num_threads() <= 1:
        yield
        return
    with threads.one_blas_thread():
        yield


def _batched_gemm(A: Any, B: Any, out: Any, accumulate: bool, tmp: Any = None) -> None:
    """``out[s] = A[s] @ B[s]`` (``+=`` with ``accumulate``, through ``tmp``)
    for the ``a * a`` transformed positions ``s``.

    On several threads the positions are split over the pool, each GEMM on
    one BLAS thread: one hand-off per stage instead of one wake-up of the BLAS
    threads per position (which on a busy machine costs a time slice each).
    """

    def run(s0: int, s1: int) -> None:
        if accumulate:
            out[s0:s1] += numpy.matmul(A[s0:s1], B[s0:s1], out=tmp[s0:s1])
        else:
            numpy.matmul(A[s0:s1], B[s0:s1], out=out[s0:s1])

    nbytes = (A.size + B.size + out.size) * out.itemsize
    _split_blocks(run, out.shape[0], nbytes)


def _window(src: Any, th: int, tw: int, m: int, q: int) -> Any:
    """Strided view (C, q, q, n, th, tw) of the ``q x q`` windows at stride
    ``m`` of ``src`` (n, C, >= th*m + q - m, >= tw*m + q - m)."""
    n, C = src.shape[:2]
    s0, s1, s2, s3 = src.strides
    return _as_strided(numpy)(
        src,
        shape=(C, q, q, n, th, tw),
        strides=(s1, s2, s3, s0, m * s2, m * s3),
    )


def _transform_tiles(win: Any, mat: Any, dst: Any) -> None:
    """``dst[:, :, c] = mat @ win[c] @ mat^T`` for every channel ``c``.

    ``win`` is (C, q, q, n, th, tw) tiles (a strided view, possibly of another
    dtype), ``mat`` (r, q), ``dst`` (r, r, C, P).  Channels are cut into
    blocks: a block is copied (and cast) into a small contiguous buffer and
    both 1-d transforms run on it while it is in cache; blocks are spread
    over the intra-op threads.
    """
    C, q = win.shape[:2]
    P = dst.shape[3]
    r = mat.shape[0]
    cb = max(1, min(C, _BLOCK_ELEMS // (q * max(q, r) * P)))
    out = dst.transpose(2, 0, 1, 3)

    def run(c0: int, c1: int) -> None:
        tile = _workspace(_SLOT_BLOCK, cb * q * q * P, dst.dtype, numpy)
        half = _workspace(_SLOT_HALF, cb * r * q * P, dst.dtype, numpy)
        for b0 in range(c0, c1, cb):
            k = min(cb, c1 - b0)
            t = tile[: k * q * q * P].reshape((k, q, q) + win.shape[3:])
            t[...] = win[b0 : b0 + k]
            h = half[: k * r * q * P].reshape(k, r, q * P)
            numpy.matmul(mat, t.reshape(k, q, q * P), out=h)
            numpy.matmul(mat, h.reshape(k, r, q, P), out=out[b0 : b0 + k])

    _split_blocks(run, C, 2 * dst.size * dst.itemsize)


def _output_tiles(M: Any, akt: Any, y: Any, out: tuple[int, int], m: int) -> None:
    """``y`` (n, O, *out) from the products ``M`` (a*a, O, n*th*tw): the
    tiles ``A^T M A`` (``akt`` = ``kron(A^T, A^T)^T``), cropped to ``out``."""
    n, O = y.shape[:2]
    th, tw = _tiles(out, m)
    P = M.shape[2]
    exact = (th * m, tw * m) == tuple(out)
    ob = max(1, min(O, _BLOCK_ELEMS // (m * m * P)))

    def run(o0: int, o1: int) -> None:
        res = _workspace(_SLOT_BLOCK, ob * P * m * m, y.dtype, numpy)
        full = None if exact else _workspace(_SLOT_HALF, res.size, y.dtype, numpy)
        for b0 in range(o0, o1, ob):
            k = min(ob, o1 - b0)
            r = res[: k * P * m * m].reshape(k, P, m * m)
            numpy.matmul(M[:, b0 : b0 + k].transpose(1, 2, 0), akt, out=r)
            tiles = r.reshape(k, n, th, tw, m, m).transpose(1, 0, 2, 4, 3, 5)
            if exact:
                y[:, b0 : b0 + k].reshape(n, k, th, m, tw, m)[...] = tiles
            else:
                assert full is not None
                f = full[: r.size].reshape(n, k, th, m, tw, m)
                f[...] = tiles
                f = f.reshape(n, k, th * m, tw * m)
                y[:, b0 : b0 + k] = f[:, :, : out[0], : out[1]]

    _split_blocks(run, O, 2 * y.size * y.itemsize)


def _padded(x: Any, lo: tuple[int, int], size: tuple[int, int], buf: Any) -> Any:
    """``x`` (n, C, H, W) placed at offset ``lo`` (negative: cropped) in a
    zeroed (n, C, *size) array taken from ``buf``; returns ``x`` itself when
    that is already the case."""
    n, C, H, W = x.shape
    if lo == (0, 0) and (H, W) == size:
        return x
    dst = buf[: n * C * size[0] * size[1]].reshape(n, C, size[0], size[1])
    # Source rows/cols that land inside, and where they land.
    src_sl, dst_sl = [], []
    for o, L, S in zip(lo, (H, W), size):
        a0 = max(0, -o)
        a1 = min(L, S - o)
        src_sl.append(slice(a0, max(a0, a1)))
        dst_sl.append(slice(a0 + o, max(a0, a1) + o))
    par_zero(dst)
    par_assign(dst[:, :, dst_sl[0], dst_sl[1]], x[:, :, src_sl[0], src_sl[1]])
    return dst


def _conv(x: Any, U: Any, lo: tuple[int, int], out: tuple[int, int], cdt: Any) -> Any:
    """``y[n, o, i, j] = sum_{c,k,l} W[o, c, k, l] xp[n, c, i + k, j + l]``
    where ``xp`` is ``x`` shifted by ``lo`` (zero outside), for the transformed
    filter ``U`` (a*a, O, C); returns (N, O, *out) of ``cdt``."""
    m = TILE
    a = m + 2
    N, C = x.shape[:2]
    O = U.shape[1]
    th, tw = _tiles(out, m)
    T = th * tw
    bt, _, at = _transforms(m)
    bt = bt.astype(cdt)
    akt = numpy.ascontiguousarray(numpy.kron(at, at).T, cdt)
    itemsize = numpy.dtype(cdt).itemsize
    n = _samples_per_chunk(a * a * (C + O) * T, itemsize, N)
    size = (th * m + 2, tw * m + 2)
    vbuf = _workspace(_SLOT_V, a * a * C * n * T, cdt, numpy)
    mbuf = _workspace(_SLOT_M, a * a * O * n * T, cdt, numpy)
    y = numpy.empty((N, O) + tuple(out), dtype=cdt)
    for i in range(0, N, n):
        c = min(n, N - i)
        P = c * T
        xs = x[i : i + c]
        if lo != (0, 0) or tuple(xs.shape[2:]) != size:
            pad_buf = _workspace(_SLOT_PAD, n * C * size[0] * size[1], x.dtype, numpy)
            xs = _padded(xs, lo, size, pad_buf)
        V = vbuf[: a * a * C * P].reshape(a, a, C, P)
        _transform_tiles(_window(xs, th, tw, m, a), bt, V)
        M = mbuf[: a * a * O * P].reshape(a * a, O, P)
        _batched_gemm(U, V.reshape(a * a, C, P), M, False)
        _output_tiles(M, akt, y[i : i + c], out, m)
    return y


def conv_forward(x: Any, W: Any, p: tuple[int, ...], cdt: Any) -> Any:
    """3x3 stride-1 convolution of ``x`` (N, C, H, W) by ``W`` (O, C, 3, 3)
    with padding ``p``; returns (N, O, H + 2p - 2, W + 2p - 2) of ``cdt``."""
    out = (x.shape[2] + 2 * p[0] - 2, x.shape[3] + 2 * p[1] - 2)
    with _pool_blas():
        return _conv(x, _filter_transform(W, TILE, cdt), (p[0], p[1]), out, cdt)


def deconv_forward(
    gy: Any, W: Any, p: tuple[int, ...], out: tuple[int, ...], cdt: Any
) -> Any:
    """The transposed convolution (input gradient) of :func:`conv_forward`:
    ``gy`` (N, O, h, w), ``W`` (O, C, 3, 3) -> (N, C, *out), ``out`` being
    ``(h + 2 - 2p, w + 2 - 2p)``; a convolution of ``gy`` padded by ``2 - p``
    (cropped where negative) with the flipped, transposed filter."""
    Wf = W[:, :, ::-1, ::-1].swapaxes(0, 1)
    with _pool_blas():
        U = _filter_transform(Wf, TILE, cdt)
        return _conv(gy, U, (2 - p[0], 2 - p[1]), (out[0], out[1]), cdt)


def conv_grad_weight(x: Any, gy: Any, p: tuple[int, ...], cdt: Any) -> Any:
    """``gW[o, c, k, l] = sum_{n,i,j} gy[n, o, i, j] xp[n, c, i + k, j + l]``
    (``xp``: ``x`` padded by ``p``) as (O, C, 3, 3) of ``cdt``."""
    with _pool_blas():
        return _grad_weight(x, gy, p, cdt)


def _grad_weight(x: Any, gy: Any, p: tuple[int, ...], cdt: Any) -> Any:
    m = TILE
    a = m + 2
    N, C = x.shape[:2]
    O = gy.shape[1]
    out = (gy.shape[2], gy.shape[3])
    th, tw = _tiles(out, m)
    T = th * tw
    bt, g, at = _transforms(m)
    bt_c, a_c = bt.astype(cdt), numpy.ascontiguousarray(at.T, cdt)
    itemsize = numpy.dtype(cdt).itemsize
    n = _samples_per_chunk(a * a * (C + O) * T, itemsize, N)
    size = (th * m + 2, tw * m + 2)
    gsize = (th * m, tw * m)
    vbuf = _workspace(_SLOT_V, a * a * C * n * T, cdt, numpy)
    zbuf = _workspace(_SLOT_M, a * a * O * n * T, cdt, numpy)
    S = numpy.empty((a * a, O, C), dtype=cdt)
    # The products of the later chunks, added to S.
    sbuf = None if n >= N else numpy.empty_like(S)
    for i in range(0, N, n):
        c = min(n, N - i)
        P = c * T
        xs = x[i : i + c]
        if p[0] or p[1] or tuple(xs.shape[2:]) != size:
            pad_buf = _workspace(_SLOT_PAD, n * C * size[0] * size[1], x.dtype, numpy)
            xs = _padded(xs, (p[0], p[1]), size, pad_buf)
        V = vbuf[: a * a * C * P].reshape(a, a, C, P)
        _transform_tiles(_window(xs, th, tw, m, a), bt_c, V)
        gs = gy[i : i + c]
        if tuple(gs.shape[2:]) != gsize:
            gpad = _workspace(_SLOT_G, n * O * gsize[0] * gsize[1], gy.dtype, numpy)
            gs = _padded(gs, (0, 0), gsize, gpad)
        # gy's m x m tiles (not overlapping) into the transformed domain.
        Z = zbuf[: a * a * O * P].reshape(a, a, O, P)
        _transform_tiles(_window(gs, th, tw, m, m), a_c, Z)
        # (O, P) @ (P, C) per transformed position, summed over the chunks.
        zv = (Z.reshape(a * a, O, P), V.reshape(a * a, C, P).swapaxes(1, 2))
        _batched_gemm(*zv, S, i > 0, sbuf)
    # gW = G^T S G per (o, c), the transposed filter transform.
    gW = _columns_gemm(numpy.kron(g, g).T.astype(cdt), S.reshape(a * a, O * C))
    return numpy.ascontiguousarray(gW.T.reshape(O, C, 3, 3))
