"""PlotReport: plot observed values against iterations or epochs."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

import numpy

from kusari import reporter
from kusari import serializer as serializer_module
from kusari.training import extension
from kusari.training.extensions import _plot
from kusari.training.util import get_trigger


def __getattr__(name: str) -> Any:
    return _plot.module_getattr(__name__, name)


class PlotReport(extension.Extension):
    """Average ``y_keys`` over each ``trigger`` interval and redraw a line
    plot of all the averages so far into ``trainer.out/filename``.

    Needs matplotlib (optional): without it a warning is given once and
    nothing is plotted; see :meth:`available`.

    Args:
        y_keys: The key or keys to plot.
        x_key: ``'iteration'`` or ``'epoch'``.
        trigger: When to add a point and redraw.
        postprocess: Called as ``postprocess(figure, axes, summary)`` before
            saving.
        filename: The image file (``'plot.png'``).
        marker: The matplotlib marker.
        grid: Draw a grid.
        file_name: Deprecated alias of ``filename``.
    """

    def __init__(
        self,
        y_keys: str | Sequence[str],
        x_key: str = "iteration",
        trigger: Any = (1, "epoch"),
        postprocess: Any = None,
        filename: str | None = None,
        marker: str | None = "x",
        grid: bool = True,
        **kwargs: Any,
    ) -> None:
        file_name = kwargs.pop("file_name", "plot.png")
        if kwargs:
            raise TypeError(f"PlotReport: unexpected arguments {sorted(kwargs)}")
        _plot.check_available()
        self._x_key = x_key
        self._y_keys = [y_keys] if isinstance(y_keys, str) else list(y_keys)
        self._trigger = get_trigger(trigger)
        self._file_name = file_name if filename is None else filename
        self._marker = marker
        self._grid = grid
        self._postprocess = postprocess
        self._summary = reporter.DictSummary()
        self._data: dict[str, list[tuple[float, float]]] = {k: [] for k in self._y_keys}

    @staticmethod
    def available() -> bool:
        """True when matplotlib can be imported."""
        return _plot.check_available()

    def __call__(self, trainer: Any) -> None:
        if not self.available():
            return
        observation = trainer.observation
        self._summary.add({k: observation[k] for k in self._y_keys if k in observation})
        if not self._trigger(trainer):
            return
        stats = {k: float(v) for k, v in self._summary.compute_mean().items()}
        stats["epoch"] = trainer.updater.epoch
        stats["iteration"] = trainer.updater.iteration
        x = stats[self._x_key]
        for k in self._y_keys:
            if k in stats:
                self._data[k].append((x, stats[k]))
        fig = _plot.new_figure()
        ax = fig.add_subplot(111)
        y_label = _common_label(self._y_keys)
        ax.set_title(f"{y_label} by {self._x_key}")
        ax.set_xlabel(self._x_key)
        ax.set_ylabel(y_label)
        if self._x_key in ("epoch", "iteration"):
            from matplotlib.ticker import MaxNLocator

            # Counts are whole numbers: no "0.5 epoch" ticks on short runs.
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if self._grid:
            ax.grid()
        for k in self._y_keys:
            xy = numpy.array(self._data[k])
            if len(xy):
                ax.plot(xy[:, 0], xy[:, 1], marker=self._marker, label=k)
        if ax.has_data():
            if self._postprocess is not None:
                self._postprocess(fig, ax, self._summary)
            # Inside the axes where the curves leave room, rather than beside
            # them, where it took a third of the image.
            ax.legend(loc="best", fontsize="small")
            _plot.save_figure(
                fig, os.path.join(trainer.out, self._file_name), bbox_inches="tight"
            )
        self._summary = reporter.DictSummary()

    def serialize(self, serializer: Any) -> None:
        key = f"_plot_{self._file_name}"
        if hasattr(self._trigger, "serialize"):
            self._trigger.serialize(serializer["_trigger"])
        if isinstance(serializer, serializer_module.Serializer):
            serializer(key, json.dumps(self._data))
        else:
            data = json.loads(serializer(key, ""))
            self._data = {k: [tuple(p) for p in v] for k, v in data.items()}


def _common_label(keys: Sequence[str]) -> str:
    """The y axis's name: the last path part the keys share ('main/loss' and
    'validation/main/loss' give 'loss'), else the keys themselves."""
    last = {k.rsplit("/", 1)[-1] for k in keys}
    return last.pop() if len(last) == 1 else ", ".join(keys)
