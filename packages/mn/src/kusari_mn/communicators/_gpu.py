"""Finding CuPy (and NCCL) for the GPU-only communicators, with clear errors."""

from __future__ import annotations

import importlib
from typing import Any


def require_cupy(name: str) -> Any:
    """The ``cupy`` module, or a RuntimeError naming the communicator."""
    try:
        cupy = importlib.import_module("cupy")
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # ImportError, or CUDA present but unusable
        raise RuntimeError(
            f"create_communicator: the {name!r} communicator needs CuPy and a "
            f"CUDA GPU ({type(e).__name__}: {e}); on CPU use 'naive' or 'flat'"
        ) from e
    if count < 1:
        raise RuntimeError(
            f"create_communicator: the {name!r} communicator needs a CUDA GPU, "
            "but none is visible; on CPU use 'naive' or 'flat'"
        )
    return cupy


def require_nccl(name: str) -> tuple[Any, Any]:
    """``(cupy, cupy.cuda.nccl)``, or a RuntimeError naming the communicator."""
    cupy = require_cupy(name)
    try:
        nccl = importlib.import_module("cupy.cuda.nccl")
        nccl.get_version()
    except Exception as e:
        raise RuntimeError(
            f"create_communicator: the {name!r} communicator needs NCCL through "
            f"cupy.cuda.nccl ({type(e).__name__}: {e}); install a CuPy build "
            "with NCCL, or use 'non_cuda_aware'"
        ) from e
    return cupy, nccl
