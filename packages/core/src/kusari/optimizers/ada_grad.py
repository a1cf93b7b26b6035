"""AdaGrad: per-element learning rates from accumulated squared gradients."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import optimizer
from kusari.optimizers._util import kernel, set_hyperparams, zeros_like_param

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.001
_default_hyperparam.eps = 1e-8


class AdaGradRule(optimizer.UpdateRule):
    """Update rule of :class:`AdaGrad`:
    ``h += g * g; W -= lr * g / (sqrt(h) + eps)``.

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
        self.state["h"] = zeros_like_param(param)

    def update_core_cpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        h = self.state["h"]
        h += grad * grad
        param.array -= self.hyperparam.lr * grad / (numpy.sqrt(h) + self.hyperparam.eps)

    def update_core_gpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        kernel(
            "T grad, T lr, T eps",
            "T param, T h",
            "h += grad * grad; param -= lr * grad / (sqrt(h) + eps)",
            "adagrad",
        )(grad, self.hyperparam.lr, self.hyperparam.eps, param.array, self.state["h"])


class AdaGrad(optimizer.GradientMethod):
    """AdaGrad optimizer.

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

    def create_update_rule(self) -> AdaGradRule:
        return AdaGradRule(self.hyperparam)
