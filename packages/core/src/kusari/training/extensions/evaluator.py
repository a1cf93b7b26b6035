"""Evaluator: run a model over a validation set and report mean values."""

from __future__ import annotations

import copy
import math
import sys
import time
import warnings
from typing import Any

from kusari import reporter as reporter_module
from kusari.configuration import using_config
from kusari.dataset import convert
from kusari.dataset.iterator import Iterator
from kusari.function import no_backprop_mode
from kusari.link import Link
from kusari.training import extension


class Evaluator(extension.Extension):
    """Evaluate ``target`` on every batch of ``iterator`` (train mode off, no
    backprop) and report the means of what it reports, prefixed with the
    extension's name (``validation/main/loss``).

    Args:
        iterator: An iterator or ``{name: iterator}`` with a ``'main'`` one;
            it should not repeat.
        target: A link or ``{name: link}`` with a ``'main'`` one.
        converter: The batch converter.
        device: Where to send batches.
        eval_hook: Called as ``eval_hook(evaluator)`` before evaluation.
        eval_func: Called on each batch; the main target by default.
        progress_bar: Show a progress bar of the evaluation on stdout.
    """

    trigger = (1, "epoch")
    default_name = "validation"
    priority = extension.PRIORITY_WRITER
    name = None

    def __init__(
        self,
        iterator: Any,
        target: Any,
        converter: Any = convert.concat_examples,
        device: Any = None,
        eval_hook: Any = None,
        eval_func: Any = None,
        *,
        progress_bar: bool = False,
    ) -> None:
        if isinstance(iterator, Iterator) or not isinstance(iterator, dict):
            iterator = {"main": iterator}
        self._iterators: dict[str, Any] = iterator
        if isinstance(target, Link):
            target = {"main": target}
        self._targets: dict[str, Any] = target
        self.converter = converter
        self.device = device
        self.eval_hook = eval_hook
        self.eval_func = eval_func
        self._progress_bar = progress_bar
        for key, it in iterator.items():
            if getattr(it, "repeat", False):
                warnings.warn(
                    f"Evaluator: iterator {key!r} has repeat=True; evaluation "
                    "sweeps until the iterator stops and may never end",
                    stacklevel=2,
                )

    def get_iterator(self, name: str) -> Any:
        return self._iterators[name]

    def get_all_iterators(self) -> dict[str, Any]:
        return dict(self._iterators)

    def get_target(self, name: str) -> Any:
        return self._targets[name]

    def get_all_targets(self) -> dict[str, Any]:
        return dict(self._targets)

    def __call__(self, trainer: Any = None) -> dict[str, Any]:
        reporter = reporter_module.Reporter()
        prefix = "" if self.name is None else self.name + "/"
        for name, target in self._targets.items():
            reporter.add_observer(prefix + name, target)
            reporter.add_observers(prefix + name, target.namedlinks(skipself=True))
        with reporter, using_config("train", False):
            result = self.evaluate()
        reporter_module.report(result)
        return result

    def evaluate(self) -> dict[str, Any]:
        """Evaluate over the main iterator; returns the mean observations."""
        iterator = self._iterators["main"]
        eval_func = self.eval_func or self._targets["main"]
        if self.eval_hook:
            self.eval_hook(self)
        if hasattr(iterator, "reset"):
            iterator.reset()
            it = iterator
        else:
            warnings.warn(
                "Evaluator: the iterator has no reset(); copying it",
                DeprecationWarning,
                stacklevel=2,
            )
            it = copy.copy(iterator)
        summary = reporter_module.DictSummary()
        bar = _IteratorProgressBar(it) if self._progress_bar else None
        for batch in it:
            observation: dict[str, Any] = {}
            with reporter_module.report_scope(observation):
                in_arrays = convert.call_converter(self.converter, batch, self.device)
                with no_backprop_mode():
                    if isinstance(in_arrays, tuple):
                        eval_func(*in_arrays)
                    elif isinstance(in_arrays, dict):
                        eval_func(**in_arrays)
                    else:
                        eval_func(in_arrays)
            summary.add(observation)
            if bar is not None:
                bar.update()
        if bar is not None:
            bar.close()
        return summary.compute_mean()

    def finalize(self) -> None:
        for iterator in self._iterators.values():
            iterator.finalize()


class _IteratorProgressBar:
    """A small progress bar over one pass of an evaluation iterator."""

    def __init__(self, iterator: Any, bar_length: int = 50) -> None:
        n = len(getattr(iterator, "dataset", ()))
        batch_size = getattr(iterator, "batch_size", 0)
        self._total = math.ceil(n / batch_size) if n and batch_size else 0
        self._count = 0
        self._bar_length = bar_length
        self._start = time.perf_counter()

    def update(self) -> None:
        self._count += 1
        out = sys.stdout
        rate = self._count / self._total if self._total else 0.0
        marks = "#" * int(min(rate, 1.0) * self._bar_length)
        speed = self._count / max(time.perf_counter() - self._start, 1e-9)
        out.write("\033[J")
        out.write(
            f"validation [{marks}{'.' * (self._bar_length - len(marks))}] {rate:6.2%}\n"
        )
        out.write(f"{self._count:10} iterations, {speed:10.5g} iters/sec\n")
        out.write("\033[2A")
        out.flush()

    def close(self) -> None:
        sys.stdout.write("\033[J")
        sys.stdout.flush()
