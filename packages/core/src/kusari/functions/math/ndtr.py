"""``ndtr``: standard normal cumulative distribution function."""

from __future__ import annotations

import math
from typing import Any

from kusari.functions.math._helpers import SpecialUnary
from kusari.variable import Variable


class Ndtr(SpecialUnary):
    name = "ndtr"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        from kusari.functions.math.exponential import exp

        return (grad_outputs[0] * (1.0 / math.sqrt(2.0 * math.pi)) * exp(x * x * -0.5),)


def ndtr(x: Any) -> Variable:
    """Elementwise standard normal cumulative distribution function.

    Uses ``scipy.special`` (``cupyx.scipy.special`` on GPU) when available.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.ndtr(np.zeros(1, np.float32)).array
        array([0.5], dtype=float32)
    """
    return Ndtr().apply((x,))[0]
