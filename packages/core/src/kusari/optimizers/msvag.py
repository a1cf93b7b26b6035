"""MSVAG: M-SVAG, variance-adapted momentum (Balles & Hennig, 2017)."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import optimizer
from kusari.optimizers._util import kernel, set_hyperparams, zeros_like_param

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.1
_default_hyperparam.beta = 0.9
_default_hyperparam.eta = 1.0
_default_hyperparam.weight_decay_rate = 0


class MSVAGRule(optimizer.UpdateRule):
    """Update rule of :class:`MSVAG`.

    With bias-corrected moments ``mt``, ``vt``, the variance estimate
    ``s = (vt - mt^2) / (1 - rho)`` and
    ``rho = (1 - b)^2 (1 - b^(2t)) / ((1 - b^t)^2 (1 - b^2))`` (capped at
    0.9999), the step is ``W -= eta * (lr * mt * f + wd * W)`` with the
    factor ``f = clip(mt^2 / (mt^2 + rho s), 0, 1)`` (0 where undefined).

    ``b^t`` is computed from :attr:`t`, so a restored rule resumes exactly.

    Args:
        parent_hyperparam: Hyperparameters to fall back to.
        lr: Learning rate.
        beta: Exponential decay rate of both moments.
        eta: Schedule multiplier.
        weight_decay_rate: Decoupled weight decay rate.
    """

    is_elementwise = True

    def __init__(
        self,
        parent_hyperparam: Any = None,
        lr: float | None = None,
        beta: float | None = None,
        eta: float | None = None,
        weight_decay_rate: float | None = None,
    ) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        set_hyperparams(
            self, lr=lr, beta=beta, eta=eta, weight_decay_rate=weight_decay_rate
        )

    def init_state(self, param: Any) -> None:
        self.state["m"] = zeros_like_param(param)
        self.state["v"] = zeros_like_param(param)

    def _rho(self) -> tuple[float, float]:
        beta = self.hyperparam.beta
        beta_power = beta**self.t
        rho = (
            (1.0 - beta) ** 2
            * (1.0 - beta_power**2)
            / ((1.0 - beta_power) ** 2 * (1.0 - beta**2))
        )
        return beta_power, min(rho, 0.9999)

    def update_core_cpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        beta_power, rho = self._rho()
        m, v = self.state["m"], self.state["v"]
        m += (1 - hp.beta) * (grad - m)
        v += (1 - hp.beta) * (grad * grad - v)
        mt = m / (1 - beta_power)
        vt = v / (1 - beta_power)
        mt2 = mt * mt
        s = (vt - mt2) / (1 - rho)
        with numpy.errstate(invalid="ignore", divide="ignore"):
            factor = numpy.clip(mt2 / (mt2 + rho * s), 0, 1)
        # numpy.where, not masked assignment: a 0-d parameter's factor is a
        # NumPy scalar, which cannot be assigned into.
        factor = numpy.where(numpy.isnan(factor), 0, factor).astype(
            param.array.dtype, copy=False
        )
        param.array -= hp.eta * (
            hp.lr * mt * factor + hp.weight_decay_rate * param.array
        )

    def update_core_gpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        beta_power, rho = self._rho()
        # 1 - beta^t and 1 - rho are formed here in double precision: rho nears
        # 1, and 1 - (T)rho in float32 would lose most of its digits.
        kernel(
            "T grad, T lr, T one_minus_beta, T eta, T weight_decay_rate, "
            "T one_minus_beta_power, T rho, T one_minus_rho",
            "T param, T m, T v",
            """m += one_minus_beta * (grad - m);
                  v += one_minus_beta * (grad * grad - v);
                  T mt = m / one_minus_beta_power;
                  T vt = v / one_minus_beta_power;
                  T mt2 = mt * mt;
                  T s = (vt - mt2) / one_minus_rho;
                  T factor = mt2 / (mt2 + rho * s);
                  factor = isnan(factor) ? (T)0 : min((T)1, max((T)0, factor));
                  param -= eta * (lr * mt * factor + weight_decay_rate * param);""",
            "msvag",
        )(
            grad,
            hp.lr,
            1 - hp.beta,
            hp.eta,
            hp.weight_decay_rate,
            1 - beta_power,
            rho,
            1 - rho,
            param.array,
            self.state["m"],
            self.state["v"],
        )


class MSVAG(optimizer.GradientMethod):
    """M-SVAG optimizer with decoupled weight decay.

    Args:
        lr: Learning rate.
        beta: Exponential decay rate of both moments.
        eta: Schedule multiplier.
        weight_decay_rate: Decoupled weight decay rate.
    """

    def __init__(
        self,
        lr: float = _default_hyperparam.lr,
        beta: float = _default_hyperparam.beta,
        eta: float = _default_hyperparam.eta,
        weight_decay_rate: float = _default_hyperparam.weight_decay_rate,
    ) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.beta = beta
        self.hyperparam.eta = eta
        self.hyperparam.weight_decay_rate = weight_decay_rate

    lr = optimizer.HyperparameterProxy("lr")
    beta = optimizer.HyperparameterProxy("beta")
    eta = optimizer.HyperparameterProxy("eta")
    weight_decay_rate = optimizer.HyperparameterProxy("weight_decay_rate")

    def create_update_rule(self) -> MSVAGRule:
        return MSVAGRule(self.hyperparam)
