"""``gumbel_softmax``: a differentiable sample of the Gumbel-softmax distribution."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.variable import Variable


def gumbel_softmax(log_pi: Any, tau: Any = 0.1, axis: int = 1) -> Variable:
    """``softmax((log_pi + g) / tau)`` with Gumbel(0, 1) noise ``g``.

    Args:
        log_pi: Unnormalised log probabilities.
        tau: Temperature (a float or a Variable).
        axis: The axis of the categories.

    Returns:
        A Variable of ``log_pi``'s shape (ones of shape ``()`` for a 0-D input).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> y = F.gumbel_softmax(np.zeros((2, 3), np.float32))
        >>> np.allclose(y.array.sum(axis=1), 1)
        True
    """
    from kusari.functions.activation.softmax import softmax

    xp = backend.get_array_module(log_pi)
    if log_pi.ndim < 1:
        return Variable(xp.ones((), dtype=log_pi.dtype))
    dtype = log_pi.dtype
    if xp is numpy:
        g = numpy.random.gumbel(size=log_pi.shape).astype(dtype)
    else:  # pragma: no cover - needs CuPy
        g = xp.random.gumbel(size=log_pi.shape).astype(dtype)
    if not isinstance(log_pi, Variable):
        log_pi = Variable(log_pi, requires_grad=False)
    return softmax((log_pi + g) / tau, axis=axis)
