"""What the kusari_cv evaluators share: predict over the iterator, report."""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

import kusari
from kusari.training.extensions import Evaluator
from kusari_cv.utils.iterator import apply_to_iterator


class PredictionEvaluator(Evaluator):
    """An :class:`~kusari.training.extensions.Evaluator` that runs
    ``target.predict`` over one pass of the iterator and scores the results
    with a whole-data-set metric (rather than averaging per-batch losses).

    With a kusari_mn communicator ``comm``, the root worker (rank 0) reads
    the iterator and spreads each batch's prediction over all workers, which
    call the extension together; only the root reports (pass ``iterator=None``
    elsewhere).

    Subclasses implement :meth:`score`.
    """

    def __init__(
        self,
        iterator: Any,
        target: Any,
        label_names: Sequence[str] | None = None,
        comm: Any = None,
    ) -> None:
        super().__init__(iterator, target)
        self.label_names = label_names
        self.comm = comm

    def _predictions(
        self,
    ) -> tuple[tuple[Iterator[Any], ...], tuple[Iterator[Any], ...]]:
        iterator = self._iterators["main"]
        target = self._targets["main"]
        if hasattr(iterator, "reset"):
            iterator.reset()
            it = iterator
        else:
            it = copy.copy(iterator)
        result = apply_to_iterator(target.predict, it, comm=self.comm)
        assert result is not None  # only workers other than the root get None
        in_values, out_values, rest_values = result
        # The input images are not needed; dropping them lets the lazy
        # iterators skip keeping them in memory.
        del in_values
        return out_values, rest_values

    def score(
        self,
        out_values: tuple[Iterator[Any], ...],
        rest_values: tuple[Iterator[Any], ...],
    ) -> dict[str, Any]:
        """Metrics to report, from predictions and the rest of the samples."""
        raise TypeError(f"{type(self).__name__} must implement score()")

    def evaluate(self) -> dict[str, Any]:
        if self.comm is not None and self.comm.rank != 0:
            # A worker: predict on the shares the root sends; it reports.
            apply_to_iterator(self._targets["main"].predict, None, comm=self.comm)
            return {}
        out_values, rest_values = self._predictions()
        report = self.score(out_values, rest_values)
        observation: dict[str, Any] = {}
        with kusari.reporter.report_scope(observation):
            kusari.reporter.report(report, self._targets["main"])
        return observation

    def per_label(self, report: dict[str, Any], key: str, values: np.ndarray) -> None:
        """Add ``report['<key>/<label name>']`` for each named label (nan for
        labels beyond ``values``)."""
        if self.label_names is None:
            return
        for lbl, name in enumerate(self.label_names):
            report[f"{key}/{name}"] = values[lbl] if lbl < len(values) else np.nan


def unpack(
    function: str, rest_values: tuple[Any, ...], counts: Sequence[int]
) -> list[Any]:
    """Split the pass-through values, padding optional ones with None."""
    if len(rest_values) not in counts:
        raise ValueError(
            f"{function}: the dataset must give {' or '.join(map(str, counts))} "
            f"values after the image, got {len(rest_values)}"
        )
    return list(rest_values) + [None] * (max(counts) - len(rest_values))
