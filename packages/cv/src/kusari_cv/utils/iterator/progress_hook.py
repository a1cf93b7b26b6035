"""Print the progress of :func:`apply_to_iterator`."""

from __future__ import annotations

import sys
import time
from typing import IO, Any


class ProgressHook:
    """A hook for :func:`apply_to_iterator` that prints progress and speed.

    Each call prints, on one refreshed line of ``stream``, how many samples
    are done (out of ``n_total`` when given) and the samples per second.

    Args:
        n_total: The number of samples, or None if unknown.
        stream: Where to print (``sys.stderr`` by default).
    """

    def __init__(self, n_total: int | None = None, stream: IO[str] | None = None):
        self.n_total = n_total
        self.stream = stream
        self.start = time.time()
        self.n_processed = 0

    def __call__(
        self,
        in_values: tuple[Any, ...],
        out_values: tuple[Any, ...],
        rest_values: tuple[Any, ...],
    ) -> None:
        self.n_processed += len(in_values[0])
        elapsed = time.time() - self.start
        fps = self.n_processed / elapsed if elapsed > 0 else 0.0
        if self.n_total is not None and self.n_total > 0:
            pct = 100 * self.n_processed / self.n_total
            head = f"{self.n_processed:d} of {self.n_total:d} samples, {pct:3.2f}%"
        else:
            head = f"{self.n_processed:d} samples"
        stream = sys.stderr if self.stream is None else self.stream
        stream.write(f"\r{head}, {fps:3.2f} samples/sec")
        stream.flush()

    def __repr__(self) -> str:
        return f"ProgressHook(n_total={self.n_total}, n_processed={self.n_processed})"
