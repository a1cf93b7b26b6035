"""SMORMS3: Simon Funk's squared-mean-over-root-mean-squared variant."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend, optimizer
from kusari.optimizers._util import kernel, set_hyperparams, zeros_like_param

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.001
_default_hyperparam.eps = 1e-16


class SMORMS3Rule(optimizer.UpdateRule):
    """Update rule of :class:`SMORMS3`.

    ``r = 1 / (mem + 1); g = (1 - r) g + r grad; g2 = (1 - r) g2 + r grad^2;
    x = g^2 / (g2 + eps); W -= grad * min(lr, x) / (sqrt(g2) + eps);
    mem = 1 + mem (1 - x)``.

    Args:
        parent_hyperparam: Hyperparameters to fall back to.
        lr: Learning rate.
        eps: Small value for numerical stability.
    """

    is_elementwise = True

    def __init__(
        self,
        parent_hyperparam: Any = None,
        lr: float | None = None,
        eps: float | None = None,
    ) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        set_hyperparams(self, lr=lr, eps=eps)

    def init_state(self, param: Any) -> None:
        xp = backend.get_array_module(param.array)
        self.state["mem"] = xp.ones_like(param.array)
        self.state["g"] = zeros_like_param(param)
        self.state["g2"] = zeros_like_param(param)

    def update_core_cpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        mem, g, g2 = self.state["mem"], self.state["g"], self.state["g2"]
        r = 1 / (mem + 1)
        g *= 1 - r
        g += r * grad
        g2 *= 1 - r
        g2 += r * grad * grad
        x = g * g / (g2 + hp.eps)
        param.array -= grad * numpy.minimum(x, hp.lr) / (numpy.sqrt(g2) + hp.eps)
        mem *= 1 - x
        mem += 1

    def update_core_gpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        kernel(
            "T grad, T lr, T eps",
            "T param, T mem, T g, T g2",
            """T r = 1 / (mem + 1);
                  g = (1 - r) * g + r * grad;
                  g2 = (1 - r) * g2 + r * grad * grad;
                  T x = g * g / (g2 + eps);
                  param -= grad * min(lr, x) / (sqrt(g2) + eps);
                  mem = 1 + mem * (1 - x);""",
            "smorms3",
        )(
            grad,
            hp.lr,
            hp.eps,
            param.array,
            self.state["mem"],
            self.state["g"],
            self.state["g2"],
        )


class SMORMS3(optimizer.GradientMethod):
    """SMORMS3 optimizer.

    Args:
        lr: Learning rate.
        eps: Small value for numerical stability.
    """

    def __init__(
        self, lr: float = _default_hyperparam.lr, eps: float = _default_hyperparam.eps
    ) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.eps = eps

    lr = optimizer.HyperparameterProxy("lr")
    eps = optimizer.HyperparameterProxy("eps")

    def create_update_rule(self) -> SMORMS3Rule:
        return SMORMS3Rule(self.hyperparam)
