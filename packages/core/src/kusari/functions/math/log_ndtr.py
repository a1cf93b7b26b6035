"""``log_ndtr``: log of the standard normal cumulative distribution function."""

from __future__ import annotations

import math
from typing import Any

from kusari.functions.math._helpers import SpecialUnary
from kusari.variable import Variable


class LogNdtr(SpecialUnary):
    name = "log_ndtr"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        from kusari.functions.math.erfcx import erfcx

        return (
            grad_outputs[0]
            / (erfcx(x * (-1.0 / math.sqrt(2.0))) * math.sqrt(math.pi / 2)),
        )


def log_ndtr(x: Any) -> Variable:
    """Elementwise log of the standard normal cumulative distribution function.

    Uses ``scipy.special`` (``cupyx.scipy.special`` on GPU) when available.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.log_ndtr(np.zeros(1, np.float32)).array
        array([-0.69315], dtype=float32)
    """
    return LogNdtr().apply((x,))[0]
