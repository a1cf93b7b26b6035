"""Mellowmax, a softmax that is a non-expansion (Asadi & Littman, 2017).

See https://arxiv.org/abs/1612.05628.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import kusari.functions as F
from kusari import backend
from kusari.backends import cuda
from kusari.variable import Variable


def mellowmax(values: Any, omega: float = 1.0, axis: int = 1) -> Variable:
    """``log(mean(exp(omega * values))) / omega`` along ``axis``.

    Args:
        values: Input Variable or array.
        omega: Temperature; large ``omega`` approaches ``max``, small
            ``omega`` approaches the mean.
        axis: Axis to reduce.

    Example:
        >>> import numpy as np
        >>> from kusari_rl.functions import mellowmax
        >>> float(mellowmax(np.array([[1., 1.]], np.float32)).array[0])
        1.0
    """
    n = values.shape[axis]
    return (F.logsumexp(omega * values, axis=axis) - math.log(n)) / omega


def maximum_entropy_mellowmax(
    values: Any,
    omega: float = 1.0,
    beta_min: float = -5.0,
    beta_max: float = 5.0,
    n_iterations: int = 60,
) -> Variable:
    """The maximum-entropy Boltzmann policy whose mean value equals mellowmax.

    For each row ``q`` of ``values`` (shape ``(batch, n_actions)``) it finds
    ``beta`` with ``sum_a exp(beta * adv_a) * adv_a == 0``, where
    ``adv = q - mellowmax(q, omega)``, and returns ``softmax(beta * q)``. The
    left side is non-decreasing in ``beta``, so a bisection on
    ``[beta_min, beta_max]`` over the whole batch at once finds it.

    Args:
        values: ``(batch, n_actions)`` action values.
        omega: Mellowmax's parameter.
        beta_min: Lower end of the search interval for ``beta``.
        beta_max: Upper end of the search interval for ``beta``.
        n_iterations: Bisection steps (each halves the interval).

    Returns:
        ``(batch, n_actions)`` action probabilities.
    """
    data = values.array if isinstance(values, Variable) else values
    xp = backend.get_array_module(data)
    if data.ndim != 2:
        raise ValueError(
            "maximum_entropy_mellowmax: values must be (batch, n_actions); "
            f"got shape {data.shape}"
        )
    mm = mellowmax(data, omega=omega, axis=1).array
    adv = cuda.to_cpu(data - mm[:, None]).astype(numpy.float64)

    def f(beta: Any) -> Any:
        return numpy.sum(numpy.exp(beta[:, None] * adv) * adv, axis=1)

    lo = numpy.full(len(adv), float(beta_min))
    hi = numpy.full(len(adv), float(beta_max))
    for _ in range(n_iterations):
        mid = (lo + hi) / 2
        positive = f(mid) > 0
        hi = numpy.where(positive, mid, hi)
        lo = numpy.where(positive, lo, mid)
    beta = xp.asarray(((lo + hi) / 2).astype(data.dtype))
    return F.softmax(beta[:, None] * values)
