"""NumPy kernels of batch normalization, split over the intra-op threads.

Each kernel cuts the channels (the first non-normalized axis) into pieces
that :func:`split_channels` runs on the thread pool: a channel's statistics
come from its own elements only, so the pieces are independent.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari.utils import threads


def bcast_shape(x_shape: tuple[int, ...], axis: tuple[int, ...]) -> tuple[int, ...]:
    """``x_shape`` with ones on the reduced axes."""
    return tuple(1 if i in axis else s for i, s in enumerate(x_shape))


def split_channels(
    x_shape: tuple[int, ...], axis: tuple[int, ...], work: Any, nbytes: int
) -> None:
    """Run ``work(xs, ps, bshape)`` over pieces of the channels, threaded.

    The pieces cut ``x``'s first non-normalized axis (the channels, where
    the per-channel arrays have their first axis): ``xs`` indexes ``x``
    (and arrays shaped as it), ``ps`` the per-channel arrays, ``bshape`` is
    the piece's broadcast shape. Each channel's statistics are computed from
    its own elements only, so the pieces are independent and the result is
    that of one piece (per channel reductions of NumPy may round the last
    bit differently on a narrower slice). Small inputs are one piece.

    Args:
        x_shape: Shape of the input.
        axis: The normalized axes.
        work: Called as ``work(xs, ps, bshape)`` for each piece.
        nbytes: Bytes the whole work touches (for the threading threshold).
    """
    bshape = bcast_shape(x_shape, axis)
    kept = [i for i in range(len(x_shape)) if i not in axis]
    if not kept:
        work(Ellipsis, Ellipsis, bshape)
        return
    k = kept[0]
    lead = (slice(None),) * k

    def piece(lo: int, hi: int) -> None:
        sl = slice(lo, hi)
        work(lead + (sl,), sl, bshape[:k] + (hi - lo,) + bshape[k + 1 :])

    threads.run_split(piece, x_shape[k], nbytes)


def _store(dst: Any, src: Any) -> None:
    """``dst[...] = src`` (casting as ``astype`` does), skipping a self-copy."""
    if dst is not src:
        dst[...] = src


def forward(
    x: Any, gamma: Any, beta: Any, axis: tuple[int, ...], cdt: Any, eps: Any
) -> tuple[Any, Any, Any, Any]:
    """Batch statistics and ``y`` on NumPy, split over channels.

    Returns ``(mean, var, inv_std, y)``; the arithmetic is that of an unsplit
    computation, piece by piece. ``x_hat`` is only a temporary of each piece:
    the backward recomputes it from ``x``, ``mean`` and ``inv_std`` (see
    :func:`backward`), so no array of ``x``'s size but ``y`` outlives the call.
    """
    pshape = gamma.shape
    mean = numpy.empty(pshape, cdt)
    var = numpy.empty(pshape, cdt)
    inv_std = numpy.empty(pshape, cdt)
    y = numpy.empty(x.shape, x.dtype)
    g_all = gamma.astype(cdt, copy=False)
    b_all = beta.astype(cdt, copy=False)

    def work(xs: Any, ps: Any, bs: tuple[int, ...]) -> None:
        xc = x[xs].astype(cdt, copy=False)
        mu = xc.mean(axis=axis)
        # x - mean, in xc when xc is a cast copy of our own.
        xm = numpy.subtract(xc, mu.reshape(bs), out=xc if xc.dtype != x.dtype else None)
        # The sums read new (contiguous) arrays only: summing a strided view
        # of y or gx instead can round differently (NumPy merges contiguous
        # axes into one pairwise sum).
        v = (xm * xm).mean(axis=axis)
        inv = 1 / numpy.sqrt(v + eps)
        xh = numpy.multiply(xm, inv.reshape(bs), out=xm)
        # y = x_hat * gamma + beta, in y's piece when it has the compute
        # dtype (else in x_hat's buffer, then cast into y).
        yv = y[xs]
        t = numpy.multiply(xh, g_all[ps].reshape(bs), out=yv if yv.dtype == cdt else xh)
        numpy.add(t, b_all[ps].reshape(bs), out=t)
        _store(yv, t)
        mean[ps] = mu
        var[ps] = v
        inv_std[ps] = inv

    # The work estimate counts the x_hat that earlier versions stored, so the
    # split (and with it the rounding of the per-channel sums) is unchanged.
    x_hat_nbytes = x.size * numpy.dtype(cdt).itemsize
    split_channels(x.shape, axis, work, 4 * x.nbytes + 2 * x_hat_nbytes)
    return mean, var, inv_std, y


def x_hat_piece(x: Any, mean: Any, inv_std: Any, cdt: Any, bs: tuple[int, ...]) -> Any:
    """``(x - mean) * inv_std`` in ``cdt``, a new array (``mean`` and ``inv_std``
    already cut to ``x``'s channels); bit for bit the forward's ``x_hat``."""
    xc = x.astype(cdt, copy=False)
    xh = numpy.subtract(xc, mean.reshape(bs), out=xc if xc.dtype != x.dtype else None)
    return numpy.multiply(xh, inv_std.reshape(bs), out=xh)


def backward(
    gy: Any,
    x: Any,
    gamma: Any,
    mean: Any,
    inv_std: Any,
    axis: tuple[int, ...],
    m: int,
) -> tuple[Any, Any, Any]:
    """``(gx, ggamma, gbeta)`` of batch normalization on NumPy, by channels.

    ``x_hat`` is recomputed piece by piece from ``x`` and the forward's
    ``mean`` and ``inv_std`` (as PyTorch and Chainer do), instead of being
    kept from the forward: an array of ``x``'s size less per layer lives
    until the backward. ``gx`` has ``x``'s dtype; the sums have ``inv_std``'s
    (compute) dtype.
    """
    cdt = inv_std.dtype
    gbeta = numpy.empty(gamma.shape, cdt)
    ggamma = numpy.empty(gamma.shape, cdt)
    gx = numpy.empty(gy.shape, x.dtype)
    gam = gamma.astype(cdt, copy=False)

    def work(xs: Any, ps: Any, bs: tuple[int, ...]) -> None:
        g = gy[xs].astype(cdt, copy=False)
        xh = x_hat_piece(x[xs], mean[ps], inv_std[ps], cdt, bs)
        gb = g.sum(axis=axis)
        gg = (g * xh).sum(axis=axis)
        gv = gx[xs]
        scale = (gam[ps] * inv_std[ps]).reshape(bs)
        # gx = scale * (g - x_hat * ggamma / m - gbeta / m), in that order.
        t = numpy.multiply(xh, (gg / m).reshape(bs), out=gv if gv.dtype == cdt else xh)
        numpy.subtract(g, t, out=t)
        numpy.subtract(t, (gb / m).reshape(bs), out=t)
        numpy.multiply(t, scale, out=t)
        _store(gv, t)
        gbeta[ps] = gb
        ggamma[ps] = gg

    # As in forward, the estimate is the one from when x_hat was an input.
    x_hat_nbytes = x.size * numpy.dtype(cdt).itemsize
    split_channels(gy.shape, axis, work, 3 * gy.nbytes + 2 * x_hat_nbytes)
    return gx, ggamma, gbeta


def fixed_forward(
    x: Any, scale: Any, shift: Any, axis: tuple[int, ...], cdt: Any
) -> Any:
    """``x * scale + shift`` per channel (computed in ``cdt``), of ``x``'s dtype."""
    y = numpy.empty(x.shape, x.dtype)

    def work(xs: Any, ps: Any, bs: tuple[int, ...]) -> None:
        yv = y[xs]
        t = numpy.multiply(
            x[xs].astype(cdt, copy=False),
            scale[ps].reshape(bs),
            out=yv if yv.dtype == cdt else None,
        )
        numpy.add(t, shift[ps].reshape(bs), out=t)
        _store(yv, t)

    split_channels(x.shape, axis, work, 3 * x.nbytes)
    return y
