"""Hooks that modify gradients before (or after) an optimizer's update.

Example:
    >>> import numpy as np
    >>> import kusari
    >>> from kusari import optimizer_hooks, optimizers
    >>> link = kusari.Link()
    >>> with link.init_scope():
    ...     link.w = kusari.Parameter(np.array([2.0], dtype=np.float32))
    >>> opt = optimizers.SGD(lr=1.0).setup(link)
    >>> opt.add_hook(optimizer_hooks.WeightDecay(0.5))
    >>> link.w.grad = np.zeros(1, dtype=np.float32)
    >>> opt.update()
    >>> link.w.array
    array([1.], dtype=float32)
"""

from kusari.optimizer_hooks.gradient_clipping import GradientClipping
from kusari.optimizer_hooks.gradient_hard_clipping import GradientHardClipping
from kusari.optimizer_hooks.gradient_lars import GradientLARS
from kusari.optimizer_hooks.gradient_noise import GradientNoise
from kusari.optimizer_hooks.lasso import Lasso
from kusari.optimizer_hooks.weight_decay import WeightDecay

__all__ = [
    "GradientClipping",
    "GradientHardClipping",
    "GradientLARS",
    "GradientNoise",
    "Lasso",
    "WeightDecay",
]
