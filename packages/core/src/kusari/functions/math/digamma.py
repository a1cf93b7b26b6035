"""``digamma``: digamma function, the derivative of lgamma."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.functions.math._helpers import SpecialUnary
from kusari.variable import Variable


class DiGamma(SpecialUnary):
    name = "digamma"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        from kusari.functions.math.polygamma import polygamma

        n = backend.get_array_module(x.array).ones(x.shape, dtype=numpy.int32)
        return (grad_outputs[0] * polygamma(n, x),)


def digamma(x: Any) -> Variable:
    """Elementwise digamma function, the derivative of lgamma.

    Uses ``scipy.special`` (``cupyx.scipy.special`` on GPU) when available.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.digamma(np.ones(1, np.float32)).array
        array([-0.57722], dtype=float32)
    """
    return DiGamma().apply((x,))[0]
