"""RMSpropGraves: Alex Graves' RMSprop with momentum (arXiv:1308.0850)."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import optimizer
from kusari.optimizers._util import kernel, set_hyperparams, zeros_like_param

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 1e-4
_default_hyperparam.alpha = 0.95
_default_hyperparam.momentum = 0.9
_default_hyperparam.eps = 1e-4


class RMSpropGravesRule(optimizer.UpdateRule):
    """Update rule of :class:`RMSpropGraves`.

    ``n = alpha * n + (1 - alpha) * g^2; m = alpha * m + (1 - alpha) * g;
    delta = momentum * delta - lr * g / sqrt(n - m^2 + eps); W += delta``.

    Args:
        parent_hyperparam: Hyperparameters to fall back to.
        lr: Learning rate.
        alpha: Exponential decay rate of the moments.
        momentum: Momentum of the step.
        eps: Small value for numerical stability.
    """

    is_elementwise = True

    def __init__(
        self,
        parent_hyperparam: Any = None,
        lr: float | None = None,
        alpha: float | None = None,
        momentum: float | None = None,
        eps: float | None = None,
    ) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        set_hyperparams(self, lr=lr, alpha=alpha, momentum=momentum, eps=eps)

    def init_state(self, param: Any) -> None:
        self.state["n"] = zeros_like_param(param)
        self.state["g"] = zeros_like_param(param)
        self.state["delta"] = zeros_like_param(param)

    def update_core_cpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        n, g, delta = self.state["n"], self.state["g"], self.state["delta"]
        n *= hp.alpha
        n += (1 - hp.alpha) * grad * grad
        g *= hp.alpha
        g += (1 - hp.alpha) * grad
        delta *= hp.momentum
        delta -= hp.lr * grad / numpy.sqrt(n - g * g + hp.eps)
        param.array += delta

    def update_core_gpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        kernel(
            "T grad, T lr, T alpha, T momentum, T eps",
            "T param, T avg_n, T avg_g, T delta",
            """avg_n = alpha * avg_n + (1 - alpha) * grad * grad;
                  avg_g = alpha * avg_g + (1 - alpha) * grad;
                  delta = delta * momentum
                      - lr * grad * rsqrt(avg_n - avg_g * avg_g + eps);
                  param += delta;""",
            "rmsprop_graves",
        )(
            grad,
            hp.lr,
            hp.alpha,
            hp.momentum,
            hp.eps,
            param.array,
            self.state["n"],
            self.state["g"],
            self.state["delta"],
        )


class RMSpropGraves(optimizer.GradientMethod):
    """RMSprop as written by Alex Graves.

    Args:
        lr: Learning rate.
        alpha: Exponential decay rate of the moments.
        momentum: Momentum of the step.
        eps: Small value for numerical stability.
    """

    def __init__(
        self,
        lr: float = _default_hyperparam.lr,
        alpha: float = _default_hyperparam.alpha,
        momentum: float = _default_hyperparam.momentum,
        eps: float = _default_hyperparam.eps,
    ) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.alpha = alpha
        self.hyperparam.momentum = momentum
        self.hyperparam.eps = eps

    lr = optimizer.HyperparameterProxy("lr")
    alpha = optimizer.HyperparameterProxy("alpha")
    momentum = optimizer.HyperparameterProxy("momentum")
    eps = optimizer.HyperparameterProxy("eps")

    def create_update_rule(self) -> RMSpropGravesRule:
        return RMSpropGravesRule(self.hyperparam)
