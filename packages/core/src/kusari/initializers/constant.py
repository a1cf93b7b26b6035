"""Deterministic initializers: constants and the identity matrix."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend, initializer
from kusari.initializer import DTypeLike


class Identity(initializer.Initializer):
    """Fills a square matrix with ``scale`` times the identity.

    Args:
        scale: Value of the diagonal.
        dtype: Data type specifier.

    Raises:
        ValueError: When called on anything but a square 2-D array.

    Example:
        >>> import numpy
        >>> a = numpy.empty((2, 2), dtype=numpy.float32)
        >>> Identity(3.0)(a)
        >>> a.tolist()
        [[3.0, 0.0], [0.0, 3.0]]
    """

    def __init__(self, scale: float = 1.0, dtype: DTypeLike | None = None) -> None:
        self.scale = scale
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        shape = array.shape
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(
                "Identity matrix initialization can only be used for 2D squared "
                f"matrices, got shape={shape}"
            )
        xp = backend.get_array_module(array)
        array[...] = 0
        xp.fill_diagonal(array, self.scale)


class Constant(initializer.Initializer):
    """Fills an array with a scalar or with an array broadcast to its shape.

    Args:
        fill_value: A scalar, or a NumPy/CuPy array broadcastable to the
            shape being initialized.
        dtype: Data type specifier.

    Example:
        >>> import numpy
        >>> a = numpy.empty((2, 3), dtype=numpy.float32)
        >>> Constant(numpy.array([1, 2, 3]))(a)
        >>> a.tolist()
        [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    """

    def __init__(self, fill_value: Any, dtype: DTypeLike | None = None) -> None:
        self.fill_value = fill_value
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        xp = backend.get_array_module(array)
        value = self.fill_value
        if xp is numpy and hasattr(value, "get"):  # a CuPy array into a host one
            value = value.get()
        array[...] = xp.asarray(value)


class Zero(Constant):
    """Fills an array with zeros.

    Args:
        dtype: Data type specifier.

    Example:
        >>> import numpy
        >>> a = numpy.ones(3, dtype=numpy.float32)
        >>> Zero()(a)
        >>> a.tolist()
        [0.0, 0.0, 0.0]
    """

    def __init__(self, dtype: DTypeLike | None = None) -> None:
        super().__init__(0.0, dtype=dtype)

    def __repr__(self) -> str:
        return f"Zero(dtype={self.dtype!r})"


class One(Constant):
    """Fills an array with ones.

    Args:
        dtype: Data type specifier.

    Example:
        >>> import numpy
        >>> a = numpy.zeros(2, dtype=numpy.float32)
        >>> One()(a)
        >>> a.tolist()
        [1.0, 1.0]
    """

    def __init__(self, dtype: DTypeLike | None = None) -> None:
        super().__init__(1.0, dtype=dtype)

    def __repr__(self) -> str:
        return f"One(dtype={self.dtype!r})"


class NaN(Constant):
    """Fills an array with NaN; a marker for values that must be overwritten.

    Args:
        dtype: Data type specifier.

    Example:
        >>> import numpy
        >>> a = numpy.zeros(2, dtype=numpy.float32)
        >>> NaN()(a)
        >>> bool(numpy.isnan(a).all())
        True
    """

    def __init__(self, dtype: DTypeLike | None = None) -> None:
        super().__init__(numpy.nan, dtype=dtype)

    def __repr__(self) -> str:
        return f"NaN(dtype={self.dtype!r})"
