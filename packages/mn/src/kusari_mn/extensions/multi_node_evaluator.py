"""Evaluators whose results cover the validation data of every rank."""

from __future__ import annotations

import copy
import types
from collections.abc import Iterator
from typing import Any

import numpy

from kusari.dataset import convert
from kusari.function import no_backprop_mode
from kusari.training import extension


def _to_host(value: Any) -> Any:
    value = getattr(value, "array", value)
    if hasattr(value, "get") and hasattr(value, "__cuda_array_interface__"):
        value = value.get()
    return numpy.asarray(value, dtype=numpy.float64)


def _mean_over_ranks(comm: Any, local: dict[str, Any]) -> dict[str, Any]:
    everyone = comm.mpi_comm.allgather(
        {k: _to_host(v) for k, v in sorted(local.items())}
    )
    keys = sorted(everyone[0])
    for rank, d in enumerate(everyone):
        if sorted(d) != keys:
            raise ValueError(
                "multi-node evaluator: the ranks reported different values "
                f"(rank 0: {keys}, rank {rank}: {sorted(d)})"
            )
    return {k: sum(d[k] for d in everyone) / comm.size for k in keys}


def create_multi_node_evaluator(actual_evaluator: Any, communicator: Any) -> Any:
    """Make an Evaluator report the mean of every rank's results.

    Each rank evaluates its own share of the validation data (e.g. from
    :func:`~kusari_mn.scatter_dataset`); the per-rank means are then
    averaged over the ranks, so every rank reports the same values.

    Args:
        actual_evaluator: A :class:`kusari.training.extensions.Evaluator`
            (or anything with ``evaluate()`` returning a dict).
        communicator: The communicator.

    Returns:
        ``actual_evaluator``, patched in place.
    """
    original = actual_evaluator.evaluate

    def evaluate(self: Any) -> dict[str, Any]:
        return _mean_over_ranks(communicator, original())

    actual_evaluator.evaluate = types.MethodType(evaluate, actual_evaluator)
    return actual_evaluator


class GenericMultiNodeEvaluator(extension.Extension):
    """Evaluation whose aggregation is not a mean (e.g. mAP over all boxes).

    Every rank runs :meth:`calc_local` on its batches; the root collects all
    results and calls :meth:`aggregate` once with the list of them. Ranks
    may hold different numbers of batches. Override both methods.

    Args:
        comm: The communicator.
        iterator: A non-repeating iterator over this rank's data.
        target: The model (``calc_local`` calls it by default).
        device: Where the converter sends batches.
        converter: The batch converter.
        root: The rank that aggregates.
        progress_hook: Called with each batch on the root.
    """

    trigger = (1, "epoch")
    default_name = "validation"
    priority = extension.PRIORITY_WRITER
    name = None

    #: Batches each rank processes between two checks of whether all are done.
    gather_interval = 8

    def __init__(
        self,
        comm: Any,
        iterator: Any,
        target: Any,
        device: Any = None,
        converter: Any = convert.concat_examples,
        root: int = 0,
        progress_hook: Any = None,
    ) -> None:
        if not 0 <= root < comm.size:
            raise ValueError(
                f"GenericMultiNodeEvaluator: root must be in [0, {comm.size}), "
                f"got {root}"
            )
        self.comm = comm
        self.iterator = iterator
        self._targets = {"main": target}
        self.converter = converter
        self.device = device
        self.root = root
        self._progress_hook = progress_hook

    def __call__(self, trainer: Any = None) -> Any:
        if hasattr(self.iterator, "reset"):
            self.iterator.reset()
            it = self.iterator
        else:
            it = copy.copy(self.iterator)
        gen = self._evaluate_local(it)
        if self.comm.rank == self.root:
            return self.aggregate(list(gen))
        for _ in gen:
            pass
        return None

    def calc_local(self, *args: Any, **kwargs: Any) -> Any:
        """This rank's result for one batch (must not be None)."""
        return self._targets["main"](*args, **kwargs)

    def aggregate(self, results: list[Any]) -> Any:
        """Combine every rank's results on the root (returns them by default)."""
        return results

    def _run(self, batch: Any) -> Any:
        # As updaters do: a Converter gets a Device, an old-style function
        # Chainer's int (-1 for the CPU).
        in_arrays = convert.call_converter(self.converter, batch, self.device)
        with no_backprop_mode():
            if isinstance(in_arrays, tuple):
                return self.calc_local(*in_arrays)
            if isinstance(in_arrays, dict):
                return self.calc_local(**in_arrays)
            return self.calc_local(in_arrays)

    def _evaluate_local(self, iterator: Any) -> Iterator[Any]:
        all_done = False
        while not all_done:
            any_result = False
            for _ in range(self.gather_interval):
                try:
                    batch = next(iterator)
                except StopIteration:
                    result = None
                else:
                    result = self._run(batch)
                    if result is None:
                        raise ValueError(
                            "GenericMultiNodeEvaluator: calc_local returned None"
                        )
                    if self.comm.rank == self.root and self._progress_hook:
                        self._progress_hook(batch)
                gathered = self.comm.gather_obj(result, root=self.root)
                if self.comm.rank == self.root:
                    for r in gathered:
                        if r is not None:
                            any_result = True
                            yield r
            all_done = self.comm.bcast_obj(not any_result, root=self.root)
