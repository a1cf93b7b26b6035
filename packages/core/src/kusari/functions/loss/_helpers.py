"""Small differentiable building blocks shared by the loss functions.

They live here (private) so the losses do not depend on families that are
written elsewhere; each node's backward is built from other nodes, so
double backprop works through them.
"""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import force_array, type_check
from kusari.variable import Variable


def check_reduce(fname: str, reduce: str, valid: tuple[str, ...]) -> None:
    """Raise Chainer's ValueError when ``reduce`` is not one of ``valid``."""
    if reduce not in valid:
        names = " and ".join(repr(v) for v in valid)
        raise ValueError(
            f"{fname}: only {names} are valid for 'reduce', but {reduce!r} is given")


def as_array(x: Any) -> Any:
    return x.array if isinstance(x, Variable) else x


def stable_logsumexp(x: Any, axis: Any, keepdims: bool = False) -> Any:
    """Array log-sum-exp that tolerates rows of ``-inf``."""
    xp = backend.get_array_module(x)
    m = x.max(axis=axis, keepdims=True)
    m = xp.where(xp.isfinite(m), m, 0)
    s = xp.exp(x - m).sum(axis=axis, keepdims=True)
    with _quiet(xp):
        y = xp.log(s) + m
    if not keepdims:
        y = y.squeeze(axis=axis)
    return y


class _quiet:
    """``numpy.errstate`` for NumPy arrays, nothing for CuPy."""

    def __init__(self, xp: Any) -> None:
        import numpy

        self._ctx = numpy.errstate(divide="ignore", invalid="ignore") \
            if xp is numpy else None

    def __enter__(self) -> None:
        if self._ctx is not None:
            self._ctx.__enter__()

    def __exit__(self, *args: Any) -> None:
        if self._ctx is not None:
            self._ctx.__exit__(*args)


class LogSumExp(FunctionNode):
    """``log(sum(exp(x), axis))``; backward is ``gy * exp(x - y)``."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        x, = inputs
        return force_array(stable_logsumexp(x, self.axis), x.dtype),

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.broadcast import broadcast_to
        from kusari.functions.array.reshape import reshape
        from kusari.functions.math.exponential import exp

        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        kept = list(x.shape)
        kept[self.axis] = 1
        y_b = broadcast_to(reshape(y, tuple(kept)), x.shape)
        gy_b = broadcast_to(reshape(gy, tuple(kept)), x.shape)
        return gy_b * exp(x - y_b),


def logsumexp(x: Any, axis: int) -> Variable:
    return LogSumExp(axis % as_array(x).ndim).apply((x,))[0]


class Softplus(FunctionNode):
    """``log(1 + exp(x))`` without overflow; backward is ``gy * sigmoid(x)``."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        y = xp.maximum(x, 0) + xp.log1p(xp.exp(-abs(x)))
        return force_array(y, x.dtype),

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.activation.sigmoid import sigmoid

        x, = self.get_retained_inputs()
        return grad_outputs[0] * sigmoid(x),


def softplus(x: Any) -> Variable:
    return Softplus().apply((x,))[0]


class Sqrt(FunctionNode):
    """Elementwise square root; backward is ``gy / (2 * y)``, and 0 where ``y == 0``.

    Zero instead of infinity at the origin keeps masked-out entries (whose
    norm is identically zero) from turning gradients into NaN.
    """

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        x, = inputs
        return force_array(backend.get_array_module(x).sqrt(x)),

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        zero = (y.array == 0).astype(y.dtype)
        return grad_outputs[0] * (1 - zero) / ((y + zero) * 2.0),


def sqrt(x: Any) -> Variable:
    return Sqrt().apply((x,))[0]


class Concat0(FunctionNode):
    """Concatenate along axis 0; backward slices the gradient."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(*inputs)
        self._sizes = [x.shape[0] for x in inputs]
        return xp.concatenate(inputs, axis=0),

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.get_item import get_item

        gy, = grad_outputs
        starts = [0]
        for s in self._sizes:
            starts.append(starts[-1] + s)
        return tuple(get_item(gy, slice(starts[i], starts[i + 1])) for i in indexes)


def concat0(xs: list[Any]) -> Variable:
    if len(xs) == 1:
        x = xs[0]
        return x if isinstance(x, Variable) else Variable(x, requires_grad=False)
    return Concat0().apply(tuple(xs))[0]


def mean_all(x: Variable) -> Variable:
    from kusari.functions.math.sum import sum as _sum

    return _sum(x) * (1.0 / max(x.size, 1))


class _TypeCheck(FunctionNode):
    def __init__(self, label: str, names: tuple[str, ...], check: Any) -> None:
        self._label = label
        self._names = names
        self._check = check

    @property
    def label(self) -> str:
        return self._label

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, self._names)
        self._check(in_types)


def expect_types(label: str, names: tuple[str, ...], inputs: tuple[Any, ...],
                 check: Any) -> None:
    """Run ``check(in_types)`` like a FunctionNode's type check (same messages)."""
    from kusari.configuration import hot_flags

    if not hot_flags().type_check:
        return
    arrays = tuple(as_array(x) for x in inputs)
    _TypeCheck(label, names, check)._check_data_type_forward(arrays)
