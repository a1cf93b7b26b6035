"""VariableStatisticsPlot: plot percentiles, mean and std of variables."""

from __future__ import annotations

import os
from typing import Any

import numpy

from kusari import backend
from kusari.link import Link
from kusari.training import extension
from kusari.training.extensions import _plot
from kusari.training.util import get_trigger
from kusari.variable import Variable

_SIGMAS = (0, 0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87, 100)


def __getattr__(name: str) -> Any:
    return _plot.module_getattr(__name__, name)


class Reservoir:
    """A uniform sample of fixed size from a stream (reservoir sampling).

    Every item added so far has the same chance ``size / counter`` of being
    held. Draws use ``numpy.random``, so a seeded test is reproducible.

    Args:
        size: How many items are held at most.
        data_shape: The shape of one item.
        dtype: The dtype items are stored in.

    Example:
        >>> import numpy as np
        >>> r = Reservoir(2, data_shape=(3,))
        >>> for i in range(2):
        ...     r.add(np.full(3, i))
        >>> idxs, data = r.get_data()
        >>> idxs.tolist(), data[:, 0].tolist()
        ([0, 1], [0.0, 1.0])
    """

    def __init__(
        self, size: int, data_shape: tuple[int, ...], dtype: Any = numpy.float32
    ) -> None:
        if size <= 0:
            raise ValueError(f"Reservoir: size must be positive, got {size}")
        self.size = size
        self.data = numpy.zeros((size, *data_shape), dtype=dtype)
        self.idxs = numpy.zeros((size,), dtype=numpy.int32)
        self.counter = 0

    def add(self, x: Any, idx: int | None = None) -> None:
        """Offers ``x`` (tagged ``idx``, by default its position in the stream)."""
        tag = self.counter if idx is None else idx
        if self.counter < self.size:
            slot: int | None = self.counter
        elif numpy.random.random() < self.size / (self.counter + 1):
            slot = int(numpy.random.randint(self.size))
        else:
            slot = None
        if slot is not None:
            self.data[slot] = x
            self.idxs[slot] = tag
        self.counter += 1

    def get_data(self) -> tuple[numpy.ndarray, numpy.ndarray]:
        """``(tags, items)`` held, in ascending order of tag."""
        held = self.idxs[: min(self.counter, self.size)]
        order = numpy.argsort(held, kind="stable")
        return held[order], self.data[order]


class Statistician:
    """Mean, standard deviation and percentiles of an array, as a dict.

    Args:
        collect_mean: Include ``'mean'``.
        collect_std: Include ``'std'``.
        percentile_sigmas: The percentiles (0-100) given as
            ``'percentile'``, stacked on a new first axis; empty or None to
            leave them out.
    """

    def __init__(
        self, collect_mean: bool, collect_std: bool, percentile_sigmas: Any
    ) -> None:
        self.collect_mean = collect_mean
        self.collect_std = collect_std
        self.percentile_sigmas = percentile_sigmas

    def __call__(
        self, x: Any, axis: Any = 0, dtype: Any = None, xp: Any = None
    ) -> dict[str, Any]:
        """Statistics of ``x`` over ``axis`` (an int, a tuple, or None for all).

        ``dtype``, when given, is the dtype of the results; ``xp`` is
        accepted for Chainer's signature (the array's own module is used).
        """
        if axis is None:
            axis = tuple(range(x.ndim))
        elif not isinstance(axis, (tuple, list)):
            axis = (axis,)
        out = self.collect(x, tuple(axis))
        if dtype is not None:
            out = {k: v.astype(dtype, copy=False) for k, v in out.items()}
        return out

    def collect(self, x: Any, axis: tuple[int, ...]) -> dict[str, Any]:
        """The statistics over the axes ``axis``."""
        out: dict[str, Any] = {}
        if self.collect_mean:
            out["mean"] = x.mean(axis=axis)
        if self.collect_std:
            out["std"] = x.std(axis=axis)
        if self.percentile_sigmas is not None and len(self.percentile_sigmas):
            xp = backend.get_array_module(x)
            out["percentile"] = xp.percentile(x, self.percentile_sigmas, axis=axis)
        return out


class VariableStatisticsPlot(extension.Extension):
    """Record, each call, statistics of the data and gradients of
    ``targets`` (variables or links' parameters, sampled down to
    ``max_sample_size`` elements) and plot their history on trigger.

    Args:
        targets: A Variable, a Link, or a list of them.
        max_sample_size: Elements sampled per call.
        report_data: Plot the data.
        report_grad: Plot the gradients.
        plot_mean: Plot the mean.
        plot_std: Plot mean +- std.
        percentile_sigmas: Percentiles to plot, as bands (ascending).
        trigger: When to redraw.
        filename: The image file (``'statistics.png'``).
        figsize: The figure size.
        marker: The matplotlib marker.
        grid: Draw grids.
        file_name: Deprecated alias of ``filename``.
    """

    def __init__(
        self,
        targets: Any,
        max_sample_size: int = 1000,
        report_data: bool = True,
        report_grad: bool = True,
        plot_mean: bool = True,
        plot_std: bool = True,
        percentile_sigmas: Any = _SIGMAS,
        trigger: Any = (1, "epoch"),
        filename: str | None = None,
        figsize: Any = None,
        marker: str | None = None,
        grid: bool = True,
        **kwargs: Any,
    ) -> None:
        file_name = kwargs.pop("file_name", "statistics.png")
        if kwargs:
            raise TypeError(
                f"VariableStatisticsPlot: unexpected arguments {sorted(kwargs)}"
            )
        _plot.check_available()
        if not isinstance(targets, (list, tuple)):
            targets = [targets]
        self._vars: list[Variable] = []
        for t in targets:
            if isinstance(t, Link):
                self._vars.extend(t.params())
            elif isinstance(t, Variable):
                self._vars.append(t)
            else:
                raise TypeError(
                    "VariableStatisticsPlot: targets must be Variables "
                    f"or Links, got {type(t).__name__}"
                )
        wanted = (("data", report_data), ("grad", report_grad))
        self._keys = [k for k, on in wanted if on]
        if not self._keys:
            raise ValueError(
                "VariableStatisticsPlot: report_data or report_grad must be True"
            )
        self._max_sample_size = max_sample_size
        self._plot_mean = plot_mean
        self._plot_std = plot_std
        self._percentile_sigmas = tuple(percentile_sigmas)
        self._trigger = get_trigger(trigger)
        self._file_name = file_name if filename is None else filename
        self._figsize = figsize
        self._marker = marker
        self._grid = grid
        self._statistician = Statistician(True, True, self._percentile_sigmas)
        self._rng = numpy.random.RandomState(0)
        self._x: list[int] = []
        self._stats: dict[str, list[numpy.ndarray]] = {k: [] for k in self._keys}

    @staticmethod
    def available() -> bool:
        """True when matplotlib can be imported."""
        return _plot.check_available()

    def _sample(self, key: str) -> numpy.ndarray:
        arrays = []
        for var in self._vars:
            a = var.array if key == "data" else var.grad
            if a is not None:
                arrays.append(numpy.asarray(backend.CpuDevice().send(a)).ravel())
        if not arrays:
            return numpy.empty(0)
        flat = numpy.concatenate(arrays).astype(numpy.float64)
        if flat.size > self._max_sample_size:
            flat = flat[
                self._rng.choice(flat.size, self._max_sample_size, replace=False)
            ]
        return flat

    def __call__(self, trainer: Any) -> None:
        self._x.append(trainer.updater.iteration)
        for key in self._keys:
            flat = self._sample(key)
            if flat.size == 0:
                row = numpy.full(len(self._percentile_sigmas) + 2, numpy.nan)
            else:
                stat = self._statistician(flat, axis=None)
                row = numpy.concatenate(
                    [
                        stat.get("percentile", numpy.empty(0)),
                        [stat["mean"], stat["std"]],
                    ]
                )
            self._stats[key].append(row)
        if self._trigger(trainer) and self.available():
            self._plot(trainer)

    def _plot(self, trainer: Any) -> None:
        fig = _plot.new_figure(self._figsize)
        x = numpy.asarray(self._x)
        n = len(self._percentile_sigmas)
        for i, key in enumerate(self._keys):
            ax = fig.add_subplot(1, len(self._keys), i + 1)
            ax.set_title(key)
            ax.set_xlabel("iteration")
            if self._grid:
                ax.grid()
            stats = numpy.asarray(self._stats[key])
            for j in range(n // 2):
                ax.fill_between(
                    x,
                    stats[:, j],
                    stats[:, n - 1 - j],
                    alpha=0.15 + 0.1 * j,
                    color="C0",
                    linewidth=0,
                )
            if self._plot_mean:
                ax.plot(x, stats[:, n], marker=self._marker, color="C1", label="mean")
            if self._plot_std:
                mean, std = stats[:, n], stats[:, n + 1]
                ax.plot(x, mean + std, color="C2", linestyle="--", label="mean+std")
                ax.plot(x, mean - std, color="C2", linestyle="--", label="mean-std")
        _plot.save_figure(fig, os.path.join(trainer.out, self._file_name))
