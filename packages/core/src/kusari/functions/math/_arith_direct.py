"""Arithmetic on arrays without a FunctionNode, where nothing would record it.

The operators of :mod:`kusari.functions.math.basic_math` call these when
backprop is off: the result is the array arithmetic wrapped in a new leaf
Variable, with large operands split over the intra-op threads.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari import function_hook
from kusari.configuration import _generation, _hot, hot_flags
from kusari.utils import threads
from kusari.variable import Variable, _array_types

_n_hooks = function_hook._n_registered
_var_new = object.__new__
_ndarray = numpy.ndarray
# Operands of at least this many elements are split over the intra-op
# threads (see threads.elementwise); below it an operation costs one
# comparison more.
BIG = threads.MIN_ELEMENTS


def direct() -> int:
    """Whether arithmetic may run directly on arrays, skipping FunctionNode.

    It may when nothing would observe or record the node: no graph is being
    recorded, no debug checks and no function hooks. This is kusari's one
    arithmetic fast path (Variable's operators are these functions), taken
    in two modes:

    * ``1``, unchecked: type checks are off too. This is the mode the
      backward pass runs in (on Variables), so first-order backprop costs
      about what the array arithmetic costs.
    * ``2``, checked: type checks are on (``no_backprop_mode`` in user
      code). The caller computes directly only where the function's type
      check passes on sight (NumPy arrays of one dtype and shape, or a
      NumPy array and a scalar); anything else goes through FunctionNode,
      which checks and explains.

    Returns 0 when the FunctionNode must run. Callers test
    ``not _hot.enable_backprop or _hot.generation != _generation[0]`` first:
    while a graph is recorded (forward), the flag alone decides, without a
    call; a stale snapshot (the configuration changed since, e.g. on
    entering ``no_backprop_mode``) comes here to be refreshed, so the first
    operation in a ``no_backprop_mode`` block is direct too.
    """
    h = _hot
    if h.generation != _generation[0]:
        h = hot_flags()
    if h.enable_backprop or h.debug or _n_hooks[0]:
        return 0
    return 2 if h.type_check else 1


def large(ufunc: Any, op: Any, *args: Any) -> Any:
    """``op(*args)`` for operands of which one may be large: threaded if so."""
    big = False
    for a in args:
        t = type(a)
        if t is _ndarray:
            big = big or a.size >= BIG
        elif t is not float and t is not int:
            return op(*args)  # CuPy arrays, objects with their own operators
    return threads.elementwise(ufunc, *args) if big else op(*args)


def plain_result(y: Any, requires_grad: bool) -> Variable:
    """Wrap the result of plain arithmetic (no graph) in a Variable."""
    if type(y) is not _ndarray and not isinstance(y, _array_types):
        y = numpy.asarray(y)  # NumPy turns 0-dim results into scalars
    v = _var_new(Variable)
    v._data = y
    v._requires_grad = requires_grad
    return v


def direct_binary(
    ufunc: Any, op: Any, lhs: Any, rhs: Any, float_only: bool
) -> Variable | None:
    """``op(lhs, rhs)`` without a FunctionNode, or None where it must run.

    Called with backprop off (see :func:`direct`); ``float_only`` adds the
    check of the float-only operations (division).
    """
    # direct(), array_of and needs_grad inlined: this is the whole per-op
    # cost of arithmetic in no_backprop_mode.
    h = _hot
    if h.generation != _generation[0]:
        h = hot_flags()
    if h.enable_backprop or h.debug or _n_hooks[0]:
        return None
    if type(lhs) is Variable:
        a = lhs._data
        rg = lhs._requires_grad
    else:
        a = array_of(lhs)
        rg = needs_grad(lhs)
    if type(rhs) is Variable:
        b = rhs._data
        rg = rg or rhs._requires_grad
    else:
        b = array_of(rhs)
        rg = rg or needs_grad(rhs)
    if h.type_check:
        # What the function's type check would pass on sight (the dtype
        # objects of NumPy's built-in types are shared, hence `is` first).
        if (
            type(a) is not _ndarray
            or type(b) is not _ndarray
            or (a.dtype is not b.dtype and a.dtype != b.dtype)
            or a.shape != b.shape
            or (float_only and a.dtype.kind != "f")
        ):
            return None
        small = a.size < BIG
    else:
        small = (
            type(a) is _ndarray
            and type(b) is _ndarray
            and a.size < BIG
            and b.size < BIG
        )
    if small:
        y = op(a, b)
        if type(y) is not _ndarray:
            y = numpy.asarray(y)
        v = _var_new(Variable)
        v._data = y
        v._requires_grad = rg
        return v
    return plain_result(large(ufunc, op, a, b), rg)


def direct_constant(
    ufunc: Any, op: Any, x: Any, value: Any, reflected: bool = False
) -> Variable | None:
    """``op(x, value)`` (``op(value, x)`` if reflected) without a FunctionNode.

    The constant operations used here have no type check beyond their input
    being an array, which a checked mode (2) requires of NumPy's own.
    """
    # direct(), array_of and needs_grad inlined, as in direct_binary.
    h = _hot
    if h.generation != _generation[0]:
        h = hot_flags()
    if h.enable_backprop or h.debug or _n_hooks[0]:
        return None
    if type(x) is Variable:
        d = x._data
        rg = x._requires_grad
    else:
        d = array_of(x)
        rg = needs_grad(x)
    if type(d) is _ndarray and d.size < BIG:
        y = op(value, d) if reflected else op(d, value)
        if type(y) is not _ndarray:
            y = numpy.asarray(y)  # NumPy turns 0-dim results into scalars
        v = _var_new(Variable)
        v._data = y
        v._requires_grad = rg
        return v
    if h.type_check and type(d) is not _ndarray:
        return None
    args = (value, d) if reflected else (d, value)
    return plain_result(large(ufunc, op, *args), rg)


def array_of(x: Any) -> Any:
    """The array of a Variable, or ``x`` itself."""
    return x._data if isinstance(x, Variable) else x


def needs_grad(x: Any) -> bool:
    """Whether ``x`` is a Variable that requires a gradient."""
    return isinstance(x, Variable) and x._requires_grad
