"""One-pass array updates through the OpenBLAS that NumPy loaded.

NumPy has no fused "scale and add": ``p -= lr * g`` is two passes over the
arrays (a temporary, then the subtraction), and so is a mean of two
buffers ``(x + y) / 2``. OpenBLAS's level-1 routines do each in one pass,
reading each operand once and writing the result once, as PyTorch's
``add_(g, alpha=-lr)`` does; its ``?omatcopy`` transposes in cache-sized
tiles where NumPy's strided copy reads one element per cache line.

* :func:`axpy`: ``y += a * x``, rounded once (a fused multiply-add, as
  PyTorch's CPU update and a CUDA kernel compiled with contraction give
  it; NumPy's two passes round twice, so about a quarter of the elements
  differ in their last bit). SGD's CPU update: on the 1.8M float32
  parameters of an MLP 784-1000-1000-10, 0.79 ms per update before, 0.64
  ms after.
* :func:`axpby`: ``y = a * x + b * y`` in one pass. kusari-mn's ring
  reduction adds the incoming piece and divides by the number of ranks in
  one call (0.19 -> 0.12 ms for a 3.6 MB shard).
* :func:`transpose_into`: ``out[...] = a.T`` for 2-d arrays, every value
  copied exactly (a float32 (1000, 100) array: about 21 us against NumPy's
  64).

Each routine computes every element on its own, so the bits do not depend
on how an array is cut into blocks or over threads. Each answers False,
leaving its output untouched, where the arrays do not qualify or no
OpenBLAS routine is found (another BLAS, an accelerated array): the caller
then keeps its NumPy code. OpenBLAS is found through ``threadpoolctl`` (as
:mod:`kusari.utils.threads` finds it) with its symbol affixes: ``cblas_``
names with a ``64_``/``_64`` suffix take 64-bit sizes; plain names take the
width its ``openblas_get_config()`` reports.

Example:
    >>> import numpy as np
    >>> from kusari.utils import blas
    >>> p = np.ones(4, np.float32)
    >>> g = np.full(4, 2.0, np.float32)
    >>> if not blas.axpy(-0.5, g, p):  # NumPy's two passes elsewhere
    ...     p -= np.float32(0.5) * g
    >>> p
    array([0., 0., 0., 0.], dtype=float32)
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from typing import Any

import numpy

from kusari.utils import threads

__all__ = ["available", "axpby", "axpy", "transpose_into"]

_F32 = numpy.dtype(numpy.float32)
_F64 = numpy.dtype(numpy.float64)
_SCALARS = {_F32: ctypes.c_float, _F64: ctypes.c_double}
# CBLAS's enums: row-major storage, transposed operand.
_ROW_MAJOR, _TRANS = 101, 112

_lock = threading.Lock()
# The routines found, by name, then dtype: (function, integer type). Each
# is looked up on first use; tests replace an entry by {} to stand for a
# BLAS without it.
_found: dict[str, dict[Any, Any]] = {}


def _openblas() -> tuple[Any, str, str, Any] | None:
    """NumPy's OpenBLAS: ``(library, symbol prefix, suffix, integer type)``."""
    ctl = threads.blas_controller()
    if ctl is None:
        return None
    for lib in ctl.lib_controllers:
        if getattr(lib, "internal_api", None) != "openblas":
            continue
        dynlib = getattr(lib, "dynlib", None)
        if dynlib is None:
            continue
        for prefix, suffix in itertools.product(("", "scipy_"), ("", "64_", "_64")):
            if not hasattr(dynlib, f"{prefix}openblas_get_num_threads{suffix}"):
                continue
            if suffix:
                return dynlib, prefix, suffix, ctypes.c_int64
            try:
                config = getattr(dynlib, f"{prefix}openblas_get_config")
            except AttributeError:
                return None
            config.restype = ctypes.c_char_p
            wide = b"USE64BITINT" in (config() or b"")
            return dynlib, prefix, suffix, ctypes.c_int64 if wide else ctypes.c_int32
    return None


def _argtypes(routine: str, scalar: Any, size_t: Any) -> list[Any]:
    ptr = ctypes.c_void_p
    if routine == "axpy":  # n, a, x, incx, y, incy
        return [size_t, scalar, ptr, size_t, ptr, size_t]
    if routine == "axpby":  # n, a, x, incx, b, y, incy
        return [size_t, scalar, ptr, size_t, scalar, ptr, size_t]
    # omatcopy: order, trans, rows, cols, alpha, a, lda, b, ldb
    enum = ctypes.c_int
    return [enum, enum, size_t, size_t, scalar, ptr, size_t, ptr, size_t]


def _bind(routine: str) -> dict[Any, Any]:
    lib = _openblas()
    if lib is None:
        return {}
    dynlib, prefix, suffix, size_t = lib
    out = {}
    for dtype, letter in ((_F32, "s"), (_F64, "d")):
        try:
            fn = getattr(dynlib, f"{prefix}cblas_{letter}{routine}{suffix}")
        except AttributeError:
            continue
        fn.restype = None
        fn.argtypes = _argtypes(routine, _SCALARS[dtype], size_t)
        out[dtype] = (fn, size_t)
    return out


def _functions(routine: str) -> dict[Any, Any]:
    """OpenBLAS's ``cblas_?<routine>`` by dtype (empty if absent)."""
    found = _found.get(routine)
    if found is None:
        with _lock:
            found = _found.get(routine)
            if found is None:
                found = _found[routine] = _bind(routine)
    return found


def available(routine: str, dtype: Any) -> bool:
    """Whether ``routine`` (``"axpy"``, ``"axpby"`` or ``"omatcopy"``, the
    routine of :func:`transpose_into`) can work on arrays of ``dtype`` here.

    Args:
        routine: The BLAS routine's name without its type letter.
        dtype: The arrays' dtype.

    Returns:
        True where NumPy's OpenBLAS has the routine for that dtype.
    """
    return numpy.dtype(dtype) in _functions(routine)


def _routine(routine: str, dtype: Any, n: int) -> Any:
    """OpenBLAS's ``routine`` for ``dtype`` when it takes sizes up to ``n``,
    else None."""
    entry = _functions(routine).get(dtype)
    if entry is None:
        return None
    fn, size_t = entry
    if size_t is ctypes.c_int32 and n >= 1 << 31:
        return None
    return fn


def _level1(routine: str, x: Any, y: Any) -> Any:
    """``routine`` for updating ``y`` from ``x`` (same dtype and size, both
    C-contiguous NumPy arrays, ``y`` writeable), else None."""
    if not (
        type(x) is numpy.ndarray
        and type(y) is numpy.ndarray
        and x.dtype == y.dtype
        and x.size == y.size
        and x.flags.c_contiguous
        and y.flags.c_contiguous
        and y.flags.writeable
    ):
        return None
    return _routine(routine, x.dtype, x.size)


def axpy(a: float, x: Any, y: Any) -> bool:
    """``y += a * x`` in place, rounded once, when OpenBLAS can do it.

    Args:
        a: The scale (rounded to the arrays' dtype).
        x: A C-contiguous float32/float64 NumPy array.
        y: The array updated, of ``x``'s dtype and size, C-contiguous and
            writeable.

    Returns:
        True when done; False (``y`` untouched) when the arrays do not
        qualify or no OpenBLAS ``axpy`` is loaded.
    """
    fn = _level1("axpy", x, y)
    if fn is None:
        return False
    if x.size:
        fn(x.size, a, _address(x), 1, _address(y), 1)
    return True


def axpby(a: float, x: Any, b: float, y: Any) -> bool:
    """``y = a * x + b * y`` in place, in one pass, when OpenBLAS can do it.

    Args:
        a: The factor of ``x`` (rounded to the arrays' dtype).
        x: A C-contiguous float32/float64 NumPy array.
        b: The factor of ``y``.
        y: The array updated, of ``x``'s dtype and size, C-contiguous and
            writeable.

    Returns:
        True when done; False (``y`` untouched) when the arrays do not
        qualify or no OpenBLAS ``axpby`` is loaded.
    """
    fn = _level1("axpby", x, y)
    if fn is None:
        return False
    if x.size:
        fn(x.size, a, _address(x), 1, b, _address(y), 1)
    return True


def transpose_into(a: Any, out: Any) -> bool:
    """``out[...] = a.T`` for 2-d arrays through OpenBLAS's ``?omatcopy``.

    Args:
        a: A C-contiguous 2-d float32/float64 NumPy array.
        out: A C-contiguous, writeable array of shape ``a.T.shape`` and
            ``a``'s dtype.

    Returns:
        True when done (every value copied exactly); False (``out``
        untouched) when the arrays do not qualify or no OpenBLAS
        ``?omatcopy`` is loaded.
    """
    if (
        type(a) is not numpy.ndarray
        or type(out) is not numpy.ndarray
        or a.ndim != 2
        or out.dtype != a.dtype
        or out.shape != (a.shape[1], a.shape[0])
        or not (a.flags.c_contiguous and out.flags.c_contiguous)
        or not out.flags.writeable
    ):
        return False
    rows, cols = a.shape
    fn = _routine("omatcopy", a.dtype, max(rows, cols))
    if fn is None:
        return False
    if a.size:
        fn(_ROW_MAJOR, _TRANS, rows, cols, 1.0, _address(a), cols, _address(out), rows)
    return True


_byte = ctypes.c_char


def _address(a: Any) -> int:
    """The address of a C-contiguous NumPy array's first element.

    Through the buffer protocol where the array is writeable (about 0.4 us);
    ``a.ctypes.data`` builds a helper object each time (about 1.5 us, a
    tenth of a small parameter's update).
    """
    try:
        return ctypes.addressof(_byte.from_buffer(a))
    except (TypeError, ValueError, BufferError):  # read-only or empty
        return int(a.ctypes.data)
