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
                row = numpy.concatenate(
                    [
                        numpy.percentile(flat, self._percentile_sigmas),
                        [flat.mean(), flat.std()],
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
