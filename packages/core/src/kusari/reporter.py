"""Reporter: collect named observations (losses, accuracies) during training.

Code anywhere in a model calls :func:`report`; whatever :class:`Reporter` is
current (the trainer's, or one entered with ``with reporter:``) stores the
values in its ``observation`` dictionary, prefixed by the name of the
reporting link (``main/loss``).

Example:
    >>> from kusari.reporter import Reporter, report
    >>> reporter = Reporter()
    >>> observer = object()
    >>> reporter.add_observer('main', observer)
    >>> observation = {}
    >>> with reporter.scope(observation):
    ...     report({'loss': 0.5}, observer)
    >>> observation
    {'main/loss': 0.5}
"""

from __future__ import annotations

import collections
import contextlib
import json
import threading
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

import numpy

from kusari import backend, serializer
from kusari.configuration import config
from kusari.variable import Variable

# Each thread has its own stack of current reporters (as in Chainer), so a
# scope opened in one thread never receives another thread's reports.
_local = threading.local()


def _stack() -> list[Reporter]:
    try:
        return _local.reporters
    except AttributeError:
        _local.reporters = []
        return _local.reporters


def _copy_variable(value: Any) -> Any:
    # A reported Variable would keep its whole graph alive; keep the array only.
    if isinstance(value, Variable):
        return Variable(value.array, requires_grad=value.requires_grad, name=value.name)
    return value


class Reporter:
    """Object collecting observed values into ``observation``.

    Attributes:
        observation: The dictionary the reported values go to (set with
            :meth:`scope`).
    """

    def __init__(self) -> None:
        self._observer_names: dict[int, str] = {}
        self.observation: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"Reporter(observers={len(self._observer_names)})"

    def __enter__(self) -> Reporter:
        _stack().append(self)
        return self

    def __exit__(self, *args: Any) -> None:
        _stack().pop()

    @contextlib.contextmanager
    def scope(self, observation: dict[str, Any]) -> Iterator[None]:
        """Make this reporter current, writing into ``observation``."""
        old = self.observation
        self.observation = observation
        self.__enter__()
        try:
            yield
        finally:
            self.__exit__(None, None, None)
            self.observation = old

    def add_observer(self, name: str, observer: Any) -> None:
        """Register ``observer`` (usually a link) under ``name``."""
        self._observer_names[id(observer)] = name

    def add_observers(self, prefix: str, observers: Iterable[tuple[str, Any]]) -> None:
        """Register ``(name, observer)`` pairs under ``prefix + name``."""
        for name, observer in observers:
            self._observer_names[id(observer)] = prefix + name

    def report(self, values: dict[str, Any], observer: Any = None) -> None:
        """Store ``values``, prefixed with the observer's name if given.

        Variables are stored without their graph unless
        ``config.keep_graph_on_report`` is True.
        """
        if not getattr(config, "keep_graph_on_report", False):
            values = {k: _copy_variable(v) for k, v in values.items()}
        if observer is None:
            self.observation.update(values)
            return
        try:
            prefix = self._observer_names[id(observer)]
        except KeyError:
            raise KeyError(
                f"the observer {type(observer).__name__} is not registered to "
                "the reporter; call add_observer first"
            ) from None
        for key, value in values.items():
            self.observation[f"{prefix}/{key}"] = value


def get_current_reporter() -> Reporter:
    """The reporter in the innermost ``with reporter:`` / scope."""
    reporters = _stack()
    if not reporters:
        raise RuntimeError("no reporter is active; use `with reporter.scope(...)`")
    return reporters[-1]


def report(values: dict[str, Any], observer: Any = None) -> None:
    """Report ``values`` to the current reporter (a no-op when there is none).

    Args:
        values: Names to values (scalars, arrays or Variables).
        observer: The reporting object; its registered name prefixes the keys.
    """
    reporters = _stack()
    if reporters:
        reporters[-1].report(values, observer)


@contextlib.contextmanager
def report_scope(observation: dict[str, Any]) -> Iterator[None]:
    """Send the current reporter's values to ``observation`` for a while."""
    current = get_current_reporter()
    old = current.observation
    current.observation = observation
    try:
        yield
    finally:
        current.observation = old


def _to_array(value: Any) -> Any:
    return value.array if isinstance(value, Variable) else value


class Summary:
    """Online weighted mean and standard deviation of scalars.

    Example:
        >>> s = Summary()
        >>> s.add(1.0); s.add(3.0)
        >>> s.compute_mean()
        2.0
        >>> mean, std = s.make_statistics()
        >>> float(mean), float(std)
        (2.0, 1.0)
    """

    def __init__(self) -> None:
        self._x: Any = 0.0
        self._x2: Any = 0.0
        self._n: Any = 0

    def __repr__(self) -> str:
        return f"Summary(n={self._n})"

    def add(self, value: Any, weight: Any = 1) -> None:
        """Add ``value`` with ``weight``."""
        value = _to_array(value)
        weight = _to_array(weight)
        self._x += weight * value
        self._x2 += weight * value * value
        self._n += weight

    def compute_mean(self) -> Any:
        """The weighted mean."""
        return self._x / self._n

    def make_statistics(self) -> tuple[Any, Any]:
        """The weighted mean and standard deviation."""
        mean = self._x / self._n
        var = self._x2 / self._n - mean * mean
        xp = backend.get_array_module(var)
        # Rounding can make a zero variance slightly negative.
        return mean, xp.sqrt(xp.maximum(var, 0))

    def serialize(self, serializer: Any) -> None:
        try:
            self._x = serializer("_x", self._x)
            self._x2 = serializer("_x2", self._x2)
            self._n = serializer("_n", self._n)
        except KeyError:
            warnings.warn(
                "the previous statistics of a Summary were not saved", stacklevel=2
            )


class DictSummary:
    """A :class:`Summary` per key of the dictionaries added.

    Values may be ``(value, weight)`` tuples; non-scalar values are skipped.

    Example:
        >>> d = DictSummary()
        >>> d.add({'loss': 1.0}); d.add({'loss': 3.0, 'acc': (0.5, 2)})
        >>> d.compute_mean()
        {'loss': 2.0, 'acc': 0.5}
    """

    def __init__(self) -> None:
        self._summaries: dict[str, Summary] = collections.defaultdict(Summary)

    def __repr__(self) -> str:
        return f"DictSummary(keys={sorted(self._summaries)})"

    def add(self, d: dict[str, Any]) -> None:
        """Add every scalar of ``d``."""
        for key, value in d.items():
            weight: Any = 1
            if isinstance(value, tuple):
                value, weight = value
                weight = _to_array(weight)
                if not (numpy.isscalar(weight) or getattr(weight, "ndim", -1) == 0):
                    raise ValueError(f"the weight given for {key!r} is not a scalar")
            value = _to_array(value)
            if numpy.isscalar(value) or getattr(value, "ndim", -1) == 0:
                self._summaries[key].add(value, weight=weight)

    def compute_mean(self) -> dict[str, Any]:
        """The mean of each key."""
        return {k: s.compute_mean() for k, s in self._summaries.items()}

    def make_statistics(self) -> dict[str, Any]:
        """Mean (``key``) and standard deviation (``key.std``) of each key."""
        stats: dict[str, Any] = {}
        for key, summary in self._summaries.items():
            mean, std = summary.make_statistics()
            stats[key] = mean
            stats[key + ".std"] = std
        return stats

    def serialize(self, s: Any) -> None:
        if isinstance(s, serializer.Serializer):
            names = list(self._summaries)
            s("_names", json.dumps(names))
            for i, name in enumerate(names):
                self._summaries[name].serialize(s["_summaries"][str(i)])
            return
        self._summaries.clear()
        try:
            names = json.loads(s("_names", ""))
        except KeyError:
            warnings.warn(
                "the names of a DictSummary's statistics were not saved", stacklevel=2
            )
            return
        for i, name in enumerate(names):
            self._summaries[name].serialize(s["_summaries"][str(i)])
