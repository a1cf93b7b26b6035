"""``erfcx``: scaled complementary error function, exp(x ** 2) * erfc(x)."""

from __future__ import annotations

import math
from typing import Any

from kusari.functions.math._helpers import SpecialUnary
from kusari.variable import Variable


class Erfcx(SpecialUnary):
    name = "erfcx"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * (2.0 * x * y - 2.0 / math.sqrt(math.pi)),)


def erfcx(x: Any) -> Variable:
    """Elementwise scaled complementary error function, exp(x ** 2) * erfc(x).

    Uses ``scipy.special`` (``cupyx.scipy.special`` on GPU) when available.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.erfcx(np.zeros(1, np.float32)).array
        array([1.], dtype=float32)
    """
    return Erfcx().apply((x,))[0]
