"""TimerHook: how long each function's forward and backward take."""

from __future__ import annotations

import collections
import sys
from typing import IO, Any

from kusari import function_hook
from kusari.function_hooks import _report


class TimerHook(function_hook.FunctionHook):
    """Measures the elapsed time of every forward and backward computation.

    On the CPU the wall-clock time is measured; for CuPy inputs, CUDA events
    around the call measure the time on the current stream (the hook then
    synchronizes after every function, which slows the run down).

    Calls made inside another timed call (the functions a backward is built
    from) are recorded too, but only outermost calls count in
    :meth:`total_time`.

    Attributes:
        call_history: ``(function name, seconds)`` per timed call, in the
            order the calls finished.

    Example:
        >>> import io
        >>> import numpy as np
        >>> import kusari
        >>> import kusari.functions as F
        >>> from kusari.function_hooks import TimerHook
        >>> x = kusari.Variable(np.ones((2, 3), np.float32))
        >>> with TimerHook() as hook:
        ...     F.sum(F.relu(x)).backward()
        >>> summary = hook.summary()   # backward's own functions included
        >>> 'ReLU' in summary and 'ReLUGrad' in summary
        True
        >>> summary['ReLU']['occurrence']   # forward and backward
        2
        >>> hook.total_time() > 0
        True
        >>> out = io.StringIO()
        >>> hook.print_report(unit='us', file=out)
        >>> out.getvalue().splitlines()[0].split()
        ['FunctionName', 'ElapsedTime', 'Occurrence']
    """

    name = "TimerHook"

    def __enter__(self) -> TimerHook:
        super().__enter__()
        return self

    table = dict(_report.TIME_UNITS)

    def __init__(self) -> None:
        self.call_history: list[tuple[str, float]] = []
        self._watch = _report.Stopwatch()
        self._total_time = 0.0

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._watch.start(_report.is_gpu_data(in_data))

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._record(function)

    def backward_preprocess(
        self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]
    ) -> None:
        self._watch.start(_report.is_gpu_data(in_data + out_grad))

    def backward_postprocess(
        self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]
    ) -> None:
        self._record(function)

    def _record(self, function: Any) -> None:
        elapsed, depth = self._watch.stop()
        self.call_history.append((_report.impl_name(function), elapsed))
        if depth == 0:
            self._total_time += elapsed

    def total_time(self) -> float:
        """Seconds spent in outermost timed calls (nested calls not re-added)."""
        return self._total_time

    def summary(self) -> collections.OrderedDict[str, dict[str, Any]]:
        """Per function name: ``{'elapsed_time': seconds, 'occurrence': n}``.

        Forward and backward calls of a function are added together, in the
        order the names first appeared.
        """
        summary: collections.OrderedDict[str, dict[str, Any]] = (
            collections.OrderedDict()
        )
        for name, elapsed in self.call_history:
            record = summary.get(name)
            if record is None:
                record = summary[name] = {"elapsed_time": 0.0, "occurrence": 0}
            record["elapsed_time"] += elapsed
            record["occurrence"] += 1
        return summary

    def print_report(self, unit: str = "auto", file: IO[str] | None = None) -> None:
        """Prints a table of :meth:`summary` (name, time, occurrence).

        Args:
            unit: ``'sec'``, ``'ms'``, ``'us'``, ``'ns'``; ``'auto'`` for
                the largest unit that keeps the largest time >= 1, used
                on every row; ``'auto_foreach'`` to choose it row by row.
            file: Where to write the table (``sys.stdout`` when None).
        """
        rows: list[tuple[str, ...]] = [("FunctionName", "ElapsedTime", "Occurrence")]
        rows += _report.format_times(self.summary(), unit)
        _report.write_table(rows, sys.stdout if file is None else file)
