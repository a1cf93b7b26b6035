"""Arithmetic on Variables: the functions behind ``+ - * / // ** @`` and ``-x``.

Binary operations accept a Variable or array on each side (same dtype,
broadcastable shapes) or a Python/NumPy scalar on one side, which is cast to
the variable's dtype. As in Chainer, a constant array of another dtype is cast
to the dtype of the Variable it meets.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy

from kusari import backend
from kusari.configuration import _generation, _hot
from kusari.functions.array.get_item import get_item
from kusari.functions.array.reshape import reshape
from kusari.functions.array.transpose import transpose
from kusari.functions.math._arith_direct import (
    array_of,
    direct,
    direct_binary,
    direct_constant,
    large,
    needs_grad,
    plain_result,
)

# The FunctionNodes live in two modules of their own; every name stays
# importable from here, where Chainer code (and kusari's) looks for it.
from kusari.functions.math._arith_nodes import (  # noqa: F401
    _BOTH_INPUTS,
    Absolute,
    Add,
    AddConstant,
    Mul,
    MulConstant,
    MultiAdd,
    Neg,
    Sub,
    SubFromConstant,
    _check_binary,
    _check_scalar,
    _ConstantOp,
    _FloatConstantOp,
    _is_operand,
    _ndarray,
    _operand_types,
    _py_scalar,
    _reduce_to,
    _retained,
    _scalar_label,
    _sum_to_array,
    neg,
)
from kusari.functions.math._div_pow_nodes import (
    Div,
    DivFromConstant,
    FloorDiv,
    PowConstVar,
    PowVarConst,
    PowVarVar,
)
from kusari.functions.math.matmul import matmul as _matmul
from kusari.utils import type_check
from kusari.variable import Variable, _array_types


def _as_dtype_of(x: Any, c: Any) -> Any:
    """``c`` cast to the dtype of ``x``, or None where Chainer would not cast.

    Chainer v7 casts a constant array operand (an ndarray, never a Variable)
    to the dtype of the Variable it meets, so ``x + a`` with ``x`` float64
    and ``a`` float32 is float64. The operators try the operands as given
    first and call this only after the type check has failed: the common
    case pays nothing for it.
    """
    if isinstance(c, Variable) or not _is_operand(c):
        return None
    dtype = getattr(x, "dtype", None)
    if dtype is None or c.dtype == dtype:
        return None
    return c.astype(dtype, copy=False)


def _retry_with_cast(node_cls: Any, operands: tuple[Any, Any], const_index: int) -> Any:
    """Apply ``node_cls`` again with the constant array operand cast to the
    other operand's dtype (see :func:`_as_dtype_of`); called from the
    ``except InvalidType`` of an operator, whose error it re-raises where
    Chainer would not cast either."""
    var, const = operands[1 - const_index], operands[const_index]
    c = _as_dtype_of(var, const)
    if c is None:
        raise  # the operator's InvalidType, being handled by the caller
    cast = (var, c) if const_index == 1 else (c, var)
    return node_cls().apply(cast)[0]


def _convert_value_to_string(value: Any) -> str:
    """Chainer's label text of an operand: ``'(-2)'``, ``'2.0'``, ``'constant array'``.

    Raises:
        ValueError: ``value`` is neither a scalar, an array nor a Variable.
    """
    if isinstance(value, Variable):
        value = value.array
    if isinstance(value, (int, float, numpy.number)):
        return f"({value})" if value < 0 else str(value)
    if isinstance(value, _array_types):
        return "constant array"
    raise ValueError(
        "_convert_value_to_string: expected a Variable, a scalar or an array, "
        f"got {type(value).__name__}"
    )


# -- the operations ------------------------------------------------------------
# Each picks the FunctionNode for its operands (a constant, a Variable or an
# array) or, when nothing records or observes a graph, computes directly on
# the arrays (kusari.functions.math._arith_direct).


def absolute(self: Any) -> Variable:
    """Elementwise absolute value, ``abs(x)``."""
    return Absolute().apply((self,))[0]


def add(*xs: Any) -> Variable:
    """Elementwise sum: ``add(a, b)`` is ``a + b``; more (or one) are summed.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.add(np.ones(2, np.float32), np.ones(2, np.float32)).array
        array([2., 2.], dtype=float32)
    """
    if len(xs) == 2:
        return _add(xs[0], xs[1])
    if not xs:
        raise TypeError("add takes at least 1 input, got 0")
    # One input is its own sum (a copy of it), as in Chainer.
    return MultiAdd().apply(xs)[0]


def _add(lhs: Any, rhs: Any) -> Variable:
    """``lhs + rhs`` (``Variable.__add__`` and ``__radd__``)."""
    t = type(rhs)
    if t is float or t is int:
        value = rhs
    elif t is Variable or _is_operand(rhs):
        if not _hot.enable_backprop or _hot.generation != _generation[0]:
            y = direct_binary(numpy.add, operator.add, lhs, rhs, False)
            if y is not None:
                return y
        try:
            if isinstance(lhs, Variable) and isinstance(rhs, Variable):
                return Add()._apply_two(lhs, rhs)[0]  # apply's shortcut
            return Add().apply((lhs, rhs))[0]
        except type_check.InvalidType:
            return _retry_with_cast(Add, (lhs, rhs), 1)
    else:
        value = _check_scalar(rhs, "add")
    if not _hot.enable_backprop or _hot.generation != _generation[0]:
        y = direct_constant(numpy.add, operator.add, lhs, value)
        if y is not None:
            return y
    if isinstance(lhs, Variable):
        return AddConstant(value)._apply_one(lhs)[0]
    return AddConstant(value).apply((lhs,))[0]


def sub(self: Any, rhs: Any) -> Variable:
    """Elementwise difference, ``a - b``."""
    t = type(rhs)
    if t is float or t is int:
        value = rhs
    elif t is Variable or _is_operand(rhs):
        if not _hot.enable_backprop or _hot.generation != _generation[0]:
            y = direct_binary(numpy.subtract, operator.sub, self, rhs, False)
            if y is not None:
                return y
        try:
            return Sub().apply((self, rhs))[0]
        except type_check.InvalidType:
            return _retry_with_cast(Sub, (self, rhs), 1)
    else:
        value = _check_scalar(rhs, "sub")
    if not _hot.enable_backprop or _hot.generation != _generation[0]:
        y = direct_constant(numpy.subtract, operator.sub, self, value)
        if y is not None:
            return y
    return AddConstant(-value).apply((self,))[0]


def rsub(self: Any, rhs: Any) -> Variable:
    """Reflected difference, ``rhs - self``."""
    if _is_operand(rhs):
        try:
            return Sub().apply((rhs, self))[0]
        except type_check.InvalidType:
            return _retry_with_cast(Sub, (rhs, self), 0)
    value = _check_scalar(rhs, "rsub")
    if not _hot.enable_backprop or _hot.generation != _generation[0]:
        y = direct_constant(numpy.subtract, operator.sub, self, value, True)
        if y is not None:
            return y
    return SubFromConstant(value).apply((self,))[0]


def mul(self: Any, rhs: Any) -> Variable:
    """Elementwise product, ``a * b``."""
    t = type(rhs)
    if t is float or t is int:
        value = rhs
    elif t is Variable or _is_operand(rhs):
        if not _hot.enable_backprop or _hot.generation != _generation[0]:
            y = direct_binary(numpy.multiply, operator.mul, self, rhs, False)
            if y is not None:
                return y
        try:
            if isinstance(self, Variable) and isinstance(rhs, Variable):
                return Mul()._apply_two(self, rhs)[0]  # apply's shortcut
            return Mul().apply((self, rhs))[0]
        except type_check.InvalidType:
            return _retry_with_cast(Mul, (self, rhs), 1)
    else:
        value = _check_scalar(rhs, "mul")
    if not _hot.enable_backprop or _hot.generation != _generation[0]:
        y = direct_constant(numpy.multiply, operator.mul, self, value)
        if y is not None:
            return y
    if isinstance(self, Variable):
        return MulConstant(value)._apply_one(self)[0]
    return MulConstant(value).apply((self,))[0]


def div(self: Any, rhs: Any) -> Variable:
    """Elementwise true division, ``a / b``."""
    if _is_operand(rhs):
        if not _hot.enable_backprop or _hot.generation != _generation[0]:
            y = direct_binary(numpy.true_divide, operator.truediv, self, rhs, True)
            if y is not None:
                return y
        try:
            return Div().apply((self, rhs))[0]
        except type_check.InvalidType:
            return _retry_with_cast(Div, (self, rhs), 1)
    value = _check_scalar(rhs, "div")
    return mul(self, 1.0 / value)


def rdiv(self: Any, rhs: Any) -> Variable:
    """Reflected division, ``rhs / self``."""
    if _is_operand(rhs):
        try:
            return Div().apply((rhs, self))[0]
        except type_check.InvalidType:
            return _retry_with_cast(Div, (rhs, self), 0)
    value = _check_scalar(rhs, "rdiv")
    if not _hot.enable_backprop or _hot.generation != _generation[0]:
        mode = direct()
        d = array_of(self)
        # DivFromConstant's type check: a float input.
        if mode == 1 or (mode == 2 and type(d) is _ndarray and d.dtype.kind == "f"):
            return plain_result(
                large(numpy.true_divide, operator.truediv, value, d), needs_grad(self)
            )
    return DivFromConstant(value).apply((self,))[0]


def floordiv(self: Any, rhs: Any) -> Variable:
    """Elementwise floor division (not differentiable: zero gradient)."""
    if _is_operand(rhs):
        return FloorDiv().apply((self, rhs))[0]
    value = _check_scalar(rhs, "floordiv")
    x = self.array if isinstance(self, Variable) else self
    return FloorDiv().apply(
        (self, backend.get_array_module(x).asarray(value, dtype=x.dtype))
    )[0]


def rfloordiv(self: Any, rhs: Any) -> Variable:
    """Reflected floor division, ``rhs // self``."""
    if _is_operand(rhs):
        return FloorDiv().apply((rhs, self))[0]
    value = _check_scalar(rhs, "rfloordiv")
    x = self.array if isinstance(self, Variable) else self
    return FloorDiv().apply(
        (backend.get_array_module(x).asarray(value, dtype=x.dtype), self)
    )[0]


def pow(self: Any, rhs: Any) -> Variable:
    """Elementwise power, ``a ** b``."""
    if _is_operand(rhs):
        try:
            return PowVarVar().apply((self, rhs))[0]
        except type_check.InvalidType:
            return _retry_with_cast(PowVarVar, (self, rhs), 1)
    return PowVarConst(_check_scalar(rhs, "pow")).apply((self,))[0]


def rpow(self: Any, rhs: Any) -> Variable:
    """Reflected power, ``rhs ** self``."""
    if _is_operand(rhs):
        try:
            return PowVarVar().apply((rhs, self))[0]
        except type_check.InvalidType:
            return _retry_with_cast(PowVarVar, (rhs, self), 0)
    return PowConstVar(_check_scalar(rhs, "rpow")).apply((self,))[0]


# -- matrix product -------------------------------------------------------------


def matmul(self: Any, rhs: Any) -> Variable:
    """Matrix product, ``a @ b`` (NumPy's matmul semantics)."""
    if not _is_operand(rhs):
        raise TypeError(
            f"matmul: expected a Variable or ndarray, got {type(rhs).__name__}"
        )
    return _matmul(self, rhs)


def rmatmul(self: Any, rhs: Any) -> Variable:
    """Reflected matrix product, ``rhs @ self``."""
    if not _is_operand(rhs):
        raise TypeError(
            f"matmul: expected a Variable or ndarray, got {type(rhs).__name__}"
        )
    return _matmul(rhs, self)


# -- Variable's operators and array methods -------------------------------------
# The engine (kusari.variable) must not import this layer, so the operators
# of Variable are bound here, by bind_variable_methods, which ``import
# kusari`` calls once. The functions above are the operators themselves: the
# graph-free fast path for arithmetic exists once, in them.


def _variable_reshape(self: Variable, *shape: Any) -> Variable:
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return reshape(self, shape)


def _variable_transpose(self: Variable, *axes: Any) -> Variable:
    """``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``."""
    if not axes:
        return transpose(self, None)
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        return transpose(self, axes[0])
    return transpose(self, axes)


def _variable_T(self: Variable) -> Variable:
    """The transpose (reversed axes)."""
    return transpose(self)


# Variable attribute -> the function that implements it.
VARIABLE_METHODS: dict[str, Any] = {
    "__neg__": neg,
    "__abs__": absolute,
    "__add__": _add,
    "__radd__": _add,  # elementwise addition commutes
    "__sub__": sub,
    "__rsub__": rsub,
    "__mul__": mul,
    "__rmul__": mul,  # elementwise multiplication commutes
    "__truediv__": div,
    "__rtruediv__": rdiv,
    "__floordiv__": floordiv,
    "__rfloordiv__": rfloordiv,
    "__pow__": pow,
    "__rpow__": rpow,
    "__matmul__": matmul,
    "__rmatmul__": rmatmul,
    "__getitem__": get_item,
    "reshape": _variable_reshape,
    "transpose": _variable_transpose,
    "T": property(_variable_T),
}


def bind_variable_methods(cls: type[Variable] = Variable) -> None:
    """Install the operators and array methods on ``cls`` (``import kusari`` does).

    Args:
        cls: The class to bind onto; :class:`~kusari.Variable` by default.
    """
    for name, impl in VARIABLE_METHODS.items():
        setattr(cls, name, impl)
