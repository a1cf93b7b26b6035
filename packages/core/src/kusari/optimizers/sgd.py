"""SGD: vanilla stochastic gradient descent, ``W -= lr * g``."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import optimizer
from kusari.optimizers._fused import ElementwiseKernel
from kusari.optimizers._util import kernel, set_hyperparams
from kusari.utils import blas

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01


def _sgd_cpu(consts: Any, p: Any, g: Any, state: Any, t1: Any) -> None:
    (lr,) = consts
    # One pass through OpenBLAS's axpy (p + (-lr) g rounded once, as
    # PyTorch and CUDA compute it); two NumPy passes where it cannot.
    if blas.axpy(-lr, g, p):
        return
    numpy.multiply(g, lr, out=t1)
    p -= t1


def _sgd_whole(consts: Any, p: Any, g: Any) -> bool:
    # A range in one axpy, no scratch block (see _fused.run_whole); each
    # element is computed alone, so any cut of the arrays gives these bits.
    return blas.axpy(-consts[0], g, p)


class SGDRule(optimizer.UpdateRule):
    """Update rule of :class:`SGD`.

    Args:
        parent_hyperparam: Hyperparameters to fall back to.
        lr: Learning rate.
    """

    is_elementwise = True
    _fused_kernel = ElementwiseKernel(_sgd_cpu, n_temps=1, blas=True, whole=_sgd_whole)

    def __init__(self, parent_hyperparam: Any = None, lr: float | None = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        set_hyperparams(self, lr=lr)

    def _fused_consts(self, param: Any) -> tuple[float]:
        return (float(self.hyperparam.lr),)

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
        kernel("T grad, T lr", "T param", "param -= lr * grad", "sgd")(
            grad, self.hyperparam.lr, param.array
        )


class SGD(optimizer.GradientMethod):
    """Vanilla stochastic gradient descent.

    On CPU, float32 and float64 parameters are updated in one pass by
    OpenBLAS's ``axpy`` where NumPy's BLAS is OpenBLAS: ``W + (-lr) g``
    rounded once, as PyTorch's CPU update and a contracted CUDA kernel
    compute it (Chainer's NumPy update rounds ``lr * g`` first; the two can
    differ in the last bit). Elsewhere the update is NumPy's two passes.

    Args:
        lr: Learning rate.
    """

    def __init__(self, lr: float = _default_hyperparam.lr) -> None:
        super().__init__()
        self.hyperparam.lr = lr

    lr = optimizer.HyperparameterProxy("lr")

    def create_update_rule(self) -> SGDRule:
        return SGDRule(self.hyperparam)
