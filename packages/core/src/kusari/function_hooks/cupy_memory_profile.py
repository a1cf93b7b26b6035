"""CupyMemoryProfileHook: how much GPU memory each function takes."""

from __future__ import annotations

import collections
import sys
from typing import IO, Any

from kusari import function_hook
from kusari.backends import cuda
from kusari.function_hooks import _report

_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB")
# Chainer's names for the same powers of 1024, accepted as ``unit``.
_CHAINER_UNITS = {f"{u[0]}B": u for u in _UNITS[1:]}


def _make_counter() -> Any:
    """A CuPy memory hook adding up allocation sizes (needs CuPy)."""
    from cupy.cuda import memory_hook

    class _Counter(memory_hook.MemoryHook):
        def __init__(self, name: str) -> None:
            self.name = name
            self.used_bytes = 0
            self.acquired_bytes = 0

        def alloc_preprocess(self, **kwargs: Any) -> None:
            # Memory taken from the device (the pool grows).
            self.acquired_bytes += kwargs["mem_size"]

        def malloc_preprocess(self, **kwargs: Any) -> None:
            # Memory handed out by the pool.
            self.used_bytes += kwargs["mem_size"]

    return _Counter


class CupyMemoryProfileHook(function_hook.FunctionHook):
    """Records the GPU memory every function uses from CuPy's memory pool.

    For each forward/backward call it records the bytes handed out by the
    pool (``used_bytes``) and the bytes the pool newly took from the device
    (``acquired_bytes``).

    Attributes:
        call_history: ``(function name, used bytes, acquired bytes, depth)``
            per call, in the order the calls finished.

    Raises:
        RuntimeError: At construction, if CuPy is not available.

    Example:
        >>> from kusari.backends import cuda
        >>> from kusari.function_hooks import CupyMemoryProfileHook
        >>> if not cuda.available:
        ...     try:
        ...         CupyMemoryProfileHook()
        ...     except RuntimeError as e:
        ...         print('CuPy is required' in str(e))
        ... else:
        ...     print(True)
        True
    """

    name = "CupyMemoryProfileHook"

    def __enter__(self) -> CupyMemoryProfileHook:
        super().__enter__()
        return self

    _units = _UNITS
    _table = {unit: 1024**i for i, unit in enumerate(_UNITS)}

    def __init__(self) -> None:
        if not cuda.available:
            raise RuntimeError(
                "CupyMemoryProfileHook: CuPy is required (it could not be "
                "imported); install it with `pip install kusari[cuda]`"
            )
        self._counter = _make_counter()(f"CupyMemoryProfileHook-{id(self)}")
        self._stack: list[tuple[int, int]] = []
        self._total_used_bytes = 0
        self._total_acquired_bytes = 0
        self.call_history: list[tuple[str, int, int, int]] = []

    def _start(self) -> None:
        if not self._stack:
            self._counter.__enter__()
        counter = self._counter
        self._stack.append((counter.used_bytes, counter.acquired_bytes))

    def _stop(self, function: Any) -> None:
        used0, acquired0 = self._stack.pop()
        used = self._counter.used_bytes - used0
        acquired = self._counter.acquired_bytes - acquired0
        depth = len(self._stack)
        self.call_history.append((_report.impl_name(function), used, acquired, depth))
        if depth == 0:
            self._total_used_bytes += used
            self._total_acquired_bytes += acquired
            self._counter.__exit__()

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._start()

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._stop(function)

    def backward_preprocess(
        self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]
    ) -> None:
        self._start()

    def backward_postprocess(
        self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]
    ) -> None:
        self._stop(function)

    def total_used_bytes(self) -> int:
        """Bytes used from the pool by outermost calls."""
        return self._total_used_bytes

    def total_acquired_bytes(self) -> int:
        """Bytes the pool took from the device during outermost calls."""
        return self._total_acquired_bytes

    def summary(self) -> collections.OrderedDict[str, dict[str, int]]:
        """Per function name: ``used_bytes``, ``acquired_bytes``, ``occurrence``."""
        summary: collections.OrderedDict[str, dict[str, int]] = (
            collections.OrderedDict()
        )
        for name, used, acquired, _ in self.call_history:
            record = summary.get(name)
            if record is None:
                record = summary[name] = {
                    "used_bytes": 0,
                    "acquired_bytes": 0,
                    "occurrence": 0,
                }
            record["used_bytes"] += used
            record["acquired_bytes"] += acquired
            record["occurrence"] += 1
        return summary

    def _choose_unit(self, size: int) -> tuple[int, str]:
        denominator = 1
        if size <= 0:
            return denominator, "B"
        for unit in self._units[:-1]:
            if size < denominator * 1024:
                return denominator, unit
            denominator *= 1024
        return denominator, self._units[-1]

    def print_report(self, unit: str = "auto", file: IO[str] | None = None) -> None:
        """Prints a table of :meth:`summary`.

        Args:
            unit: One of ``'B'``, ``'KiB'``, ..., ``'ZiB'`` (Chainer's
                ``'KB'``, ..., ``'ZB'`` name the same powers of 1024);
                ``'auto'`` for, per column, the largest unit that keeps the
                column's largest value >= 1; ``'auto_foreach'`` to choose it
                value by value.
            file: Where to write the table (``sys.stdout`` when None).
        """
        unit = _CHAINER_UNITS.get(unit, unit)
        if unit not in ("auto", "auto_foreach") and unit not in self._table:
            raise ValueError(
                "print_report: unit must be 'auto', 'auto_foreach' or one of "
                f"{list(self._units)}, got {unit!r}"
            )
        summary = self.summary()
        keys = ("used_bytes", "acquired_bytes")
        fixed: dict[str, tuple[int, str]] = {}
        for key in keys:
            if unit == "auto":
                largest = max((r[key] for r in summary.values()), default=0)
                fixed[key] = self._choose_unit(largest)
            elif unit != "auto_foreach":
                fixed[key] = (self._table[unit], unit)
        rows: list[tuple[str, ...]] = [
            ("FunctionName", "UsedBytes", "AcquiredBytes", "Occurrence")
        ]
        for name, record in summary.items():
            cells = [name]
            for key in keys:
                size = record[key]
                if unit == "auto_foreach":
                    denominator, shown = self._choose_unit(size)
                else:
                    denominator, shown = fixed[key]
                cells.append(f"{size / denominator:3.2f}{shown}")
            cells.append(str(record["occurrence"]))
            rows.append(tuple(cells))
        _report.write_table(rows, sys.stdout if file is None else file)
