"""``ndtri``: inverse of ndtr (the standard normal quantile function)."""

from __future__ import annotations

import math
from typing import Any

from kusari.functions.math._helpers import SpecialUnary
from kusari.variable import Variable


class Ndtri(SpecialUnary):
    name = "ndtri"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        from kusari.functions.math.exponential import exp

        return (grad_outputs[0] * math.sqrt(2.0 * math.pi) * exp(y * y * 0.5),)


def ndtri(x: Any) -> Variable:
    """Elementwise inverse of ndtr (the standard normal quantile function).

    Uses ``scipy.special`` (``cupyx.scipy.special`` on GPU) when available.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.ndtri(np.array([0.5], np.float32)).array
        array([0.], dtype=float32)
    """
    return Ndtri().apply((x,))[0]
