"""Base class of array initializers and the fan rule shared by the scaled ones."""

from __future__ import annotations

import math
from typing import Any

import numpy

DTypeLike = Any  # numpy.dtype, a type such as numpy.float32, or a dtype string


class Initializer:
    """Base class of initializers: callables that fill an array in place.

    A subclass overrides :meth:`__call__`, which receives a NumPy or CuPy
    array and writes the initial values into it (it returns nothing).

    Args:
        dtype: The dtype the initializer produces (``kusari.mixed16`` is
            float16). ``None`` lets the caller decide (``kusari.config.dtype``
            when used through :func:`kusari.initializers.generate_array`).

    Example:
        >>> import numpy
        >>> class Twos(Initializer):
        ...     def __call__(self, array):
        ...         array[...] = 2
        >>> a = numpy.empty((2, 2), dtype=numpy.float32)
        >>> Twos()(a)
        >>> a.tolist()
        [[2.0, 2.0], [2.0, 2.0]]
    """

    dtype: numpy.dtype | None

    def __init__(self, dtype: DTypeLike | None = None) -> None:
        self.dtype = None if dtype is None else _resolve_dtype(dtype)

    def __call__(self, array: Any) -> None:
        """Fills ``array`` in place.

        Args:
            array: The NumPy or CuPy array to initialize.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement __call__(self, array)"
        )

    def _check_dtype(self, array: Any) -> None:
        # Chainer asserts here; a ValueError survives `python -O` and says why.
        if self.dtype is not None and array.dtype != self.dtype:
            raise ValueError(
                f"dtype mismatch in {type(self).__name__}: the array has "
                f"{array.dtype} but the initializer was built for {self.dtype}"
            )

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{key}={value!r}"
            for key, value in vars(self).items()
            if not key.startswith("_")
        )
        return f"{type(self).__name__}({fields})"


def _resolve_dtype(dtype: DTypeLike) -> numpy.dtype:
    """``numpy.dtype(dtype)``, with ``kusari.mixed16`` meaning float16 (the
    dtype Chainer's initializers make for it)."""
    import kusari  # here: kusari imports this module while it loads

    return numpy.dtype(kusari.get_dtype(dtype))


def get_fans(shape: tuple[int, ...]) -> tuple[int, int]:
    """Returns ``(fan_in, fan_out)`` of a weight of the given shape.

    The first axis is the output size, the second the input size and the
    remaining axes form the receptive field (as in convolution kernels), so
    ``fan_in = shape[1] * prod(shape[2:])`` and
    ``fan_out = shape[0] * prod(shape[2:])``.

    Args:
        shape: Shape of the weight; at least two axes.

    Returns:
        The pair ``(fan_in, fan_out)``.

    Raises:
        ValueError: If ``shape`` is not a tuple or has fewer than two axes.

    Example:
        >>> get_fans((64, 3, 5, 5))
        (75, 1600)
    """
    if not isinstance(shape, tuple):
        raise ValueError(f"shape must be a tuple, got {type(shape).__name__}")
    if len(shape) < 2:
        raise ValueError(
            f"shape must have at least two axes to define fans, got shape={shape}"
        )
    receptive_field = math.prod(shape[2:])
    return shape[1] * receptive_field, shape[0] * receptive_field
