"""Helpers shared by the profiling hooks: time units and table printing."""

from __future__ import annotations

import time
from typing import IO, Any

from kusari.backends import cuda

# The clock of the CPU timers (a module attribute so tests can replace it).
_clock = time.perf_counter

TIME_UNITS = {"sec": 1.0, "ms": 1e3, "us": 1e6, "ns": 1e9}


def choose_time_unit(second: float) -> tuple[float, str]:
    """The largest unit in which ``second`` is at least 1 (``ns`` at least)."""
    factor = 1.0
    for unit in ("sec", "ms", "us"):
        if second * factor >= 1:
            return factor, unit
        factor *= 1000.0
    return factor, "ns"


def time_factor(unit: str) -> float:
    """Seconds-to-``unit`` factor; ValueError naming the choices otherwise."""
    try:
        return TIME_UNITS[unit]
    except KeyError:
        raise ValueError(
            "print_report: unit must be 'auto', 'auto_foreach' or one of "
            f"{sorted(TIME_UNITS)}, got {unit!r}"
        ) from None


def format_times(
    summary: dict[str, dict[str, Any]], unit: str
) -> list[tuple[str, str, str]]:
    """``(name, elapsed time with unit, occurrence)`` rows of a summary.

    ``unit='auto'`` shows every row in the unit chosen for the largest time
    (so the column compares at a glance, as Chainer prints it);
    ``'auto_foreach'`` chooses the unit row by row.
    """
    per_row = unit == "auto_foreach"
    shown = unit
    if unit == "auto":
        largest = max((r["elapsed_time"] for r in summary.values()), default=0.0)
        factor, shown = choose_time_unit(largest)
    elif not per_row:
        factor = time_factor(unit)
    rows = []
    for name, record in summary.items():
        second = record["elapsed_time"]
        if per_row:
            factor, shown = choose_time_unit(second)
        rows.append((name, f"{second * factor:3.2f}{shown}", str(record["occurrence"])))
    return rows


def write_table(rows: list[tuple[str, ...]], file: IO[str]) -> None:
    """Writes right-aligned columns separated by two spaces, then flushes."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        file.write("  ".join(cell.rjust(w) for cell, w in zip(row, widths)) + "\n")
    flush = getattr(file, "flush", None)
    if flush is not None:
        flush()


class Stopwatch:
    """Nested wall-clock timing of CPU work or of CUDA streams (by events).

    ``start(on_gpu)`` pushes a timer, ``stop()`` pops the innermost one and
    returns ``(seconds, depth)``, where ``depth`` counts the timers still
    running outside it.
    """

    def __init__(self) -> None:
        self._stack: list[Any] = []

    def start(self, on_gpu: bool) -> None:
        if on_gpu:
            begin, end = cuda.Event(), cuda.Event()
            begin.record()
            self._stack.append((begin, end))
        else:
            self._stack.append(_clock())

    def stop(self) -> tuple[float, int]:
        entry = self._stack.pop()
        if isinstance(entry, float):
            elapsed = _clock() - entry
        else:
            begin, end = entry
            end.record()
            end.synchronize()
            elapsed = cuda.cupy.cuda.get_elapsed_time(begin, end) / 1000.0
        return elapsed, len(self._stack)


def impl_name(function: Any) -> str:
    """Class name of a function node (of the wrapped Function for adapters):
    the node's ``_impl_name``, as Chainer's hooks report it."""
    name = getattr(function, "_impl_name", None)
    return name if isinstance(name, str) else type(function).__name__


def is_gpu_data(arrays: Any) -> bool:
    """Whether the first non-None array among ``arrays`` is a CuPy array."""
    if not cuda.available:
        return False
    for a in arrays:
        if a is not None:
            return isinstance(getattr(a, "array", a), cuda.ndarray)
    return False
