"""Type checking of function inputs with readable ``Expect/Actual`` errors.

A function's ``check_type_forward(in_types)`` states its expectations as
expressions over the inputs' types, e.g.::

    type_check.expect(in_types[0].dtype.kind == 'f', in_types[0].ndim == 2)

In *full mode* ``in_types`` holds symbolic :class:`Variable` expressions, so a
failing check can print what was expected next to the actual values. In
*light mode* (what ``FunctionNode.apply`` uses first, for speed) ``in_types``
holds the arrays themselves, the comparisons are plain booleans, and a
failure is re-checked in full mode to build the message.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy

# The expression classes are in their own module; every name stays
# importable from here (Chainer code and kusari's use type_check.Variable,
# type_check.InvalidType, type_check.eval and the rest).
from kusari.utils._type_check_expr import (  # noqa: F401
    _INVERSE,
    Atom,
    BinaryOperator,
    BoolBinaryOperator,
    Call,
    Constant,
    Expr,
    GetAttr,
    GetItem,
    InvalidType,
    Testable,
    UnaryOperator,
    Variable,
    _binary,
    _compare,
    _eval,
    _eval_key,
    _key_str,
    _paren,
    _repr,
    _repr_actual,
    eval,
)

_thread_local = threading.local()


class TypeInfo:
    """The type of one array: its ``shape``, ``dtype``, ``ndim`` and ``size``."""

    def __init__(self, shape: tuple[int, ...], dtype: Any) -> None:
        self.shape = shape
        self.dtype = dtype
        self.ndim = len(shape)

    @property
    def size(self) -> int:
        return int(numpy.prod(self.shape, dtype=numpy.int64))


class TypeInfoTuple(tuple):
    """The symbolic types of a function's inputs (full mode)."""

    name: str = "in_types"

    def _set_name(self, name: str) -> None:
        self.name = name

    def size(self) -> Variable:
        return Variable(len(self), f"{self.name}.size")


class LightTypeInfoTuple(tuple):
    """The inputs themselves, used as types in light mode."""

    def size(self) -> int:
        return len(self)


def get_types(
    data: Any, name: str, accept_none: bool, shapes: Any = None
) -> TypeInfoTuple:
    """Build the symbolic types of ``data`` for a full-mode check."""
    if not isinstance(data, (tuple, list)):
        # AssertionError, as Chainer's ``assert isinstance(data, tuple)``.
        raise AssertionError(
            f"type_check.get_types: data must be a tuple of arrays, "
            f"got {type(data).__name__}"
        )
    info = TypeInfoTuple(
        _make_variable(x, f"{name}[{i}]", accept_none) for i, x in enumerate(data)
    )
    info._set_name(name)
    return info


def get_light_types(data: Any) -> LightTypeInfoTuple:
    """Wrap ``data`` for a light-mode check."""
    return LightTypeInfoTuple(data)


def _make_variable(value: Any, name: str, accept_none: bool) -> Variable:
    if value is None and accept_none:
        return Variable(None, name)
    return Variable(TypeInfo(value.shape, value.dtype), name)


def make_variable(value: Any, name: str) -> Variable:
    """Wrap a value as a named expression variable."""
    return Variable(value, name)


def in_light_mode() -> bool:
    """True inside ``with type_check.light_mode``.

    The light checks that ``FunctionNode.apply`` runs are recognised by
    their argument (a :class:`LightTypeInfoTuple`) rather than by this flag.
    """
    return getattr(_thread_local, "light_mode", False)


class LightMode:
    """Context manager turning light mode on (``with type_check.light_mode``)."""

    def __enter__(self) -> None:
        self._old = in_light_mode()
        _thread_local.light_mode = True

    def __exit__(self, *args: Any) -> None:
        _thread_local.light_mode = self._old


light_mode = LightMode()


def expect(*bool_exprs: Any) -> None:
    """Check every expectation; raise :class:`InvalidType` at the first failure.

    Example:
        >>> import numpy as np
        >>> from kusari.utils import type_check
        >>> t = type_check.get_types((np.zeros((2, 3)),), 'in_types', False)
        >>> type_check.expect(t[0].ndim == 2)
    """
    for expr in bool_exprs:
        if expr is True:
            continue
        if isinstance(expr, Testable):
            expr.expect()
        elif isinstance(expr, (bool, numpy.bool_)):
            if not expr:
                raise InvalidType("True", "False")
        else:
            raise TypeError(
                f"type_check.expect takes comparisons, got {type(expr).__name__}"
            )


def _argname(in_types: Any, names: tuple[str, ...]) -> None:
    """Name the inputs (for messages) and check their number."""
    if isinstance(in_types, LightTypeInfoTuple):
        if len(in_types) != len(names):
            raise InvalidType(
                f"{len(names)} argument(s)", f"{len(in_types)} argument(s)"
            )
        return
    if len(in_types) != len(names):
        raise InvalidType(
            f"{len(names)} argument(s) ({', '.join(names)})",
            f"{len(in_types)} argument(s)",
            "Invalid number of arguments",
        )
    for t, name in zip(in_types, names):
        if isinstance(t, Variable):
            t.name = name


def expect_broadcast_shapes(*shape_types: Any, **kwargs: Any) -> None:
    """Check that the shapes broadcast together (NumPy's rules)."""
    allow_none = kwargs.pop("allow_none", False)
    shapes = [_eval(s) for s in shape_types]
    first = shapes[0]
    if all(s == first for s in shapes):
        return
    if allow_none:
        shapes = [s for s in shapes if s is not None]
    try:
        numpy.broadcast_shapes(*shapes)
    except ValueError:
        names = ", ".join(str(s) for s in shape_types)
        raise InvalidType(
            f"{names} can be broadcast",
            ", ".join(str(s) for s in shapes) + " cannot be broadcast",
        ) from None


def same_types(*arrays: Any) -> bool:
    """True when all arrays are of one array type (all NumPy or all CuPy)."""
    types = {type(a) for a in arrays if a is not None}
    return len(types) <= 1 or all(issubclass(t, numpy.ndarray) for t in types)


def _prod_of(values: Any) -> Any:
    result: Any = 1
    for v in values:
        result = result * v
    return result


_PROD = Variable(_prod_of, "prod")


def prod(xs: Any) -> Any:
    """The product of a sequence of values or expressions, as an expression.

    As in Chainer, the result is symbolic (printed as ``prod(...)`` in
    messages; :func:`eval` gives the number) except in light mode, where it
    is the number itself.

    Example:
        >>> from kusari.utils import type_check
        >>> p = type_check.prod([2, 3])
        >>> str(p), type_check.eval(p)
        ('prod([2, 3])', 6)
    """
    if in_light_mode():
        return _prod_of(xs)
    return Call(_PROD, (xs,))


class _CheckContext:
    def __init__(self, func: Any) -> None:
        self.func = func

    def __enter__(self) -> None:
        self._old = getattr(_thread_local, "current_function", None)
        _thread_local.current_function = self.func

    def __exit__(self, *args: Any) -> None:
        _thread_local.current_function = self._old


def get_function_check_context(f: Any) -> _CheckContext:
    """Context naming the function whose inputs are being checked."""
    return _CheckContext(f)


def get_current_function() -> Any:
    return getattr(_thread_local, "current_function", None)
