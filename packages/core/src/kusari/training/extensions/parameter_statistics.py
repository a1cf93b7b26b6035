"""ParameterStatistics: report statistics of parameters and gradients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from kusari import backend, reporter
from kusari.training import extension
from kusari.training.util import get_trigger

_PERCENTILE_SIGMAS = (0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87)


def _xp(x: Any) -> Any:
    return backend.get_array_module(x)


_default_statistics: dict[str, Callable[[Any], Any]] = {
    "mean": lambda x: _xp(x).mean(x),
    "std": lambda x: _xp(x).std(x),
    "min": lambda x: _xp(x).min(x),
    "max": lambda x: _xp(x).max(x),
    "zeros": lambda x: _xp(x).count_nonzero(x == 0),
    "percentile": lambda x: _xp(x).percentile(x, _PERCENTILE_SIGMAS),
}


class ParameterStatistics(extension.Extension):
    """Report statistics of each parameter's data and gradient under keys
    ``{prefix/}{link name}{param path}/{data|grad}/{statistic}`` (a
    statistic returning several values gets ``/0``, ``/1``... suffixes),
    averaged over each ``trigger`` interval.

    Args:
        links: A link or a list of links.
        statistics: ``{name: function}``, ``'default'`` (mean, std, min,
            max, zeros, percentile) or None (none until registered).
        report_params: Report statistics of the data.
        report_grads: Report statistics of the gradients.
        prefix: Prefix of the keys.
        trigger: When to report.
        skip_nan_params: Report NaN for arrays containing NaN instead of
            computing statistics.
    """

    default_name = "parameter_statistics"
    priority = extension.PRIORITY_WRITER
    report_key_template = "{prefix}{link_name}{param_name}/{attr_name}/{function_name}"
    #: The statistics ``statistics='default'`` selects (a public class
    #: attribute, as in Chainer, so code can pass or extend it).
    default_statistics: dict[str, Callable[[Any], Any]] = _default_statistics

    def __init__(
        self,
        links: Any,
        statistics: Any = "default",
        report_params: bool = True,
        report_grads: bool = True,
        prefix: str | None = None,
        trigger: Any = (1, "epoch"),
        skip_nan_params: bool = False,
    ) -> None:
        if not isinstance(links, (list, tuple)):
            links = (links,)
        self._links = links
        if statistics is None:
            statistics = {}
        elif statistics == "default":
            statistics = self.default_statistics
        self._statistics = dict(statistics)
        self._attrs = []
        if report_params:
            self._attrs.append("data")
        if report_grads:
            self._attrs.append("grad")
        self._prefix = prefix
        self._trigger = get_trigger(trigger)
        self._summary = reporter.DictSummary()
        self._skip_nan_params = skip_nan_params

    def register_statistics(self, name: str, function: Callable[[Any], Any]) -> None:
        """Add a statistic ``function(flat_array)`` named ``name``."""
        self._statistics[name] = function

    def __call__(self, trainer: Any) -> None:
        statistics: dict[str, Any] = {}
        prefix = self._prefix + "/" if self._prefix else ""
        for link in self._links:
            link_name = getattr(link, "name", "None")
            for param_name, param in link.namedparams():
                for attr_name in self._attrs:
                    array = param.array if attr_name == "data" else param.grad
                    if array is None:
                        continue
                    flat = array.ravel()
                    for function_name, function in self._statistics.items():
                        if self._skip_nan_params and bool(_xp(flat).isnan(flat).any()):
                            value: Any = numpy.nan
                        else:
                            value = function(flat)
                        key = self.report_key_template.format(
                            prefix=prefix,
                            link_name=link_name,
                            param_name=param_name,
                            attr_name=attr_name,
                            function_name=function_name,
                        )
                        if getattr(value, "size", 1) > 1:
                            for i, v in enumerate(value):
                                statistics[f"{key}/{i}"] = v
                        else:
                            statistics[key] = value
        self._summary.add(statistics)
        if self._trigger(trainer):
            reporter.report(self._summary.compute_mean())
            self._summary = reporter.DictSummary()
