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

import operator
import threading
from typing import Any

import numpy

_thread_local = threading.local()


class InvalidType(Exception):
    """Raised when a type check fails.

    Attributes:
        expect: The expectation, as text.
        actual: What was found, as text.
    """

    def __init__(self, expect: str, actual: str, msg: str | None = None) -> None:
        if msg is None:
            msg = f"Expect: {expect}\nActual: {actual}"
        super().__init__(msg)
        self.expect = expect
        self.actual = actual

    def __reduce__(self) -> Any:
        return type(self), (self.expect, self.actual, str(self))


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


class Expr:
    """A symbolic expression; operators build larger expressions.

    ``priority`` orders the operators as Python does, a higher value binding
    tighter (Chainer's numbering): comparisons -1, ``|`` 0, ``^`` 1, ``&`` 2,
    shifts 3, ``+ -`` 4, ``* / // %`` 5, unary ``- + ~`` 6, ``**`` 7 and
    atoms (names, attributes, items, calls) 8.
    """

    def __init__(self, priority: int) -> None:
        self.priority = priority

    def eval(self) -> Any:
        raise NotImplementedError

    def __bool__(self) -> bool:
        raise RuntimeError(
            "an Expr cannot be used as a bool; call type_check.eval() first or "
            "pass it to type_check.expect()"
        )

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return GetAttr(self, name)

    def __getitem__(self, key: Any) -> GetItem:
        return GetItem(self, key)

    def __iter__(self) -> Any:
        # Without this Python would iterate by calling __getitem__(0, 1, ...)
        # forever: a symbolic expression has no length.
        raise TypeError(
            "a type_check expression cannot be iterated; evaluate it first with "
            "type_check.eval(...)"
        )

    def __call__(self, *args: Any) -> Call:
        return Call(self, args)

    __hash__ = None  # type: ignore[assignment]


def _repr(value: Any) -> str:
    if isinstance(value, Expr):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_repr(v) for v in value) + "]"
    if isinstance(value, tuple):
        if len(value) == 1:
            return f"({_repr(value[0])},)"
        return "(" + ", ".join(_repr(v) for v in value) + ")"
    if isinstance(value, numpy.dtype):
        return f"<class 'numpy.{value.name}'>" if value.names is None else repr(value)
    if isinstance(value, type) and issubclass(value, numpy.generic):
        return f"<class 'numpy.{value.__name__}'>"
    return repr(value)


class Atom(Expr):
    def __init__(self) -> None:
        super().__init__(8)


class Constant(Atom):
    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value

    def __str__(self) -> str:
        return _repr(self.value)

    def eval(self) -> Any:
        return self.value


class Variable(Atom):
    def __init__(self, value: Any, name: str) -> None:
        super().__init__()
        self.value = value
        self.name = name

    def __str__(self) -> str:
        return self.name

    def eval(self) -> Any:
        return self.value


class GetAttr(Atom):
    def __init__(self, obj: Expr, name: Any) -> None:
        super().__init__()
        self.obj = obj
        self.attr_name = name

    def __str__(self) -> str:
        name = self.attr_name
        if isinstance(name, Constant):
            name = name.value
        if isinstance(name, str):
            return f"{_repr(self.obj)}.{name}"
        return f"getattr({_repr(self.obj)}, {_repr(self.attr_name)})"

    def eval(self) -> Any:
        return getattr(_eval(self.obj), _eval(self.attr_name))


class GetItem(Atom):
    def __init__(self, obj: Expr, key: Any) -> None:
        super().__init__()
        self.obj = obj
        self.key = key

    def __str__(self) -> str:
        return f"{_repr(self.obj)}[{_key_str(self.key)}]"

    def eval(self) -> Any:
        return _eval(self.obj)[_eval_key(self.key)]


def _key_str(key: Any) -> str:
    if isinstance(key, tuple):
        return ", ".join(_key_str(k) for k in key)
    if key is Ellipsis:
        return "..."
    if isinstance(key, slice):
        parts = ["" if p is None else _repr(p) for p in (key.start, key.stop)]
        s = ":".join(parts)
        return s if key.step is None else f"{s}:{_repr(key.step)}"
    return _repr(key)


def _eval_key(key: Any) -> Any:
    if isinstance(key, tuple):
        return tuple(_eval_key(k) for k in key)
    if isinstance(key, slice):
        return slice(_eval(key.start), _eval(key.stop), _eval(key.step))
    return _eval(key)


class Call(Atom):
    def __init__(self, obj: Expr, args: tuple[Any, ...]) -> None:
        super().__init__()
        self.obj = obj
        self.args = args

    def __str__(self) -> str:
        return f"{_repr(self.obj)}({', '.join(_repr(a) for a in self.args)})"

    def eval(self) -> Any:
        return _eval(self.obj)(*[_eval(a) for a in self.args])


def _paren(expr: Any, priority: int, on_tie: bool = False) -> str:
    """``expr`` as text, parenthesized when it binds looser than ``priority``
    (or as loosely, when ``on_tie``: the side an operator does not associate to).
    """
    s = _repr(expr)
    if isinstance(expr, Expr) and (
        expr.priority < priority or (on_tie and expr.priority == priority)
    ):
        return f"({s})"
    return s


class UnaryOperator(Expr):
    def __init__(self, priority: int, term: Any, exp: str, func: Any) -> None:
        super().__init__(priority)
        self.term = term
        self.exp = exp
        self.func = func

    def __str__(self) -> str:
        return f"{self.exp}{_paren(self.term, self.priority)}"

    def eval(self) -> Any:
        return self.func(_eval(self.term))


class BinaryOperator(Expr):
    def __init__(
        self,
        priority: int,
        lhs: Any,
        rhs: Any,
        exp: str,
        func: Any,
        right_associative: bool = False,
    ) -> None:
        super().__init__(priority)
        self.lhs = lhs
        self.rhs = rhs
        self.exp = exp
        self.func = func
        self.right_associative = right_associative

    def __str__(self) -> str:
        left = _paren(self.lhs, self.priority, self.right_associative)
        right = _paren(self.rhs, self.priority, not self.right_associative)
        return f"{left} {self.exp} {right}"

    def eval(self) -> Any:
        return self.func(_eval(self.lhs), _eval(self.rhs))


class Testable:
    """An expression that :func:`expect` can test."""

    def expect(self) -> None:
        raise NotImplementedError


_INVERSE = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}


class BoolBinaryOperator(BinaryOperator, Testable):
    """A comparison; ``inv`` is the operator shown when it fails."""

    def __init__(self, lhs: Any, rhs: Any, exp: str, inv: str, func: Any) -> None:
        # Comparisons bind loosest (-1), so their operands never need parentheses.
        super().__init__(-1, lhs, rhs, exp, func)
        self.inv = inv

    def expect(self) -> None:
        left = _eval(self.lhs)
        right = _eval(self.rhs)
        if not self.func(left, right):
            raise InvalidType(
                str(self),
                f"{_repr_actual(left)} {self.inv} {_repr_actual(right)}",
            )


def _repr_actual(value: Any) -> str:
    if isinstance(value, numpy.dtype):
        return str(value)
    return repr(value) if isinstance(value, str) else str(value)


def _eval(x: Any) -> Any:
    if isinstance(x, Expr):
        return x.eval()
    # Lists and tuples may hold expressions: ``shape == (n, in_types[1].ndim)``.
    if isinstance(x, list):
        return [_eval(v) for v in x]
    if isinstance(x, tuple):
        return tuple(_eval(v) for v in x)
    return x


def eval(exp: Any) -> Any:
    """Evaluate an expression (a plain value is returned unchanged)."""
    return _eval(exp)


# Operands that are not expressions are kept as they are (not wrapped in a
# Constant): a list or tuple may hold expressions, evaluated item by item.
def _binary(exp: str, func: Any, priority: int, right_assoc: bool = False) -> Any:
    def method(self: Expr, other: Any) -> BinaryOperator:
        return BinaryOperator(priority, self, other, exp, func, right_assoc)

    def rmethod(self: Expr, other: Any) -> BinaryOperator:
        return BinaryOperator(priority, other, self, exp, func, right_assoc)

    return method, rmethod


def _compare(exp: str, func: Any) -> Any:
    def method(self: Expr, other: Any) -> BoolBinaryOperator:
        return BoolBinaryOperator(self, other, exp, _INVERSE[exp], func)

    return method


for _name, _exp, _func, _prio in [
    ("add", "+", operator.add, 4),
    ("sub", "-", operator.sub, 4),
    ("mul", "*", operator.mul, 5),
    ("truediv", "/", operator.truediv, 5),
    ("floordiv", "//", operator.floordiv, 5),
    ("mod", "%", operator.mod, 5),
    ("lshift", "<<", operator.lshift, 3),
    ("rshift", ">>", operator.rshift, 3),
    ("and", "&", operator.and_, 2),
    ("xor", "^", operator.xor, 1),
    ("or", "|", operator.or_, 0),
]:
    _m, _r = _binary(_exp, _func, _prio)
    setattr(Expr, f"__{_name}__", _m)
    setattr(Expr, f"__r{_name}__", _r)
_m, _r = _binary("**", operator.pow, 7, right_assoc=True)
setattr(Expr, "__pow__", _m)  # noqa: B010 - set like the operators above
setattr(Expr, "__rpow__", _r)  # noqa: B010
for _name, _exp, _func in [
    ("eq", "==", operator.eq),
    ("ne", "!=", operator.ne),
    ("lt", "<", operator.lt),
    ("le", "<=", operator.le),
    ("gt", ">", operator.gt),
    ("ge", ">=", operator.ge),
]:
    setattr(Expr, f"__{_name}__", _compare(_exp, _func))
Expr.__neg__ = lambda self: UnaryOperator(6, self, "-", operator.neg)  # type: ignore
Expr.__pos__ = lambda self: UnaryOperator(6, self, "+", operator.pos)  # type: ignore
Expr.__invert__ = lambda self: UnaryOperator(6, self, "~", operator.invert)  # type: ignore


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
