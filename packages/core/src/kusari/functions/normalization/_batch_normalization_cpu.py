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
) -> tuple[Any, Any, Any, Any, Any]:
    """Batch statistics, ``x_hat`` and ``y`` on NumPy, split over channels.

    Returns ``(mean, var, inv_std, x_hat, y)``; the arithmetic is that of an
    unsplit computation, piece by piece.
    """
    pshape = gamma.shape
    mean = numpy.empty(pshape, cdt)
    var = numpy.empty(pshape, cdt)
    inv_std = numpy.empty(pshape, cdt)
    x_hat = numpy.empty(x.shape, cdt)
    y = numpy.empty(x.shape, x.dtype)
    g_all = gamma.astype(cdt, copy=False)
    b_all = beta.astype(cdt, copy=False)

    def work(xs: Any, ps: Any, bs: tuple[int, ...]) -> None:
        xc = x[xs].astype(cdt, copy=False)
        mu = xc.mean(axis=axis)
        xm = xc - mu.reshape(bs)
        v = (xm * xm).mean(axis=axis)
        inv = 1 / numpy.sqrt(v + eps)
        xh = numpy.multiply(xm, inv.reshape(bs), out=x_hat[xs])
        # y = x_hat * gamma + beta, in y's piece when it has the compute
        # dtype (else in a temporary that is cast into it).
        yv = y[xs]
        t = numpy.multiply(
            xh, g_all[ps].reshape(bs), out=yv if yv.dtype == cdt else None
        )
        numpy.add(t, b_all[ps].reshape(bs), out=t)
        _store(yv, t)
        mean[ps] = mu
        var[ps] = v
        inv_std[ps] = inv

    split_channels(x.shape, axis, work, 4 * x.nbytes + 2 * x_hat.nbytes)
    return mean, var, inv_std, x_hat, y


def backward(
    gy: Any,
    gamma: Any,
    x_hat: Any,
    inv_std: Any,
    axis: tuple[int, ...],
    m: int,
    out_dtype: Any,
) -> tuple[Any, Any, Any]:
    """``(gx, ggamma, gbeta)`` of batch normalization on NumPy, by channels.

    ``gx`` has ``out_dtype``; the sums have ``x_hat``'s (compute) dtype.
    """
    cdt = x_hat.dtype
    gbeta = numpy.empty(gamma.shape, cdt)
    ggamma = numpy.empty(gamma.shape, cdt)
    gx = numpy.empty(gy.shape, out_dtype)
    gam = gamma.astype(cdt, copy=False)

    def work(xs: Any, ps: Any, bs: tuple[int, ...]) -> None:
        g = gy[xs].astype(cdt, copy=False)
        xh = x_hat[xs]
        gb = g.sum(axis=axis)
        gg = (g * xh).sum(axis=axis)
        scale = (gam[ps] * inv_std[ps]).reshape(bs)
        # gx = scale * (g - x_hat * ggamma / m - gbeta / m), in that order.
        gv = gx[xs]
        t = numpy.multiply(
            xh, (gg / m).reshape(bs), out=gv if gv.dtype == cdt else None
        )
        numpy.subtract(g, t, out=t)
        numpy.subtract(t, (gb / m).reshape(bs), out=t)
        numpy.multiply(t, scale, out=t)
        _store(gv, t)
        gbeta[ps] = gb
        ggamma[ps] = gg

    split_channels(gy.shape, axis, work, 3 * gy.nbytes + 2 * x_hat.nbytes)
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
