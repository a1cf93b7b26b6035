"""Adam and its variants: AdamW, AMSGrad, AdaBound, AMSBound."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy

from kusari import optimizer
from kusari.optimizers._fused import ElementwiseKernel
from kusari.optimizers._util import kernel, set_hyperparams, zeros_like_param
from kusari.optimizers.rmsprop import check_eps

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.alpha = 0.001
_default_hyperparam.beta1 = 0.9
_default_hyperparam.beta2 = 0.999
_default_hyperparam.eps = 1e-8
_default_hyperparam.eta = 1.0
_default_hyperparam.weight_decay_rate = 0
_default_hyperparam.amsgrad = False
_default_hyperparam.adabound = False
_default_hyperparam.final_lr = 0.1
_default_hyperparam.gamma = 1e-3


def _learning_rate(hp: Any, t: int) -> float:
    if t == 0:
        raise RuntimeError(
            "cannot compute Adam's learning rate before the first update (t == 0)"
        )
    fix1 = 1.0 - math.pow(hp.beta1, t)
    fix2 = 1.0 - math.pow(hp.beta2, t)
    return hp.alpha * math.sqrt(fix2) / fix1


_KERNEL_IN = (
    "T grad, T alpha_t, T one_minus_beta1, T one_minus_beta2, T eps, "
    "T eta, T weight_decay_rate"
)


def _adam_cpu(consts: Any, p: Any, g: Any, state: Any, t1: Any, t2: Any) -> None:
    alpha_t, c1, c2, eps, eta, wd, amsgrad, bounds = consts
    m, v = state["m"], state["v"]
    numpy.subtract(g, m, out=t1)
    t1 *= c1
    m += t1
    numpy.multiply(g, g, out=t1)
    t1 -= v
    t1 *= c2
    v += t1
    if amsgrad:
        vhat = state["vhat"]
        numpy.maximum(vhat, v, out=vhat)
    else:
        vhat = v
    numpy.sqrt(vhat, out=t1)
    t1 += eps
    numpy.divide(alpha_t, t1, out=t1)
    if bounds is not None:
        numpy.clip(t1, bounds[0], bounds[1], out=t1)
    t1 *= m
    if wd:
        numpy.multiply(p, wd, out=t2)
        t1 += t2
    if eta != 1.0:
        # A pass over the block saved in the common case; multiplying by 1
        # is exact, so skipping it changes no bit.
        t1 *= eta
    p -= t1


class AdamRule(optimizer.UpdateRule):
    """Update rule of :class:`Adam` and its variants.

    ``m += (1 - beta1) (g - m); v += (1 - beta2) (g^2 - v)``;
    ``vhat = max(vhat, v)`` with ``amsgrad`` (else ``vhat = v``);
    ``step = alpha_t / (sqrt(vhat) + eps)``, clipped into AdaBound's
    ``[lower_t, upper_t]`` with ``adabound``;
    ``W -= eta (step * m + weight_decay_rate * W)``, where
    ``alpha_t = alpha sqrt(1 - beta2^t) / (1 - beta1^t)``.

    Args:
        parent_hyperparam: Hyperparameters to fall back to.
        alpha, beta1, beta2, eps, eta, weight_decay_rate, amsgrad, adabound,
        final_lr, gamma: As in :class:`Adam`.
    """

    is_elementwise = True
    _fused_kernel = ElementwiseKernel(_adam_cpu, n_temps=2)

    def __init__(
        self,
        parent_hyperparam: Any = None,
        alpha: float | None = None,
        beta1: float | None = None,
        beta2: float | None = None,
        eps: float | None = None,
        eta: float | None = None,
        weight_decay_rate: float | None = None,
        amsgrad: bool | None = None,
        adabound: bool | None = None,
        final_lr: float | None = None,
        gamma: float | None = None,
    ) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        set_hyperparams(
            self,
            alpha=alpha,
            beta1=beta1,
            beta2=beta2,
            eps=eps,
            eta=eta,
            weight_decay_rate=weight_decay_rate,
            amsgrad=amsgrad,
            adabound=adabound,
            final_lr=final_lr,
            gamma=gamma,
        )
        self.initial_alpha: float | None = None

    def init_state(self, param: Any) -> None:
        self.state["m"] = zeros_like_param(param)
        self.state["v"] = zeros_like_param(param)
        if self.hyperparam.amsgrad:
            self.state["vhat"] = zeros_like_param(param)

    def _bounds(self) -> tuple[float, float]:
        # AdaBound's step bounds converge to final_lr (scaled with alpha so a
        # learning-rate schedule on alpha moves them too).
        hp = self.hyperparam
        if self.initial_alpha is None:
            self.initial_alpha = hp.alpha
        final_lr = hp.final_lr * hp.alpha / self.initial_alpha
        lower = final_lr * (1.0 - 1.0 / (hp.gamma * self.t + 1))
        upper = final_lr * (1.0 + 1.0 / (hp.gamma * self.t))
        return lower, upper

    def _fused_consts(self, param: Any) -> tuple[Any, ...]:
        hp = self.hyperparam
        check_eps("Adam", hp.eps, param.grad.dtype)
        bounds = self._bounds() if hp.adabound else None
        return (
            self.alpha_t,
            float(1 - hp.beta1),
            float(1 - hp.beta2),
            float(hp.eps),
            float(hp.eta),
            float(hp.weight_decay_rate),
            bool(hp.amsgrad),
            bounds,
        )

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
        hp = self.hyperparam
        check_eps("Adam", hp.eps, grad.dtype)
        args = [
            grad,
            self.alpha_t,
            1 - hp.beta1,
            1 - hp.beta2,
            hp.eps,
            hp.eta,
            hp.weight_decay_rate,
        ]
        in_params = _KERNEL_IN
        pre = ""
        vhat = "v"
        if hp.amsgrad:
            pre = "vhat = max(vhat, v);"
            vhat = "vhat"
        step = f"alpha_t / (sqrt({vhat}) + eps)"
        if hp.adabound:
            in_params += ", T lower, T upper"
            args += list(self._bounds())
            step = f"min(upper, max(lower, {step}))"
        out_params = "T param, T m, T v" + (", T vhat" if hp.amsgrad else "")
        outs = [param.array, self.state["m"], self.state["v"]]
        if hp.amsgrad:
            outs.append(self.state["vhat"])
        name = (
            "adam" + ("_ams" if hp.amsgrad else "") + ("_bound" if hp.adabound else "")
        )
        kernel(
            in_params,
            out_params,
            f"""m += one_minus_beta1 * (grad - m);
                   v += one_minus_beta2 * (grad * grad - v);
                   {pre}
                   param -= eta * ({step} * m + weight_decay_rate * param);""",
            name,
        )(*args, *outs)

    @property
    def alpha_t(self) -> float:
        """The bias-corrected step size of the current update."""
        return _learning_rate(self.hyperparam, self.t)

    @property
    def lr(self) -> float:
        """Deprecated alias of :attr:`alpha_t`."""
        warnings.warn(
            "AdamRule.lr is deprecated; use AdamRule.alpha_t",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.alpha_t


class Adam(optimizer.GradientMethod):
    """Adam optimizer (Kingma & Ba, 2015) with the AdamW, AMSGrad and AdaBound
    options.

    Args:
        alpha: Coefficient of the step size.
        beta1: Exponential decay rate of the first moment.
        beta2: Exponential decay rate of the second moment.
        eps: Small value for numerical stability.
        eta: Schedule multiplier (for warm restarts).
        weight_decay_rate: Decoupled weight decay rate (AdamW).
        amsgrad: Use AMSGrad's running maximum of the second moment.
        adabound: Clip the step into AdaBound's bounds.
        final_lr: The learning rate the AdaBound bounds converge to.
        gamma: Convergence speed of the AdaBound bounds.
    """

    def __init__(
        self,
        alpha: float = _default_hyperparam.alpha,
        beta1: float = _default_hyperparam.beta1,
        beta2: float = _default_hyperparam.beta2,
        eps: float = _default_hyperparam.eps,
        eta: float = _default_hyperparam.eta,
        weight_decay_rate: float = _default_hyperparam.weight_decay_rate,
        amsgrad: bool = _default_hyperparam.amsgrad,
        adabound: bool = _default_hyperparam.adabound,
        final_lr: float = _default_hyperparam.final_lr,
        gamma: float = _default_hyperparam.gamma,
    ) -> None:
        super().__init__()
        hp = self.hyperparam
        hp.alpha = alpha
        hp.beta1 = beta1
        hp.beta2 = beta2
        hp.eps = eps
        hp.eta = eta
        hp.weight_decay_rate = weight_decay_rate
        hp.amsgrad = amsgrad
        hp.adabound = adabound
        hp.final_lr = final_lr
        hp.gamma = gamma

    alpha = optimizer.HyperparameterProxy("alpha")
    beta1 = optimizer.HyperparameterProxy("beta1")
    beta2 = optimizer.HyperparameterProxy("beta2")
    eps = optimizer.HyperparameterProxy("eps")
    eta = optimizer.HyperparameterProxy("eta")
    weight_decay_rate = optimizer.HyperparameterProxy("weight_decay_rate")
    amsgrad = optimizer.HyperparameterProxy("amsgrad")
    adabound = optimizer.HyperparameterProxy("adabound")
    final_lr = optimizer.HyperparameterProxy("final_lr")
    gamma = optimizer.HyperparameterProxy("gamma")

    def create_update_rule(self) -> AdamRule:
        return AdamRule(self.hyperparam)

    @property
    def alpha_t(self) -> float:
        """The bias-corrected step size at the optimizer's ``t``."""
        return _learning_rate(self.hyperparam, self.t)

    @property
    def lr(self) -> float:
        """Deprecated alias of :attr:`alpha_t`."""
        warnings.warn(
            "Adam.lr is deprecated; use Adam.alpha_t", DeprecationWarning, stacklevel=2
        )
        return self.alpha_t


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter)."""

    def __init__(
        self,
        alpha: float = _default_hyperparam.alpha,
        beta1: float = _default_hyperparam.beta1,
        beta2: float = _default_hyperparam.beta2,
        eps: float = _default_hyperparam.eps,
        eta: float = _default_hyperparam.eta,
        weight_decay_rate: float = _default_hyperparam.weight_decay_rate,
    ) -> None:
        super().__init__(
            alpha=alpha,
            beta1=beta1,
            beta2=beta2,
            eps=eps,
            eta=eta,
            weight_decay_rate=weight_decay_rate,
        )


class AMSGrad(Adam):
    """Adam with the running maximum of the second moment (Reddi et al.)."""

    def __init__(
        self,
        alpha: float = _default_hyperparam.alpha,
        beta1: float = _default_hyperparam.beta1,
        beta2: float = _default_hyperparam.beta2,
        eps: float = _default_hyperparam.eps,
        eta: float = _default_hyperparam.eta,
    ) -> None:
        super().__init__(
            alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta, amsgrad=True
        )


class AdaBound(Adam):
    """Adam with dynamic bounds on the step (Luo et al., 2019)."""

    def __init__(
        self,
        alpha: float = _default_hyperparam.alpha,
        beta1: float = _default_hyperparam.beta1,
        beta2: float = _default_hyperparam.beta2,
        final_lr: float = _default_hyperparam.final_lr,
        gamma: float = _default_hyperparam.gamma,
        eps: float = _default_hyperparam.eps,
        eta: float = _default_hyperparam.eta,
    ) -> None:
        super().__init__(
            alpha=alpha,
            beta1=beta1,
            beta2=beta2,
            eps=eps,
            eta=eta,
            adabound=True,
            final_lr=final_lr,
            gamma=gamma,
        )


class AMSBound(Adam):
    """AdaBound on top of AMSGrad."""

    def __init__(
        self,
        alpha: float = _default_hyperparam.alpha,
        beta1: float = _default_hyperparam.beta1,
        beta2: float = _default_hyperparam.beta2,
        final_lr: float = _default_hyperparam.final_lr,
        gamma: float = _default_hyperparam.gamma,
        eps: float = _default_hyperparam.eps,
        eta: float = _default_hyperparam.eta,
    ) -> None:
        super().__init__(
            alpha=alpha,
            beta1=beta1,
            beta2=beta2,
            eps=eps,
            eta=eta,
            amsgrad=True,
            adabound=True,
            final_lr=final_lr,
            gamma=gamma,
        )
