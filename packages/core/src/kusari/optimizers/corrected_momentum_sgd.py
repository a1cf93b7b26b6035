"""CorrectedMomentumSGD: momentum SGD with the learning rate outside the
velocity (Goyal et al., 2017), robust to learning-rate changes."""

from __future__ import annotations

from typing import Any

from kusari import optimizer
from kusari.optimizers._util import kernel, set_hyperparams, zeros_like_param

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class CorrectedMomentumSGDRule(optimizer.UpdateRule):
    """Update rule of :class:`CorrectedMomentumSGD`:
    ``v = momentum * v - g; W += lr * v``.

    Args:
        parent_hyperparam: Hyperparameters to fall back to.
        lr: Learning rate.
        momentum: Exponential decay rate of the velocity.
    """

    is_elementwise = True

    def __init__(
        self,
        parent_hyperparam: Any = None,
        lr: float | None = None,
        momentum: float | None = None,
    ) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        set_hyperparams(self, lr=lr, momentum=momentum)

    def init_state(self, param: Any) -> None:
        self.state["v"] = zeros_like_param(param)

    def update_core_cpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        v = self.state["v"]
        v *= self.hyperparam.momentum
        v -= grad
        param.array += self.hyperparam.lr * v

    def update_core_gpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        kernel(
            "T grad, T lr, T momentum",
            "T param, T v",
            "v = momentum * v - grad; param += lr * v",
            "corrected_momentum_sgd",
        )(
            grad,
            self.hyperparam.lr,
            self.hyperparam.momentum,
            param.array,
            self.state["v"],
        )


class CorrectedMomentumSGD(optimizer.GradientMethod):
    """Momentum SGD with the learning rate applied after the velocity.

    Args:
        lr: Learning rate.
        momentum: Exponential decay rate of the velocity.
    """

    def __init__(
        self,
        lr: float = _default_hyperparam.lr,
        momentum: float = _default_hyperparam.momentum,
    ) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.momentum = momentum

    lr = optimizer.HyperparameterProxy("lr")
    momentum = optimizer.HyperparameterProxy("momentum")

    def create_update_rule(self) -> CorrectedMomentumSGDRule:
        return CorrectedMomentumSGDRule(self.hyperparam)
