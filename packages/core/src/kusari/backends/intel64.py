"""iDeep (``chainer.backends.intel64``): not part of kusari.

Chainer used iDeep for MKL-DNN kernels on Intel CPUs; kusari's CPU kernels
use NumPy and its BLAS instead. These names exist so that code asking about
iDeep gets "not available" and takes its NumPy path.

Example:
    >>> from kusari.backends import intel64
    >>> intel64.is_ideep_available()
    False
"""

from __future__ import annotations

from typing import Any

ideep: Any = None
mdarray: Any = type("mdarray", (), {})  # no array is ever an mdarray here


def is_ideep_available() -> bool:
    """Always False: kusari has no iDeep backend."""
    return False


def check_ideep_available() -> None:
    """Raise, since iDeep is not part of kusari."""
    raise RuntimeError(
        "iDeep is not part of kusari; its CPU kernels use NumPy. Set "
        "config.use_ideep = 'never' (the default) and use '@numpy' devices."
    )


def should_use_ideep(level: str) -> bool:
    """Always False (the configuration value is accepted and ignored)."""
    if level not in ("always", "auto", "never"):
        raise ValueError(
            f"use_ideep must be 'always', 'auto' or 'never', got {level!r}"
        )
    return False


def inputs_all_ready(inputs: Any, supported_ndim: tuple[int, ...] = (2, 4)) -> bool:
    """Always False: no input is ever ready for iDeep."""
    return False


class Intel64Device:
    """Refuses to be created: there is no iDeep device in kusari."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        check_ideep_available()
