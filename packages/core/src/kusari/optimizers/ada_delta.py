"""AdaDelta: learning-rate-free updates (Zeiler, 2012)."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import optimizer
from kusari.optimizers._util import kernel, set_hyperparams, zeros_like_param

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.rho = 0.95
_default_hyperparam.eps = 1e-6


class AdaDeltaRule(optimizer.UpdateRule):
    """Update rule of :class:`AdaDelta`.

    ``msg = rho * msg + (1 - rho) * g^2;
    dx = sqrt((msdx + eps) / (msg + eps)) * g;
    msdx = rho * msdx + (1 - rho) * dx^2; W -= dx``.

    Args:
        parent_hyperparam: Hyperparameters to fall back to.
        rho: Exponential decay rate of the moving averages.
        eps: Small value for numerical stability.
    """

    is_elementwise = True

    def __init__(
        self,
        parent_hyperparam: Any = None,
        rho: float | None = None,
        eps: float | None = None,
    ) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        set_hyperparams(self, rho=rho, eps=eps)

    def init_state(self, param: Any) -> None:
        self.state["msg"] = zeros_like_param(param)
        self.state["msdx"] = zeros_like_param(param)

    def update_core_cpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        msg, msdx = self.state["msg"], self.state["msdx"]
        rho, eps = self.hyperparam.rho, self.hyperparam.eps
        msg *= rho
        msg += (1 - rho) * grad * grad
        dx = numpy.sqrt((msdx + eps) / (msg + eps)) * grad
        msdx *= rho
        msdx += (1 - rho) * dx * dx
        param.array -= dx

    def update_core_gpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        kernel(
            "T grad, T one_minus_rho, T eps",
            "T param, T msg, T msdx",
            """msg = msg + one_minus_rho * (grad * grad - msg);
                  T dx = sqrt((msdx + eps) / (msg + eps)) * grad;
                  msdx += one_minus_rho * (dx * dx - msdx);
                  param -= dx;""",
            "adadelta",
        )(
            grad,
            1 - self.hyperparam.rho,
            self.hyperparam.eps,
            param.array,
            self.state["msg"],
            self.state["msdx"],
        )


class AdaDelta(optimizer.GradientMethod):
    """AdaDelta optimizer.

    Args:
        rho: Exponential decay rate of the moving averages.
        eps: Small value for numerical stability.
    """

    def __init__(
        self, rho: float = _default_hyperparam.rho, eps: float = _default_hyperparam.eps
    ) -> None:
        super().__init__()
        self.hyperparam.rho = rho
        self.hyperparam.eps = eps

    rho = optimizer.HyperparameterProxy("rho")
    eps = optimizer.HyperparameterProxy("eps")

    def create_update_rule(self) -> AdaDeltaRule:
        return AdaDeltaRule(self.hyperparam)
