"""Helpers shared by the loss functions.

Chainer's check of ``reduce``, type checks for losses composed from other
functions, and a square root whose gradient is zero (not infinite) at zero
so that norms of masked-out entries do not turn gradients into NaN.
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
        quoted = [repr(v) for v in valid]
        names = " and ".join(
            [", ".join(quoted[:-1]), quoted[-1]] if quoted[:-1] else quoted
        )
        raise ValueError(
            f"{fname}: only {names} are valid for 'reduce', but {reduce!r} is given"
        )


def as_array(x: Any) -> Any:
    return x.array if isinstance(x, Variable) else x


class _quiet:
    """``numpy.errstate`` for NumPy arrays, nothing for CuPy."""

    def __init__(self, xp: Any) -> None:
        import numpy

        self._ctx = (
            numpy.errstate(divide="ignore", invalid="ignore") if xp is numpy else None
        )

    def __enter__(self) -> None:
        if self._ctx is not None:
            self._ctx.__enter__()

    def __exit__(self, *args: Any) -> None:
        if self._ctx is not None:
            self._ctx.__exit__(*args)


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
        (x,) = inputs
        return (force_array(backend.get_array_module(x).sqrt(x)),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (y,) = self.get_retained_outputs()
        zero = (y.array == 0).astype(y.dtype)
        return (grad_outputs[0] * (1 - zero) / ((y + zero) * 2.0),)


def sqrt(x: Any) -> Variable:
    return Sqrt().apply((x,))[0]


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


def expect_types(
    label: str, names: tuple[str, ...], inputs: tuple[Any, ...], check: Any
) -> None:
    """Run ``check(in_types)`` like a FunctionNode's type check (same messages)."""
    from kusari.configuration import hot_flags

    if not hot_flags().type_check:
        return
    arrays = tuple(as_array(x) for x in inputs)
    _TypeCheck(label, names, check)._check_data_type_forward(arrays)
