"""RMSprop: gradients divided by a running RMS (Tieleman & Hinton, 2012)."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import optimizer
from kusari.optimizers._util import kernel, set_hyperparams, zeros_like_param

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.alpha = 0.99
_default_hyperparam.eps = 1e-8
_default_hyperparam.eps_inside_sqrt = False


def check_eps(name: str, eps: float, dtype: Any) -> None:
    """Raise if ``eps`` rounds to zero in ``dtype`` (e.g. 1e-8 in float16)."""
    if eps != 0 and numpy.dtype(dtype).type(eps) == 0:
        raise ValueError(
            f"eps of {name} optimizer is too small for {numpy.dtype(dtype).name} "
            f"({eps})"
        )


class RMSpropRule(optimizer.UpdateRule):
    """Update rule of :class:`RMSprop`.

    ``ms = alpha * ms + (1 - alpha) * g^2; W -= lr * g / (sqrt(ms) + eps)``
    (``sqrt(ms + eps)`` when ``eps_inside_sqrt``).

    Args:
        parent_hyperparam: Hyperparameters to fall back to.
        lr: Learning rate.
        alpha: Exponential decay rate of the second moment.
        eps: Small value for numerical stability.
        eps_inside_sqrt: Put ``eps`` inside the square root.
    """

    is_elementwise = True

    def __init__(
        self,
        parent_hyperparam: Any = None,
        lr: float | None = None,
        alpha: float | None = None,
        eps: float | None = None,
        eps_inside_sqrt: bool | None = None,
    ) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        set_hyperparams(
            self, lr=lr, alpha=alpha, eps=eps, eps_inside_sqrt=eps_inside_sqrt
        )

    def init_state(self, param: Any) -> None:
        self.state["ms"] = zeros_like_param(param)

    def update_core_cpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        check_eps("RMSprop", hp.eps, grad.dtype)
        ms = self.state["ms"]
        ms *= hp.alpha
        ms += (1 - hp.alpha) * grad * grad
        if hp.eps_inside_sqrt:
            denom = numpy.sqrt(ms + hp.eps)
        else:
            denom = numpy.sqrt(ms) + hp.eps
        param.array -= hp.lr * grad / denom

    def update_core_gpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        check_eps("RMSprop", hp.eps, grad.dtype)
        denom = "sqrt(ms + eps)" if hp.eps_inside_sqrt else "sqrt(ms) + eps"
        kernel(
            "T grad, T lr, T alpha, T eps",
            "T param, T ms",
            f"""ms = alpha * ms + (1 - alpha) * grad * grad;
                   param -= lr * grad / ({denom});""",
            "rmsprop_in" if hp.eps_inside_sqrt else "rmsprop",
        )(grad, hp.lr, hp.alpha, hp.eps, param.array, self.state["ms"])


class RMSprop(optimizer.GradientMethod):
    """RMSprop optimizer.

    Args:
        lr: Learning rate.
        alpha: Exponential decay rate of the second moment.
        eps: Small value for numerical stability.
        eps_inside_sqrt: Put ``eps`` inside the square root.
    """

    def __init__(
        self,
        lr: float = _default_hyperparam.lr,
        alpha: float = _default_hyperparam.alpha,
        eps: float = _default_hyperparam.eps,
        eps_inside_sqrt: bool = _default_hyperparam.eps_inside_sqrt,
    ) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.alpha = alpha
        self.hyperparam.eps = eps
        self.hyperparam.eps_inside_sqrt = eps_inside_sqrt

    lr = optimizer.HyperparameterProxy("lr")
    alpha = optimizer.HyperparameterProxy("alpha")
    eps = optimizer.HyperparameterProxy("eps")
    eps_inside_sqrt = optimizer.HyperparameterProxy("eps_inside_sqrt")

    def create_update_rule(self) -> RMSpropRule:
        return RMSpropRule(self.hyperparam)
