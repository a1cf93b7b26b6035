"""``erfinv``: inverse error function."""

from __future__ import annotations

import math
from typing import Any

from kusari.functions.math._helpers import SpecialUnary
from kusari.variable import Variable


class ErfInv(SpecialUnary):
    name = "erfinv"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        from kusari.functions.math.exponential import exp

        return (grad_outputs[0] * (math.sqrt(math.pi) / 2.0) * exp(y * y),)


def erfinv(x: Any) -> Variable:
    """Elementwise inverse error function.

    Uses ``scipy.special`` (``cupyx.scipy.special`` on GPU) when available.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.erfinv(np.zeros(1, np.float32)).array
        array([0.], dtype=float32)
    """
    return ErfInv().apply((x,))[0]
