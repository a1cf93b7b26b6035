"""Reductions by comparison: ``max``, ``min``, ``argmax``, ``argmin``."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import check_float_unary, expand_reduced
from kusari.functions.math.sum import _normalize_axis
from kusari.utils import force_array, type_check
from kusari.variable import Variable


def _is_int(a: Any) -> bool:
    # Python ints only, like the axis handling of ``sum`` that forward uses.
    return isinstance(a, int) and not isinstance(a, bool)


def _check_axis(axis: Any, fname: str) -> None:
    if axis is None or _is_int(axis):
        return
    if not (isinstance(axis, tuple) and all(_is_int(a) for a in axis)):
        raise TypeError(
            f"{fname}: axis must be None, an int or a tuple of ints, got {axis!r}"
        )
    if len(set(axis)) != len(axis):
        raise ValueError(f"{fname}: duplicate value in axis {axis!r}")


class _SelectorBase(FunctionNode):
    name = "max"
    check_type_forward = staticmethod(check_float_unary)

    def __init__(self, axis: Any = None, keepdims: bool = False) -> None:
        # Checked here, as Chainer does, so a bad axis fails at construction
        # rather than at the first forward.
        _check_axis(axis, self.name)
        self.axis = axis
        self.keepdims = keepdims

    @property
    def label(self) -> str:
        return self.name

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        if x.size == 0:
            raise ValueError(f"{self.name}: the input array is empty")
        self._axis = _normalize_axis(self.axis, x.ndim, self.name)
        xp = backend.get_array_module(x)
        y = force_array(
            getattr(xp, "a" + self.name)(x, axis=self._axis, keepdims=True), x.dtype
        )
        self._y = y  # kept with the reduced axes, to compare in backward
        self._in_shape = x.shape
        if not self.keepdims:
            y = y.reshape(_reduced_shape(x.shape, self._axis))
        return (force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.broadcast import broadcast_to

        (x,) = self.get_retained_inputs()
        mask = (x.array == self._y).astype(x.dtype)  # ties all get the gradient
        gy = expand_reduced(grad_outputs[0], self._in_shape, self._axis, self.keepdims)
        return (broadcast_to(gy, self._in_shape) * mask,)


def _reduced_shape(
    shape: tuple[int, ...], axis: tuple[int, ...] | None
) -> tuple[int, ...]:
    if axis is None:
        return ()
    return tuple([s for i, s in enumerate(shape) if i not in axis])


class Max(_SelectorBase):
    name = "max"


class Min(_SelectorBase):
    name = "min"


class _IndexSelector(FunctionNode):
    name = "argmax"

    def __init__(self, axis: Any = None) -> None:
        if axis is not None and (
            not isinstance(axis, (int, numpy.integer)) or isinstance(axis, bool)
        ):
            raise TypeError(f"{self.name}: axis must be None or an int, got {axis!r}")
        self.axis = axis

    @property
    def label(self) -> str:
        return self.name

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")
        if self.axis is not None:
            ndim = type_check.eval(in_types[0].ndim)
            if not -ndim <= self.axis < ndim:
                raise type_check.InvalidType(
                    f"-in_types[0].ndim <= {self.axis} < in_types[0].ndim",
                    f"ndim={ndim}",
                )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        if x.size == 0:
            raise ValueError(f"{self.name}: the input array is empty")
        xp = backend.get_array_module(x)
        y = getattr(xp, self.name)(x, axis=self.axis)
        return (force_array(xp.asarray(y).astype(numpy.int32)),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (None,) * len(indexes)


class ArgMax(_IndexSelector):
    name = "argmax"


class ArgMin(_IndexSelector):
    name = "argmin"


def max(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    """Maximum over the given axes; ties all receive the gradient.

    Args:
        x: Input variable.
        axis: None (all axes), an int, or a tuple of ints.
        keepdims: Keep the reduced axes with length one.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.max(np.array([[1., 5.], [4., 2.]], np.float32), axis=1).array
        array([5., 4.], dtype=float32)
    """
    return Max(axis, keepdims).apply((x,))[0]


def min(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    """Minimum over the given axes; ties all receive the gradient.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.min(np.array([[1., 5.], [4., 2.]], np.float32), axis=1).array
        array([1., 2.], dtype=float32)
    """
    return Min(axis, keepdims).apply((x,))[0]


def argmax(x: Any, axis: Any = None) -> Variable:
    """Indices of the maxima along ``axis`` (of the flattened array if None), int32.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.argmax(np.array([[1., 5.], [4., 2.]], np.float32), axis=1).array
        array([1, 0], dtype=int32)
    """
    return ArgMax(axis).apply((x,))[0]


def argmin(x: Any, axis: Any = None) -> Variable:
    """Indices of the minima along ``axis`` (of the flattened array if None), int32.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.argmin(np.array([[1., 5.], [4., 2.]], np.float32), axis=1).array
        array([0, 1], dtype=int32)
    """
    return ArgMin(axis).apply((x,))[0]
