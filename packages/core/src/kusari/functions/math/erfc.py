"""``erfc``: complementary error function, 1 - erf(x)."""

from __future__ import annotations

import math
from typing import Any

from kusari.functions.math._helpers import SpecialUnary
from kusari.variable import Variable


class Erfc(SpecialUnary):
    name = "erfc"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        from kusari.functions.math.exponential import exp

        return (grad_outputs[0] * (-2.0 / math.sqrt(math.pi)) * exp(-(x * x)),)


def erfc(x: Any) -> Variable:
    """Elementwise complementary error function, 1 - erf(x).

    Uses ``scipy.special`` (``cupyx.scipy.special`` on GPU) when available.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.erfc(np.zeros(1, np.float32)).array
        array([1.], dtype=float32)
    """
    return Erfc().apply((x,))[0]
