"""Class decorators that multiply a test class over parameter sets.

``parameterize`` makes one subclass per parameter dict, named
``<Class>_param_<i>_{k=v, ...}``, puts each into the class's module (where
pytest and unittest find it) and returns a bundle of them instead of the
original class, so the original is not collected on its own and decorators
stack: ``@parameterize(...)`` under ``@inject_backend_tests(...)`` or under
another ``@parameterize(...)`` multiplies the cases again.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

# A generator receives a class and yields (name, members, method_wrapper)
# for each class to derive from it; method_wrapper rewrites (or, returning
# None, keeps) each test method.
CaseGenerator = Callable[
    [type], Iterable[tuple[str, dict[str, Any], Callable[[Any], Any] | None]]
]


class ParameterizedCases:
    """What a parameterizing decorator returns: the generated test classes.

    It is not a class, so test collectors skip it; the generated classes sit
    in the module under their own names.
    """

    def __init__(self, classes: list[type]) -> None:
        self.classes = classes

    def __iter__(self) -> Iterator[type]:
        return iter(self.classes)

    def __repr__(self) -> str:
        return f"<ParameterizedCases of {len(self.classes)} classes>"


def make_decorator(generator: CaseGenerator) -> Callable[[Any], ParameterizedCases]:
    """A class decorator that derives classes with ``generator``."""

    def decorate(target: Any) -> ParameterizedCases:
        if isinstance(target, ParameterizedCases):
            sources = target.classes
        elif isinstance(target, type):
            sources = [target]
        else:
            raise TypeError(
                f"a test-case decorator needs a class, got {type(target).__name__}"
            )
        made = []
        for source in sources:
            module = sys.modules[source.__module__]
            if getattr(module, source.__name__, None) is source:
                delattr(module, source.__name__)  # replaced by its derivatives
            for name, members, wrap in generator(source):
                cls = type(name, (source,), dict(members))
                cls.__module__ = source.__module__
                cls.__qualname__ = name
                if wrap is not None:
                    for attr, method in inspect.getmembers(cls, inspect.isfunction):
                        if attr.startswith("test"):
                            new = wrap(method)
                            if new is not None:
                                setattr(cls, attr, new)
                setattr(module, name, cls)
                made.append(cls)
        return ParameterizedCases(made)

    return decorate


def _format_value(value: Any) -> str:
    if isinstance(value, type):
        return value.__name__
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _param_name(base: type, index: int, params: dict[str, Any]) -> str:
    inner = ", ".join(f"{k}={_format_value(v)}" for k, v in sorted(params.items()))
    return f"{base.__name__}_param_{index}_{{{inner}}}"


def parameterize(*params: dict[str, Any]) -> Callable[[Any], ParameterizedCases]:
    """Make one copy of a test class per parameter dict (as attributes).

    Example:
        >>> import unittest
        >>> from kusari import testing
        >>> @testing.parameterize({'n': 1}, {'n': 2})
        ... class TestTwice(unittest.TestCase):
        ...     def test_positive(self):
        ...         assert self.n > 0
        >>> [c.n for c in TestTwice]
        [1, 2]
    """
    for p in params:
        if not isinstance(p, dict):
            raise TypeError(
                f"parameterize: each parameter set must be a dict, got {p!r}"
            )

    def generator(base: type) -> Iterator[tuple[str, dict[str, Any], None]]:
        for i, p in enumerate(params):
            # A plain function given as a parameter value (a lambda, an order
            # sampler, ...) must read back as that function: as a bare class
            # attribute it would become a bound method and get ``self``.
            members = {
                k: staticmethod(v) if inspect.isfunction(v) else v for k, v in p.items()
            }
            members["_kusari_parameters"] = dict(p)
            yield _param_name(base, i, p), members, None

    return make_decorator(generator)


def parameterize_pytest(names: str, values: Sequence[Any]) -> Any:
    """``pytest.mark.parametrize`` for unittest-style classes too.

    The values become attributes of generated classes (as with
    :func:`parameterize`), since unittest methods cannot take arguments.
    """
    keys = [n.strip() for n in names.split(",")]
    dicts = []
    for value in values:
        row = (value,) if len(keys) == 1 else tuple(value)
        if len(row) != len(keys):
            raise ValueError(
                f"parameterize_pytest: {len(keys)} names ({names!r}) but a row "
                f"of {len(row)} values: {value!r}"
            )
        dicts.append(dict(zip(keys, row)))
    return parameterize(*dicts)


def from_pytest_parameterize(names: str, values: Sequence[Any]) -> list[dict[str, Any]]:
    """Turn ``pytest.mark.parametrize`` arguments into a list of dicts, for
    :func:`product` / :func:`parameterize`."""
    keys = [n.strip() for n in names.split(",")]
    if len(keys) == 1:
        return [{keys[0]: v} for v in values]
    return [dict(zip(keys, row)) for row in values]
