"""Small test helpers: warnings, patching, requirements, matrices."""

from __future__ import annotations

import contextlib
import importlib.metadata
import pkgutil
import re
import unittest.mock
from collections.abc import Iterator
from typing import Any

import numpy
import pytest

_REQUIREMENT = re.compile(
    r"^\s*([A-Za-z0-9_.\-]+)\s*(?:([<>=!~]=?|===)\s*([^\s,;]+))?\s*$"
)


def _version_tuple(text: str) -> tuple[int, ...]:
    parts = []
    for piece in re.split(r"[.+]", text):
        m = re.match(r"\d+", piece)
        if m is None:
            break
        parts.append(int(m.group()))
    return tuple(parts)


def _satisfied(requirement: str) -> bool:
    m = _REQUIREMENT.match(requirement)
    if m is None:
        raise ValueError(
            f"with_requires: cannot read requirement {requirement!r}; "
            "use 'name' or 'name<op>version' (e.g. 'numpy>=2')"
        )
    name, op, wanted = m.groups()
    try:
        have = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    if op is None:
        return True
    a, b = _version_tuple(have), _version_tuple(wanted)
    return {
        "==": a == b,
        "===": have == wanted,
        "!=": a != b,
        ">=": a >= b,
        "<=": a <= b,
        ">": a > b,
        "<": a < b,
        "~=": a >= b and a[: max(len(b) - 1, 1)] == b[: max(len(b) - 1, 1)],
    }[op]


def with_requires(*requirements: str) -> Any:
    """Skip the test unless every requirement (``'scipy>=1.10'``) is installed."""
    ok = all(_satisfied(r) for r in requirements)
    return pytest.mark.skipif(not ok, reason=f"requires {', '.join(requirements)}")


def without_requires(*requirements: str) -> Any:
    """Skip the test if any requirement is installed (tests of fallbacks)."""
    present = [r for r in requirements if _satisfied(r)]
    return pytest.mark.skipif(bool(present), reason=f"{', '.join(present)} installed")


@contextlib.contextmanager
def assert_warns(expected: type[Warning]) -> Iterator[None]:
    """Assert that the block emits a warning of class ``expected``.

    Example:
        >>> import warnings
        >>> from kusari import testing
        >>> with testing.assert_warns(DeprecationWarning):
        ...     warnings.warn('old', DeprecationWarning)
    """
    with pytest.warns(expected):
        yield


def patch(target: str, *args: Any, **kwargs: Any) -> Any:
    """``unittest.mock.patch`` whose mock wraps the real object.

    Calls go through to the object named by ``target`` (or to ``wraps=`` when
    given) and are recorded, so a test can count the calls of a function that
    still does its work; ``return_value=`` or ``side_effect=`` replace the
    call as with any mock.

    Args:
        target: Dotted name of the object to replace, e.g.
            ``'kusari.functions.relu'``.
        *args: Passed to :func:`unittest.mock.patch`.
        **kwargs: Passed to :func:`unittest.mock.patch`; ``wraps`` defaults to
            the object ``target`` names.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> from kusari import testing
        >>> with testing.patch('kusari.functions.relu') as relu:
        ...     F.relu(np.array([-1.0, 2.0])).array
        array([0., 2.])
        >>> relu.call_count
        1
    """
    if "wraps" not in kwargs:
        kwargs["wraps"] = pkgutil.resolve_name(target)
    return unittest.mock.patch(target, *args, **kwargs)


def generate_matrix(
    shape: tuple[int, ...], dtype: Any = float, **kwargs: Any
) -> numpy.ndarray:
    """A random matrix (or stack of them) with chosen singular values.

    Args:
        shape: ``(..., M, N)``.
        dtype: A float or complex dtype.
        singular_values: The singular values (broadcast to ``(..., min(M, N))``);
            keyword only. Random when not given.

    Example:
        >>> import numpy as np
        >>> from kusari import testing
        >>> a = testing.generate_matrix((3, 3), singular_values=[1, 2, 3])
        >>> np.linalg.svd(a, compute_uv=False).round(6).tolist()
        [3.0, 2.0, 1.0]
    """
    singular_values = kwargs.pop("singular_values", None)
    if kwargs:
        raise TypeError(f"generate_matrix: unexpected arguments {sorted(kwargs)}")
    if len(shape) < 2:
        raise ValueError(f"generate_matrix: shape must have 2+ axes, got {shape}")
    dtype = numpy.dtype(dtype)
    if dtype.kind not in "fc":
        raise TypeError(f"generate_matrix: dtype must be float or complex, got {dtype}")
    *batch, m, n = shape
    k = min(m, n)
    if singular_values is None:
        s = numpy.random.uniform(0.5, 1.5, (*batch, k))
    else:
        s = numpy.broadcast_to(
            numpy.asarray(singular_values, numpy.float64), (*batch, k)
        )
        if (s < 0).any():
            raise ValueError("generate_matrix: singular values must be >= 0")

    def orthonormal(rows: int) -> numpy.ndarray:
        a = numpy.random.normal(size=(*batch, rows, rows))
        if dtype.kind == "c":
            a = a + 1j * numpy.random.normal(size=a.shape)
        q, _ = numpy.linalg.qr(a)
        return q

    u = orthonormal(m)[..., :, :k]
    v = orthonormal(n)[..., :k, :]
    out = (u * s[..., None, :]) @ v
    return numpy.asarray(out, dtype=dtype)


def run_module(name: str, file: str) -> None:
    """Run ``file``'s tests with pytest when it is executed as a script:
    ``if __name__ == '__main__': testing.run_module(__name__, __file__)``."""
    if name == "__main__":
        pytest.main([file, "-vvs", "-x", "--pdb"])
