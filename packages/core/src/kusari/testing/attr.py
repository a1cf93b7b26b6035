"""Test attributes as pytest marks, under Chainer's names.

``gpu`` (and ``multi_gpu(n)``, ``cudnn``) mark a test ``gpu`` and skip it
where CuPy or enough CUDA devices are missing; ``slow`` marks it ``slow``;
``ideep`` and ``chainerx`` skip, since those backends are not part of kusari.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kusari.backends import cuda


def is_available() -> bool:
    """Whether the marks can be applied (pytest is importable: always here)."""
    return True


def check_available() -> None:
    """Raise if the marks are unusable (never, since pytest is imported)."""


def get_error() -> None:
    """The import error that made the marks unavailable (none here)."""
    return None


def _combine(*marks: Any) -> Callable[[Any], Any]:
    def apply(f: Any) -> Any:
        for mark in marks:
            f = mark(f)
        return f

    return apply


def _device_count() -> int:
    if not cuda.available:
        return 0
    return int(cuda.cupy.cuda.runtime.getDeviceCount())


slow = pytest.mark.slow
gpu = _combine(
    pytest.mark.gpu,
    pytest.mark.skipif(not cuda.available, reason="CuPy / a CUDA GPU is not available"),
)
cudnn = _combine(
    gpu,
    pytest.mark.skipif(
        not getattr(cuda, "cudnn_enabled", False),
        reason="cuDNN is not available to kusari here",
    ),
)
ideep = pytest.mark.skip(reason="iDeep is not part of kusari")
chainerx = pytest.mark.skip(reason="ChainerX is not part of kusari")


def multi_gpu(gpu_num: int) -> Callable[[Any], Any]:
    """Mark ``gpu`` and skip unless at least ``gpu_num`` CUDA devices exist."""
    return _combine(
        gpu,
        pytest.mark.skipif(
            _device_count() < gpu_num, reason=f"needs {gpu_num} CUDA devices"
        ),
    )
