"""CUDAProfileHook: NVTX ranges around functions for the CUDA profilers."""

from __future__ import annotations

from typing import Any

from kusari import function_hook
from kusari.backends import cuda


def _nvtx() -> Any:
    cuda.check_cuda_available()
    nvtx = getattr(cuda.cupy.cuda, "nvtx", None)
    if nvtx is None or not getattr(nvtx, "available", True):
        raise RuntimeError("CUDAProfileHook: CuPy was built without NVTX support")
    return nvtx


class CUDAProfileHook(function_hook.FunctionHook):
    """Marks each forward/backward with an NVTX range for CUDA profilers.

    The ranges are named ``<label>.forward`` and ``<label>.backward`` and show
    up in Nsight Systems or nvprof timelines.

    Raises:
        RuntimeError: At construction, if CuPy (with NVTX) is not available.

    Example:
        >>> from kusari.backends import cuda
        >>> from kusari.function_hooks import CUDAProfileHook
        >>> if not cuda.available:
        ...     try:
        ...         CUDAProfileHook()
        ...     except RuntimeError as e:
        ...         print('CuPy is required' in str(e))
        ... else:
        ...     print(True)
        True
    """

    name = "CUDAProfileHook"

    def __enter__(self) -> CUDAProfileHook:
        super().__enter__()
        return self

    def __init__(self) -> None:
        if not cuda.available:
            raise RuntimeError(
                "CUDAProfileHook: CuPy is required (it could not be imported); "
                "install it with `pip install kusari[cuda]`"
            )
        self._nvtx = _nvtx()

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._nvtx.RangePush(function.label + ".forward")

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._nvtx.RangePop()

    def backward_preprocess(
        self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]
    ) -> None:
        self._nvtx.RangePush(function.label + ".backward")

    def backward_postprocess(
        self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]
    ) -> None:
        self._nvtx.RangePop()
