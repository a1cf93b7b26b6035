"""Average pooling (``average_pooling_nd``, ``average_pooling_1d``, ``_3d``).

Sum pooling (one vectorised add per kernel offset) times a coefficient: ``1 /
prod(ksize)`` (padding counted, Chainer's default ``pad_value=0``) or ``1 /
count`` of the non-padding elements (``pad_value=None``).  Its gradient is the
adjoint (unpooling), whose gradient is sum pooling again.
"""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.functions.pooling import _pool_core as core
from kusari.utils import type_check
from kusari.variable import Variable


class SumPooling(FunctionNode):
    """``y = coeff * sum over each window of x``."""

    def __init__(
        self,
        pp: core.PoolParams,
        coeff: Any,
        label: str,
        outsize: tuple[int, ...] | None = None,
    ) -> None:
        self.pp = pp
        self.coeff = coeff  # None (no scaling), a float, or a callable(insz, out, xp)
        self._label = label
        self.outsize = outsize

    @property
    def label(self) -> str:
        return self._label

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        type_check.expect(x.dtype.kind == "f", x.ndim == self.pp.ndim + 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._insz = tuple(x.shape[2:])
        out = self.outsize if self.outsize is not None else self.pp.out_size(self._insz)
        y = core.sum_pool(x, self.pp, out)
        c = _coeff(self.coeff, self._insz, out, x)
        if c is not None:
            y *= c
        self._c = c
        return (y,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return SumUnpooling(self.pp, self._c, self._insz, self._label + "Grad").apply(
            grad_outputs
        )


class SumUnpooling(FunctionNode):
    """Adjoint of :class:`SumPooling`: ``coeff * g`` added over each window."""

    def __init__(
        self, pp: core.PoolParams, coeff: Any, outsz: tuple[int, ...], label: str
    ) -> None:
        self.pp = pp
        self.coeff = coeff  # None, a float, or an array broadcastable to g
        self.outsz = outsz
        self._label = label

    @property
    def label(self) -> str:
        return self._label

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        type_check.expect(x.dtype.kind == "f", x.ndim == self.pp.ndim + 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (g,) = inputs
        self._gsz = tuple(g.shape[2:])
        if self.coeff is not None:
            g = g * self.coeff
        return (core.sum_unpool(g, self.pp, self.outsz),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        c = self.coeff
        return SumPooling(
            self.pp,
            (lambda *a: c) if c is not None else None,
            self._label + "Grad",
            outsize=self._gsz,
        ).apply(grad_outputs)


def _coeff(coeff: Any, insz: tuple[int, ...], out: tuple[int, ...], x: Any) -> Any:
    if coeff is None:
        return None
    c = coeff(insz, out, x)
    if c is None or isinstance(c, float):
        return c
    return c.astype(x.dtype, copy=False)


def _avg_pool(
    x: Any, ndim: int, ksize: Any, stride: Any, pad: Any, pad_value: Any, fname: str
) -> Variable:
    pp = core.PoolParams(ndim, ksize, stride, pad, False, fname)
    if pad_value is None:

        def coeff(insz: tuple[int, ...], out: tuple[int, ...], x: Any) -> Any:
            from kusari.backend import get_array_module

            return 1.0 / core.valid_counts(insz, pp, out, get_array_module(x))
    elif pad_value == 0:
        size = 1
        for v in pp.k:
            size *= v
        inv = 1.0 / size

        def coeff(insz: tuple[int, ...], out: tuple[int, ...], x: Any) -> Any:
            return inv
    else:
        raise ValueError(f"{fname}: pad_value must be 0 or None, got {pad_value!r}")
    label = "AveragePooling2D" if ndim == 2 else "AveragePoolingND"
    return SumPooling(pp, coeff, label).apply((x,))[0]


def average_pooling_nd(
    x: Any, ksize: Any, stride: Any = None, pad: Any = 0, pad_value: Any = 0
) -> Variable:
    """N-dimensional spatial average pooling.

    Args:
        x: Input of shape ``(n, c, d_1, ..., d_N)``.
        ksize: Window size (int or tuple).
        stride: Stride; ``ksize`` if None.
        pad: Padding on both sides.
        pad_value: ``0``: padding counts as zeros (divide by ``prod(ksize)``);
            ``None``: padding is excluded from the average.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.arange(4, dtype=np.float32).reshape(1, 1, 4)
        >>> F.average_pooling_nd(x, 2).array
        array([[[0.5, 2.5]]], dtype=float32)
    """
    if len(x.shape) < 3:
        raise ValueError(
            f"average_pooling_nd: x must have at least 3 dimensions, got "
            f"shape {tuple(x.shape)}"
        )
    return _avg_pool(
        x, len(x.shape) - 2, ksize, stride, pad, pad_value, "average_pooling_nd"
    )


def average_pooling_1d(
    x: Any, ksize: Any, stride: Any = None, pad: Any = 0, pad_value: Any = 0
) -> Variable:
    """1-dimensional average pooling (``x`` of shape ``(n, c, w)``).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.average_pooling_1d(np.ones((1, 1, 4), np.float32), 2, pad=1).array
        array([[[0.5, 1. , 0.5]]], dtype=float32)
    """
    if len(x.shape) != 3:
        raise ValueError(
            f"average_pooling_1d: x must be 3-dimensional, got shape {tuple(x.shape)}"
        )
    return _avg_pool(x, 1, ksize, stride, pad, pad_value, "average_pooling_1d")


def average_pooling_3d(
    x: Any, ksize: Any, stride: Any = None, pad: Any = 0, pad_value: Any = 0
) -> Variable:
    """3-dimensional average pooling (``x`` of shape ``(n, c, d, h, w)``).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.average_pooling_3d(np.ones((1, 1, 4, 4, 4), np.float32), 2).shape
        (1, 1, 2, 2, 2)
    """
    if len(x.shape) != 5:
        raise ValueError(
            f"average_pooling_3d: x must be 5-dimensional, got shape {tuple(x.shape)}"
        )
    return _avg_pool(x, 3, ksize, stride, pad, pad_value, "average_pooling_3d")
