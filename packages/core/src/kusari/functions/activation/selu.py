"""Scaled exponential linear unit."""

from __future__ import annotations

from typing import Any

from kusari.functions.activation.elu import elu
from kusari.variable import Variable


def selu(
    x: Any, alpha: float = 1.6732632423543772, scale: float = 1.0507009873554805
) -> Variable:
    """Scaled ELU, ``scale * elu(x, alpha)``.

    Args:
        x: Input variable of a float dtype.
        alpha: ELU's ``alpha``.
        scale: Output scale.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.selu(np.array([0., 1.], np.float64)).array
        array([0.        , 1.05070])
    """
    return elu(x, alpha) * scale
