"""Losses used by variational auto-encoders."""

from __future__ import annotations

import math
from typing import Any

from kusari.functions.activation.softplus import softplus
from kusari.functions.loss._helpers import check_reduce
from kusari.variable import Variable


def _as_var(x: Any) -> Variable:
    return x if isinstance(x, Variable) else Variable(x, requires_grad=False)


_REDUCE = ("sum", "mean", "no")


def _reduce(loss: Variable, reduce: str) -> Variable:
    from kusari.functions.math.average import average
    from kusari.functions.math.sum import sum as _sum

    if reduce == "sum":
        return _sum(loss)
    if reduce == "mean":
        return average(loss)
    return loss


def gaussian_kl_divergence(mean: Any, ln_var: Any, reduce: str = "sum") -> Variable:
    """KL divergence of ``N(mean, exp(ln_var))`` from the standard normal.

    Args:
        mean: Means of the diagonal Gaussian.
        ln_var: Log variances, of ``mean``'s shape.
        reduce: ``'sum'`` for the sum, ``'mean'`` for the mean of the
            elementwise terms (both scalars), ``'no'`` for the terms.

    Returns:
        A scalar, or a variable of ``mean``'s shape.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> z = np.zeros(3, np.float32)
        >>> F.gaussian_kl_divergence(z, z).array
        array(0., dtype=float32)
    """
    from kusari.functions.math.exponential import exp

    check_reduce("gaussian_kl_divergence", reduce, _REDUCE)
    mean = _as_var(mean)
    ln_var = _as_var(ln_var)
    loss = (mean * mean + exp(ln_var) - ln_var - 1.0) * 0.5
    return _reduce(loss, reduce)


def bernoulli_nll(x: Any, y: Any, reduce: str = "sum") -> Variable:
    """Negative log-likelihood of ``x`` under Bernoulli(``sigmoid(y)``).

    Args:
        x: Observations (values in ``[0, 1]``).
        y: Logits (pre-sigmoid parameters), of ``x``'s shape.
        reduce: ``'sum'`` for the sum, ``'mean'`` for the mean of the
            elementwise terms (both scalars), ``'no'`` for the terms.

    Returns:
        A scalar, or a variable of ``x``'s shape.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.ones(1, np.float32)
        >>> round(float(F.bernoulli_nll(x, np.zeros(1, np.float32)).array), 4)
        0.6931
    """
    check_reduce("bernoulli_nll", reduce, _REDUCE)
    x = _as_var(x)
    y = _as_var(y)
    loss = softplus(y) - x * y
    return _reduce(loss, reduce)


def gaussian_nll(x: Any, mean: Any, ln_var: Any, reduce: str = "sum") -> Variable:
    """Negative log-likelihood of ``x`` under ``N(mean, exp(ln_var))`` (diagonal).

    Args:
        x: Observations.
        mean: Means, of ``x``'s shape.
        ln_var: Log variances, of ``x``'s shape.
        reduce: ``'sum'`` for the sum, ``'mean'`` for the mean of the
            elementwise terms (both scalars), ``'no'`` for the terms.

    Returns:
        A scalar, or a variable of ``x``'s shape.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> z = np.zeros(1, np.float32)
        >>> round(float(F.gaussian_nll(z, z, z).array), 4)
        0.9189
    """
    from kusari.functions.math.exponential import exp

    check_reduce("gaussian_nll", reduce, _REDUCE)
    x = _as_var(x)
    mean = _as_var(mean)
    ln_var = _as_var(ln_var)
    diff = x - mean
    loss = (ln_var + math.log(2 * math.pi)) * 0.5 + diff * diff * exp(-ln_var) * 0.5
    return _reduce(loss, reduce)
