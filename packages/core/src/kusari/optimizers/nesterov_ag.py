"""NesterovAG: Nesterov's accelerated gradient."""

from __future__ import annotations

from typing import Any

from kusari import optimizer
from kusari.optimizers._util import kernel, set_hyperparams, zeros_like_param

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class NesterovAGRule(optimizer.UpdateRule):
    """Update rule of :class:`NesterovAG`.

    ``v = mu * v - lr * g; W += mu**2 * v - (1 + mu) * lr * g``
    (the reformulation of Bengio et al., 2012).

    Args:
        parent_hyperparam: Hyperparameters to fall back to.
        lr: Learning rate.
        momentum: Momentum coefficient ``mu``.
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
        lr, mu = self.hyperparam.lr, self.hyperparam.momentum
        v *= mu
        v -= lr * grad
        param.array += mu * mu * v
        param.array -= (1 + mu) * lr * grad

    def update_core_gpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        kernel(
            "T grad, T lr, T momentum",
            "T param, T v",
            """v = v * momentum - lr * grad;
                  param += momentum * momentum * v;
                  param -= (1 + momentum) * lr * grad;""",
            "nesterov_ag",
        )(
            grad,
            self.hyperparam.lr,
            self.hyperparam.momentum,
            param.array,
            self.state["v"],
        )


class NesterovAG(optimizer.GradientMethod):
    """Nesterov's accelerated gradient.

    Args:
        lr: Learning rate.
        momentum: Momentum coefficient.
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

    def create_update_rule(self) -> NesterovAGRule:
        return NesterovAGRule(self.hyperparam)
