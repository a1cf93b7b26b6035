"""Max pooling (``max_pooling_nd``, ``max_pooling_1d``, ``max_pooling_3d``).

The forward keeps the in-window argmax (one byte per output for windows of
up to 256 elements) when a backward can follow, computed in the same pass as
the maximum; the input and output are then not retained.  The gradient is an
index scatter whose own gradient is an index gather, so double backprop works.
"""

from __future__ import annotations

from typing import Any

import numpy

import kusari
from kusari.function_node import FunctionNode
from kusari.functions.pooling import _pool_core as core
from kusari.utils import type_check
from kusari.variable import Variable


def _label(base: str, ndim: int) -> str:
    return f"{base}2D" if ndim == 2 else f"{base}ND"


class MaxPoolingND(FunctionNode):
    """Max pooling over the spatial axes of ``x`` (N, C, *spatial)."""

    def __init__(
        self,
        ndim: int,
        ksize: Any,
        stride: Any = None,
        pad: Any = 0,
        cover_all: bool = True,
        return_indices: bool = False,
        fname: str = "max_pooling_nd",
    ) -> None:
        self.ndim = ndim
        self.pp = core.PoolParams(ndim, ksize, stride, pad, cover_all, fname)
        self.return_indices = return_indices
        # In-window argmax of each output (core.index_dtype), once computed.
        self.indexes: Any = None
        # Whether a backward can follow; None: decide from the configuration
        # (the functional API knows better: it sees whether x needs a grad).
        self._want_grad: bool | None = None

    @property
    def label(self) -> str:
        return _label("MaxPooling", self.ndim)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        type_check.expect(x.dtype.kind == "f", x.ndim == self.ndim + 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._in_shape = tuple(x.shape[2:])
        out = self.pp.out_size(self._in_shape)
        want = self._want_grad
        if want is None:
            want = bool(kusari.config.enable_backprop)
        y, idx = core.max_pool(x, self.pp, out, want or self.return_indices)
        self.indexes = idx
        if idx is None:
            # No graph follows normally; keeping a reference to x lets
            # get_indexes() still work for a node driven by hand.
            self.retain_inputs((0,))
        return (y,)

    def get_indexes(self) -> Any:
        """The in-window argmax of each output (computed on first use)."""
        if self.indexes is None:
            (x,) = self.get_retained_inputs()
            x = x.array
            out = self.pp.out_size(tuple(x.shape[2:]))
            self.indexes = core.max_pool(x, self.pp, out, True)[1]
        return self.indexes

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return MaxPoolingNDGrad(self).apply(grad_outputs)


class MaxPoolingNDGrad(FunctionNode):
    """Gradient of max pooling; its own gradient gathers at the argmax."""

    def __init__(self, mpool: MaxPoolingND) -> None:
        self.mpool = mpool
        self.indexes = mpool.get_indexes()
        self._label = _label("MaxPooling", mpool.ndim) + "Grad"

    @property
    def label(self) -> str:
        return self._label

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (g,) = inputs
        mp = self.mpool
        return (core.index_scatter(self.indexes, g, mp.pp, mp._in_shape),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        mp = self.mpool
        return IndexGather(mp.pp, self.indexes, mp._in_shape).apply(grad_outputs)


class IndexScatter(FunctionNode):
    """``y[window(i)][idx[i]] += g[i]`` (max pooling's gradient, upsampling)."""

    def __init__(
        self, pp: core.PoolParams, idx: Any, outsz: tuple[int, ...], label: str
    ) -> None:
        self.pp = pp
        self.idx = idx
        self.outsz = outsz
        self._label = label

    @property
    def label(self) -> str:
        return self._label

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (g,) = inputs
        return (core.index_scatter(self.idx, g, self.pp, self.outsz),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return IndexGather(self.pp, self.idx, self.outsz).apply(grad_outputs)


class IndexGather(FunctionNode):
    """``y[i] = x[window(i)][idx[i]]`` (the adjoint of :class:`IndexScatter`)."""

    def __init__(self, pp: core.PoolParams, idx: Any, insz: tuple[int, ...]) -> None:
        self.pp = pp
        self.idx = idx
        self.insz = insz

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        return (core.index_gather(self.idx, x, self.pp),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return IndexScatter(self.pp, self.idx, self.insz, "IndexScatter").apply(
            grad_outputs
        )


def _max_pool(
    x: Any,
    ndim: int,
    ksize: Any,
    stride: Any,
    pad: Any,
    cover_all: bool,
    return_indices: bool,
    fname: str,
) -> Any:
    node = MaxPoolingND(ndim, ksize, stride, pad, cover_all, return_indices, fname)
    node._want_grad = (
        isinstance(x, Variable)
        and x.requires_grad
        and bool(kusari.config.enable_backprop)
    )
    (y,) = node.apply((x,))
    if return_indices:
        return y, node.indexes.astype(numpy.int32)
    return y


def max_pooling_nd(
    x: Any,
    ksize: Any,
    stride: Any = None,
    pad: Any = 0,
    cover_all: bool = True,
    return_indices: bool = False,
) -> Any:
    """N-dimensional spatial max pooling.

    Args:
        x: Input of shape ``(n, c, d_1, ..., d_N)``.
        ksize: Window size (int or tuple of N ints).
        stride: Stride; ``ksize`` if None.
        pad: Padding (with ``-inf``) on both sides.
        cover_all: Extend the output so every input pixel is covered.
        return_indices: Also return the flattened in-window argmax
            (int32, the output's shape), usable by ``upsampling_2d``.

    Returns:
        The pooled Variable, or ``(y, indexes)`` with ``return_indices``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.arange(6, dtype=np.float32).reshape(1, 1, 6)
        >>> F.max_pooling_nd(x, 2).array
        array([[[1., 3., 5.]]], dtype=float32)
    """
    if len(x.shape) < 3:
        raise ValueError(
            f"max_pooling_nd: x must have at least 3 dimensions, got shape "
            f"{tuple(x.shape)}"
        )
    return _max_pool(
        x,
        len(x.shape) - 2,
        ksize,
        stride,
        pad,
        cover_all,
        return_indices,
        "max_pooling_nd",
    )


def max_pooling_1d(
    x: Any,
    ksize: Any,
    stride: Any = None,
    pad: Any = 0,
    cover_all: bool = True,
    return_indices: bool = False,
) -> Any:
    """1-dimensional max pooling (``x`` of shape ``(n, c, w)``).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.max_pooling_1d(np.array([[[1., 3., 2., 0.]]], np.float32), 2).array
        array([[[3., 2.]]], dtype=float32)
    """
    if len(x.shape) != 3:
        raise ValueError(
            f"max_pooling_1d: x must be 3-dimensional, got shape {tuple(x.shape)}"
        )
    return _max_pool(
        x, 1, ksize, stride, pad, cover_all, return_indices, "max_pooling_1d"
    )


def max_pooling_3d(
    x: Any,
    ksize: Any,
    stride: Any = None,
    pad: Any = 0,
    cover_all: bool = True,
    return_indices: bool = False,
) -> Any:
    """3-dimensional max pooling (``x`` of shape ``(n, c, d, h, w)``).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.max_pooling_3d(np.ones((1, 1, 4, 4, 4), np.float32), 2).shape
        (1, 1, 2, 2, 2)
    """
    if len(x.shape) != 5:
        raise ValueError(
            f"max_pooling_3d: x must be 5-dimensional, got shape {tuple(x.shape)}"
        )
    return _max_pool(
        x, 3, ksize, stride, pad, cover_all, return_indices, "max_pooling_3d"
    )
