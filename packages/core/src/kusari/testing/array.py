"""Array comparison for tests."""

from __future__ import annotations

from typing import Any

import numpy

from kusari.backends import cuda


def _host_array(value: Any) -> numpy.ndarray:
    """A NumPy array of an array, a Variable, a Python scalar or a list."""
    value = getattr(value, "array", value)
    if cuda.available and isinstance(value, cuda.ndarray):
        return cuda.to_cpu(value)
    # Python numbers and (nested) lists are compared as arrays, as in Chainer.
    return numpy.asarray(value)


def assert_allclose(
    x: Any, y: Any, atol: float = 1e-5, rtol: float = 1e-4, verbose: bool = True
) -> None:
    """Assert that two arrays (or Variables) are elementwise close.

    The failure message gives the shapes, dtypes, the worst element and its
    errors (and the arrays themselves when ``verbose``).

    Example:
        >>> import numpy as np
        >>> from kusari import testing
        >>> testing.assert_allclose(np.ones(2), np.ones(2) + 1e-7)
    """
    x = _host_array(x)
    y = _host_array(y)
    try:
        numpy.testing.assert_allclose(x, y, atol=atol, rtol=rtol, equal_nan=True)
    except AssertionError as e:
        if x.shape != y.shape:
            raise AssertionError(f"shape mismatch: {x.shape} != {y.shape}") from None
        xf = x.astype(numpy.float64)
        yf = y.astype(numpy.float64)
        err = numpy.abs(xf - yf)
        tol = atol + rtol * numpy.abs(yf)
        worst = (
            numpy.unravel_index(numpy.argmax(err - tol), err.shape) if err.size else ()
        )
        lines = [
            "arrays are not close",
            f"shape: {x.shape}, dtypes: {x.dtype} vs {y.dtype}",
            f"atol={atol}, rtol={rtol}",
            f"max absolute error: {float(err.max()) if err.size else 0:.6g}",
        ]
        if err.size:
            lines.append(
                f"worst at index {tuple(int(i) for i in worst)}: {xf[worst]!r} vs "
                f"{yf[worst]!r}"
            )
        if verbose:
            lines.append(f"x: {x!r}\ny: {y!r}")
        raise AssertionError("\n".join(lines) + f"\n{e}") from None


def _as_noncontiguous_array(array: Any) -> Any:
    """The same values in a non-contiguous layout (Chainer's test helper).

    Lists and tuples are converted item by item; ``None`` and arrays of at
    most one element come back as they are, as in Chainer v7.
    """
    if isinstance(array, (list, tuple)):
        return type(array)(_as_noncontiguous_array(a) for a in array)
    if array is None or array.size <= 1:
        return array
    # ops imports this module: a local import avoids the cycle.
    from kusari.testing.ops import make_noncontiguous

    return make_noncontiguous(array)
