"""``gaussian``: reparameterised sampling from ``N(mean, exp(ln_var))``."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import force_array, type_check


class Gaussian(FunctionNode):
    """``y = mean + exp(ln_var / 2) * eps`` with ``eps ~ N(0, 1)``."""

    def __init__(self, eps: Any = None) -> None:
        # Drawn on the first forward and reused afterwards.
        self.eps = eps

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("mean", "ln_var"))
        m, v = in_types
        type_check.expect(m.dtype.kind == "f", m.dtype == v.dtype, m.shape == v.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((1,))
        mean, ln_var = inputs
        xp = backend.get_array_module(mean)
        if self.eps is None:
            if xp is numpy:
                self.eps = numpy.random.standard_normal(ln_var.shape).astype(
                    mean.dtype, copy=False
                )
            else:  # pragma: no cover - needs CuPy
                self.eps = xp.random.standard_normal(ln_var.shape, dtype=mean.dtype)
        else:
            eps = getattr(self.eps, "array", self.eps)
            self.eps = xp.asarray(eps).astype(mean.dtype, copy=False)
        noise = xp.exp(ln_var * mean.dtype.type(0.5)) * self.eps
        return (force_array(mean + noise),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.math.exponential import exp

        (ln_var,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(gy)
            else:
                ret.append(gy * (exp(ln_var * 0.5) * self.eps) * 0.5)
        return tuple(ret)


def gaussian(mean: Any, ln_var: Any, eps: Any = None, return_eps: bool = False) -> Any:
    """Sample from ``N(mean, exp(ln_var))`` by reparameterisation.

    As in Chainer this samples in test mode too (``config.train`` is not
    consulted).

    Args:
        mean: Mean ``mu``.
        ln_var: Log variance ``log(sigma^2)`` (same shape and dtype).
        eps: Fixed standard-normal noise of the same shape (drawn when None).
        return_eps: Also return the noise used.

    Returns:
        The sample, or ``(sample, eps)`` when ``return_eps``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> m = np.zeros(2, np.float32)
        >>> F.gaussian(m, m, eps=np.ones(2, np.float32)).array
        array([1., 1.], dtype=float32)
    """
    func = Gaussian(eps)
    out = func.apply((mean, ln_var))[0]
    if return_eps:
        return out, func.eps
    return out
