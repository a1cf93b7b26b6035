"""Small utilities shared across kusari."""

from __future__ import annotations

import collections.abc as collections_abc  # chainer.utils.collections_abc
import contextlib
import functools
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy

# ``argument`` is loaded with the package because Chainer v7 code reaches it
# as ``chainer.utils.argument`` after a plain ``from chainer import utils``.
from kusari.utils import argument, type_check
from kusari.utils.atomic import atomic_path, atomic_write
from kusari.utils.sparse import CooMatrix, get_order, to_coo
from kusari.utils.walker_alias import WalkerAlias


def force_array(x: Any, dtype: Any = None) -> Any:
    """Return ``x`` as an ndarray: NumPy turns 0-dim results into scalars.

    Example:
        >>> import numpy as np
        >>> from kusari.utils import force_array
        >>> force_array(np.float32(1)).shape
        ()
    """
    if type(x) is numpy.ndarray and (dtype is None or x.dtype == dtype):
        return x
    if numpy.isscalar(x):
        return numpy.asarray(x, dtype=dtype)
    if dtype is not None and x.dtype != dtype:
        return x.astype(dtype, copy=False)
    return x


def force_type(dtype: Any, value: Any) -> Any:
    """Cast a scalar or array to ``dtype`` (arrays only when needed)."""
    if numpy.isscalar(value):
        return dtype.type(value)
    if value.dtype != dtype:
        return value.astype(dtype, copy=False)
    return value


def size_of_shape(shape: tuple[int, ...]) -> int:
    """The number of elements of an array of this shape."""
    size = 1
    for s in shape:
        size *= s
    return int(size)


def sum_to(x: Any, shape: tuple[int, ...]) -> Any:
    """Sum an array down to ``shape`` (the inverse of broadcasting).

    Example:
        >>> import numpy as np
        >>> from kusari.utils import sum_to
        >>> sum_to(np.ones((2, 3)), (1, 3))
        array([[2., 2., 2.]])
    """
    if x.shape == shape:
        return x
    if not shape:
        return x.sum()
    lead = x.ndim - len(shape)
    lead_axis = tuple(range(lead))
    axis = tuple(i + lead for i, sx in enumerate(shape) if sx == 1)
    y = x.sum(lead_axis + axis, keepdims=True)
    if lead > 0:
        y = y.squeeze(lead_axis)
    return y


def get_conv_outsize(
    size: int, k: int, s: int, p: int, cover_all: bool = False, d: int = 1
) -> int:
    """Output length of a convolution along one axis.

    Args:
        size: Input length. k: kernel size. s: stride. p: padding.
        cover_all: Add ``s - 1`` so every input pixel is covered.
        d: Dilation.
    """
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return (size + p * 2 - dk + s - 1) // s + 1
    return (size + p * 2 - dk) // s + 1


def get_deconv_outsize(
    size: int, k: int, s: int, p: int, cover_all: bool = False, d: int = 1
) -> int:
    """Output length of a deconvolution (transposed convolution) along one axis."""
    dk = (k - 1) * d + 1
    if cover_all:
        return s * (size - 1) + dk - s + 1 - 2 * p
    return s * (size - 1) + dk - 2 * p


@contextlib.contextmanager
def tempdir(**kwargs: Any) -> Iterator[str]:
    """A temporary directory removed at the end of the ``with`` block."""
    ignore_errors = kwargs.pop("ignore_errors", False)
    path = tempfile.mkdtemp(**kwargs)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=ignore_errors)


def experimental(api_name: str) -> None:
    """Warn that ``api_name`` is experimental (FutureWarning).

    Nothing is emitted while ``kusari.disable_experimental_feature_warning``
    is true.

    Args:
        api_name: The name of the experimental API, as the message shows it.
    """
    import kusari

    if kusari.disable_experimental_feature_warning:
        return
    warnings.warn(
        f"{api_name} is experimental. The interface can change in the future.",
        FutureWarning,
        stacklevel=3,
    )


_final_enabled = [True]


def enable_final(meta_base: bool = False) -> None:
    _final_enabled[0] = True


def final(*args: Any, **kwargs: Any) -> Any:
    """Decorator marking a method as not meant to be overridden (no-op)."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda f: f


def nondeterministic(f: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a function as nondeterministic on GPU; warns in debug mode."""

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return f(*args, **kwargs)

    return wrapper
