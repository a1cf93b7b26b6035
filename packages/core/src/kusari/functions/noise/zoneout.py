"""``zoneout``: keep previous hidden units at random (training only)."""

from __future__ import annotations

from typing import Any

import numpy

import kusari
from kusari import backend
from kusari.variable import Variable, as_variable


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
    xp = backend.get_array_module(x)
    if xp is numpy:
        flag_x = numpy.random.rand(*x.shape) >= ratio
    else:  # pragma: no cover - needs CuPy
        flag_x = xp.random.rand(*x.shape, dtype=numpy.float32) >= ratio
    return _mix(h, x, flag_x)


def _mix(h: Any, x: Any, flag_x: Any) -> Variable:
    dtype = x.dtype
    keep_h = (~flag_x).astype(dtype)
    return as_variable(h) * keep_h + as_variable(x) * flag_x.astype(dtype)
