"""Initializers: callables that fill parameter arrays in place.

Example:
    >>> import numpy
    >>> from kusari import initializers
    >>> w = initializers.generate_array(
    ...     initializers.Normal(0.01), (3, 4), numpy, dtype=numpy.float32)
    >>> w.shape, w.dtype
    ((3, 4), dtype('float32'))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

import kusari
from kusari import backend
from kusari.initializer import DTypeLike
from kusari.initializers.constant import Constant, Identity, NaN, One, Zero
from kusari.initializers.normal import GlorotNormal, HeNormal, LeCunNormal, Normal
from kusari.initializers.orthogonal import Orthogonal
from kusari.initializers.sampling import DownsamplingConvFilter, UpsamplingDeconvFilter
from kusari.initializers.uniform import GlorotUniform, HeUniform, LeCunUniform, Uniform

__all__ = [
    "Constant",
    "DownsamplingConvFilter",
    "GlorotNormal",
    "GlorotUniform",
    "HeNormal",
    "HeUniform",
    "Identity",
    "LeCunNormal",
    "LeCunUniform",
    "NaN",
    "Normal",
    "One",
    "Orthogonal",
    "Uniform",
    "UpsamplingDeconvFilter",
    "Zero",
    "generate_array",
]


def generate_array(
    initializer: Callable[[Any], None],
    shape: tuple[int, ...] | int,
    xp: Any,
    dtype: DTypeLike | None = None,
    device: Any = None,
) -> Any:
    """Allocates an array and fills it with ``initializer``.

    The dtype is ``dtype``, else the initializer's ``dtype`` attribute, else
    ``kusari.config.dtype``.

    Args:
        initializer: A callable that fills an array in place.
        shape: Shape of the new array.
        xp: Array module (``numpy`` or ``cupy``) to allocate with.
        dtype: Dtype of the array; must agree with ``initializer.dtype`` when
            both are given.
        device: Device specifier (e.g. ``'@numpy'``, ``'@cupy:0'``); when
            given, the array is allocated there with that device's module.

    Returns:
        The initialized array.

    Raises:
        ValueError: If ``dtype`` and ``initializer.dtype`` disagree.

    Example:
        >>> import numpy
        >>> generate_array(One(), (2,), numpy).tolist()
        [1.0, 1.0]
    """
    dtype_attr = getattr(initializer, "dtype", None)
    # get_dtype: kusari.mixed16 (given or configured) makes float16 arrays.
    if (
        dtype is not None
        and dtype_attr is not None
        and kusari.get_dtype(dtype) != kusari.get_dtype(dtype_attr)
    ):
        raise ValueError(
            f"dtype mismatch: {kusari.get_dtype(dtype)} requested but the "
            f"initializer has dtype {kusari.get_dtype(dtype_attr)}"
        )
    resolved = kusari.get_dtype(dtype if dtype is not None else dtype_attr)
    if device is None:
        array = xp.empty(shape, dtype=resolved)
        initializer(array)
        return array
    target = backend.get_device(device)
    # Random draws of CuPy happen on the current device: make it the target.
    with backend.using_device(target):
        array = target.xp.empty(shape, dtype=resolved)
        initializer(array)
    return array


def _get_initializer(initializer: Any) -> Callable[[Any], None]:
    """Normalizes the ``initialW``-style arguments of links.

    ``None`` gives :class:`LeCunNormal`, a scalar or an array gives
    :class:`Constant`, and any other callable is returned as is.
    """
    if initializer is None:
        return LeCunNormal()
    if numpy.isscalar(initializer):
        return Constant(initializer)
    if isinstance(initializer, numpy.ndarray) or _is_cupy_array(initializer):
        return Constant(initializer)
    if not callable(initializer):
        raise TypeError(
            f"invalid type of initializer: {type(initializer).__name__} "
            "(expected None, a scalar, an array or a callable)"
        )
    return initializer


def _is_cupy_array(value: Any) -> bool:
    # Avoid importing CuPy: only a module already loaded can own the value.
    return type(value).__module__.startswith("cupy")
