"""``erf``: error function."""

from __future__ import annotations

import math
from typing import Any

from kusari.functions.math._helpers import SpecialUnary
from kusari.variable import Variable


class Erf(SpecialUnary):
    name = "erf"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        from kusari.functions.math.exponential import exp

        return (grad_outputs[0] * (2.0 / math.sqrt(math.pi)) * exp(-(x * x)),)


def erf(x: Any) -> Variable:
    """Elementwise error function.

    Uses ``scipy.special`` (``cupyx.scipy.special`` on GPU) when available.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.erf(np.zeros(1, np.float32)).array
        array([0.], dtype=float32)
    """
    return Erf().apply((x,))[0]
