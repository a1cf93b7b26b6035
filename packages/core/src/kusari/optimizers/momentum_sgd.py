"""MomentumSGD: SGD with classical momentum."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import optimizer
from kusari.optimizers._fused import ElementwiseKernel
from kusari.optimizers._util import kernel, set_hyperparams, zeros_like_param

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


def _momentum_cpu(consts: Any, p: Any, g: Any, state: Any, t1: Any) -> None:
    lr, momentum = consts
    v = state["v"]
    v *= momentum
    numpy.multiply(g, lr, out=t1)
    v -= t1
    p += v


class MomentumSGDRule(optimizer.UpdateRule):
    """Update rule of :class:`MomentumSGD`: ``v = momentum * v - lr * g;
    W += v``.

    Args:
        parent_hyperparam: Hyperparameters to fall back to.
        lr: Learning rate.
        momentum: Exponential decay rate of the velocity.
    """

    is_elementwise = True
    _fused_kernel = ElementwiseKernel(_momentum_cpu, n_temps=1)

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

    def _fused_consts(self, param: Any) -> tuple[float, float]:
        hp = self.hyperparam
        return (float(hp.lr), float(hp.momentum))

    def update_core_cpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        self._fused_kernel.apply(
            self._fused_consts(param), param.array, grad, self.state
        )

    def update_core_gpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        kernel(
            "T grad, T lr, T momentum",
            "T param, T v",
            "v = momentum * v - lr * grad; param += v",
            "momentum_sgd",
        )(
            grad,
            self.hyperparam.lr,
            self.hyperparam.momentum,
            param.array,
            self.state["v"],
        )


class MomentumSGD(optimizer.GradientMethod):
    """Momentum SGD.

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

    def create_update_rule(self) -> MomentumSGDRule:
        return MomentumSGDRule(self.hyperparam)
