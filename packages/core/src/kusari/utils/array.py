"""``kusari.utils.array``: v7's small array helpers under their v7 module path.

``size_of_shape`` and ``sum_to`` are the ones in :mod:`kusari.utils`; the
other three were already deprecated in v7 and warn the same way here.
"""

from __future__ import annotations

import warnings
from typing import Any

from kusari import backend
from kusari.utils import size_of_shape, sum_to

__all__ = ["as_mat", "as_vec", "empty_like", "size_of_shape", "sum_to"]


def _deprecated(name: str, instead: str) -> None:
    warnings.warn(
        f"kusari.utils.array.{name} is deprecated; use {instead} instead.",
        DeprecationWarning,
        stacklevel=3,
    )


def as_vec(x: Any) -> Any:
    """Flatten ``x`` to one dimension (deprecated: use ``x.ravel()``)."""
    _deprecated("as_vec", "the array's ravel()")
    return x if x.ndim == 1 else x.ravel()


def as_mat(x: Any) -> Any:
    """View ``x`` as ``(len(x), -1)`` (deprecated: use ``x.reshape``)."""
    _deprecated("as_mat", "the array's reshape()")
    return x if x.ndim == 2 else x.reshape(len(x), -1)


def empty_like(x: Any) -> Any:
    """An uninitialized array like ``x`` on its device (deprecated)."""
    _deprecated("empty_like", "the array module's empty_like()")
    return backend.get_array_module(x).empty_like(x)
