"""GradientNoise: add annealed Gaussian noise to gradients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from kusari import backend


def exponential_decay_noise(
    xp: Any, shape: Any, dtype: Any, hook: Any, opt: Any
) -> Any:
    """Gaussian noise with std ``sqrt(eta / (1 + t) ** 0.55)``.

    ``opt`` is the parameter's update rule; ``t`` its update count.
    """
    std = numpy.sqrt(hook.eta / numpy.power(1 + opt.t, 0.55))
    return xp.random.normal(0, std, shape).astype(dtype)


class GradientNoise:
    """Optimizer hook adding noise from ``noise_func`` to each gradient.

    Args:
        eta: Noise scale parameter.
        noise_func: ``noise_func(xp, shape, dtype, hook, rule)`` returning
            the noise; :func:`exponential_decay_noise` by default.
    """

    name = "GradientNoise"
    call_for_each_param = True
    timing = "pre"

    def __init__(
        self, eta: float, noise_func: Callable[..., Any] = exponential_decay_noise
    ) -> None:
        self.eta = eta
        self.noise_func = noise_func

    def __repr__(self) -> str:
        return f"{type(self).__name__}(eta={self.eta})"

    def __call__(self, rule: Any, param: Any) -> None:
        g = param.grad
        if g is None:
            return
        xp = backend.get_array_module(g)
        noise = self.noise_func(xp, g.shape, g.dtype, self, rule)
        if param._loss_scale is not None:
            noise = noise * param._loss_scale
        g += noise
