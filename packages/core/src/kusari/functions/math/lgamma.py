"""``lgamma``: log of the absolute value of the gamma function."""

from __future__ import annotations

from typing import Any

from kusari.functions.math._helpers import SpecialUnary
from kusari.variable import Variable


class LGamma(SpecialUnary):
    name = "lgamma"
    scipy_name = "gammaln"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        from kusari.functions.math.digamma import digamma

        return (grad_outputs[0] * digamma(x),)


def lgamma(x: Any) -> Variable:
    """Elementwise log of the absolute value of the gamma function.

    Uses ``scipy.special`` (``cupyx.scipy.special`` on GPU) when available.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.lgamma(np.ones(1, np.float32)).array
        array([0.], dtype=float32)
    """
    return LGamma().apply((x,))[0]
