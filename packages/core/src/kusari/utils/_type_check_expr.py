"""The expressions of type checks: symbolic values that remember how they
were computed, so a failed ``expect`` can print the expectation.

``in_types[0].shape[1] == 3`` on full-mode type information builds a
:class:`BoolBinaryOperator` over :class:`GetItem` and :class:`GetAttr`
nodes instead of a bool; :func:`kusari.utils.type_check.expect` evaluates it
and prints both sides when it fails. :mod:`kusari.utils.type_check`, which
holds the checker (type information, ``expect``, light mode), re-exports
every name here.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy


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


# Tracebacks and pickles name the public module, where the class has always
# been (and still is) importable.
InvalidType.__module__ = "kusari.utils.type_check"


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
