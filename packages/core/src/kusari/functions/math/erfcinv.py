"""``erfcinv``: inverse complementary error function."""

from __future__ import annotations

import math
from typing import Any

from kusari.functions.math._helpers import SpecialUnary
from kusari.variable import Variable


class ErfcInv(SpecialUnary):
    name = "erfcinv"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        from kusari.functions.math.exponential import exp

        return (grad_outputs[0] * (-math.sqrt(math.pi) / 2.0) * exp(y * y),)


def erfcinv(x: Any) -> Variable:
    """Elementwise inverse complementary error function.

    Uses ``scipy.special`` (``cupyx.scipy.special`` on GPU) when available.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.erfcinv(np.array([0.5], np.float32)).array
        array([0.47694], dtype=float32)
    """
    return ErfcInv().apply((x,))[0]
