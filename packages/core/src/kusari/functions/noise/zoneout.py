"""``zoneout``: keep previous hidden units at random (training only)."""

from __future__ import annotations

from typing import Any

import numpy

import kusari
from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable, as_variable


class Zoneout(FunctionNode):
    """``h`` where ``flag_h`` is set, ``x`` where ``flag_x`` is set.

    The flags are drawn at the forward pass and kept as attributes (as in
    Chainer), so the mix can be reproduced from ``y.creator``.
    """

    def __init__(self, zoneout_ratio: float) -> None:
        self.zoneout_ratio = zoneout_ratio
        self.flag_h: Any = None
        self.flag_x: Any = None

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("h", "x"))
        h, x = in_types
        type_check.expect(h.dtype == x.dtype, h.shape == x.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        h, x = inputs
        xp = backend.get_array_module(x)
        if xp is numpy:
            flag_x = numpy.random.rand(*x.shape) >= self.zoneout_ratio
        else:  # pragma: no cover - needs CuPy
            flag_x = xp.random.rand(*x.shape, dtype=numpy.float32) >= self.zoneout_ratio
        self.flag_x = flag_x
        self.flag_h = ~flag_x
        return (xp.where(flag_x, x, h),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (gy,) = grad_outputs
        flags = {0: self.flag_h, 1: self.flag_x}
        return tuple(gy * flags[i].astype(gy.dtype) for i in indexes)


def zoneout(h: Any, x: Any, ratio: float = 0.5, **kwargs: Any) -> Variable:
    """Mix ``h`` and ``x``: each element is ``h`` with probability ``ratio``.

    In test mode (``kusari.config.train`` False) ``x`` is returned.

    Args:
        h: The previous value.
        x: The new value (same shape).
        ratio: Probability of keeping ``h``.

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> import kusari.functions as F
        >>> h, x = np.zeros(3, np.float32), np.ones(3, np.float32)
        >>> with kusari.using_config('train', False):
        ...     F.zoneout(h, x).array
        array([1., 1., 1.], dtype=float32)
    """
    if kwargs:
        if "train" in kwargs:
            raise ValueError(
                "zoneout: the train argument is not supported anymore; "
                "use kusari.using_config('train', ...)"
            )
        raise TypeError(f"zoneout: unexpected keyword arguments {sorted(kwargs)}")
    if not kusari.config.train:
        return as_variable(x)
    if h.shape != x.shape:
        raise ValueError(
            f"zoneout: h and x must have the same shape, got {h.shape} and {x.shape}"
        )
    return Zoneout(ratio).apply((h, x))[0]
