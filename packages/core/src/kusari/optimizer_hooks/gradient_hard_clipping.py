"""GradientHardClipping: clip every gradient element into a range."""

from __future__ import annotations

from typing import Any

from kusari import backend


class GradientHardClipping:
    """Optimizer hook clipping each gradient element into
    ``[lower_bound, upper_bound]``.

    Args:
        lower_bound: The smallest allowed value.
        upper_bound: The largest allowed value.
    """

    name = "GradientHardClipping"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, lower_bound: float, upper_bound: float) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(lower_bound={self.lower_bound}, "
            f"upper_bound={self.upper_bound})"
        )

    def __call__(self, rule: Any, param: Any) -> None:
        g = param.grad
        if g is None:
            return
        lower, upper = self.lower_bound, self.upper_bound
        if param._loss_scale is not None:
            lower *= param._loss_scale
            upper *= param._loss_scale
        xp = backend.get_array_module(g)
        xp.clip(g, lower, upper, out=g)
