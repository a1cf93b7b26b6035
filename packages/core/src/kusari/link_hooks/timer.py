"""TimerHook: how long each link's forward takes."""

from __future__ import annotations

import collections
import sys
from typing import IO, Any

from kusari import link_hook
from kusari.function_hooks import _report


class TimerHook(link_hook.LinkHook):
    """Measures the elapsed time of every link's forward.

    Wall-clock time on the CPU; for CuPy inputs, CUDA events on the current
    stream (the hook then synchronizes after every link call). The forward of
    a chain includes the forwards of its children: both are recorded, but
    only outermost calls count in :meth:`total_time`.

    Attributes:
        call_history: ``(link class name, seconds)`` per call, in the order
            the calls finished.

    Example:
        >>> import io
        >>> import numpy as np
        >>> import kusari.links as L
        >>> from kusari.link_hooks import TimerHook
        >>> layer = L.Linear(3, 2)
        >>> with TimerHook() as hook:
        ...     _ = layer(np.ones((4, 3), np.float32))
        ...     _ = layer(np.ones((4, 3), np.float32))
        >>> hook.summary()['Linear']['occurrence']
        2
        >>> out = io.StringIO()
        >>> hook.print_report(file=out)
        >>> out.getvalue().split()[:3]
        ['LinkName', 'ElapsedTime', 'Occurrence']
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

    def forward_preprocess(self, args: Any) -> None:
        self._watch.start(_report.is_gpu_data(args.args))

    def forward_postprocess(self, args: Any) -> None:
        elapsed, depth = self._watch.stop()
        self.call_history.append((type(args.link).__name__, elapsed))
        if depth == 0:
            self._total_time += elapsed

    def total_time(self) -> float:
        """Seconds spent in outermost link calls."""
        return self._total_time

    def summary(self) -> collections.OrderedDict[str, dict[str, Any]]:
        """Per link class name: ``{'elapsed_time': seconds, 'occurrence': n}``."""
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
        rows: list[tuple[str, ...]] = [("LinkName", "ElapsedTime", "Occurrence")]
        rows += _report.format_times(self.summary(), unit)
        _report.write_table(rows, sys.stdout if file is None else file)
