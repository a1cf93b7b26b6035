"""The CuPy backend (``kusari.backends.cuda``, alias ``kusari.cuda``).

Everything here works on a machine without CuPy: :data:`available` is False,
:func:`to_cpu` passes NumPy arrays through, and asking for a GPU raises a
:class:`RuntimeError` that says CuPy is missing. CuPy is imported only when it
is installed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy

from kusari import _backend

try:
    import cupy as _cupy

    cupy: Any = _cupy
    available = True
    _import_error: Exception | None = None
except Exception as e:  # pragma: no cover - depends on the machine
    cupy = None
    available = False
    _import_error = e


class DummyDeviceType:
    """Stands in for ``cupy.cuda.Device`` on the CPU; id is -1."""

    id = -1

    def __int__(self) -> int:
        return -1

    def __enter__(self) -> DummyDeviceType:
        return self

    def __exit__(self, *args: Any) -> None:
        return None

    def use(self) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DummyDeviceType)

    __hash__ = None  # type: ignore[assignment]


DummyDevice = DummyDeviceType()

if available:
    ndarray: Any = cupy.ndarray
    Device: Any = cupy.cuda.Device
    Event: Any = cupy.cuda.Event
    Stream: Any = cupy.cuda.Stream
else:

    class ndarray:  # type: ignore[no-redef]
        """Placeholder type: no array is ever an instance without CuPy."""

    Device = DummyDeviceType
    Event = object
    Stream = object


def check_cuda_available() -> None:
    """Raise a RuntimeError naming the cause if CuPy cannot be used."""
    if not available:
        raise RuntimeError(
            "CUDA is not available: CuPy could not be imported "
            f"({_import_error}). Install it with `pip install kusari[cuda]`."
        )


class GpuDevice(_backend.Device):
    """A CUDA GPU, computing with CuPy (specifier ``'@cupy:N'``)."""

    def __init__(self, device: Any) -> None:
        check_cuda_available()
        self.device = device

    @classmethod
    def from_device_id(cls, device_id: int) -> GpuDevice:
        check_cuda_available()
        if not (isinstance(device_id, int) and device_id >= 0):
            raise ValueError(
                f"GPU device id must be a non-negative int, got {device_id!r}"
            )
        return cls(cupy.cuda.Device(device_id))

    @classmethod
    def from_array(cls, array: Any) -> GpuDevice | None:
        if available and isinstance(array, ndarray):
            return cls(array.device)
        return None

    @property
    def xp(self) -> Any:
        return cupy

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"@cupy:{self.device.id}"

    @property
    def supported_array_types(self) -> tuple[type, ...]:  # type: ignore[override]
        return (ndarray,)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GpuDevice) and other.device.id == self.device.id

    __hash__ = None

    def create_context(self) -> Any:
        return cupy.cuda.Device(self.device.id)

    def send_array(self, array: Any) -> Any:
        return to_gpu(array, self.device)

    def use(self) -> None:
        self.device.use()

    def is_array_supported(self, array: Any) -> bool:
        return isinstance(array, ndarray) and array.device.id == self.device.id


def get_device_from_id(device_id: int | None) -> Any:
    """Return ``cupy.cuda.Device(device_id)``, or the dummy device for None."""
    if device_id is None:
        return DummyDevice
    check_cuda_available()
    return cupy.cuda.Device(device_id)


def get_device_from_array(*arrays: Any) -> Any:
    """Return the CuPy device of the first CuPy array, else the dummy device."""
    for array in arrays:
        array = getattr(array, "array", array)
        if available and isinstance(array, ndarray):
            return array.device
    return DummyDevice


def get_device(*args: Any) -> Any:
    """Deprecated Chainer helper: the CuPy device of an id or an array."""
    for arg in args:
        if isinstance(arg, int) and not isinstance(arg, bool):
            return get_device_from_id(arg)
        if available and isinstance(getattr(arg, "array", arg), ndarray):
            return get_device_from_array(arg)
    return DummyDevice


def to_gpu(array: Any, device: Any = None, stream: Any = None) -> Any:
    """Copy an array (or nested list/tuple of arrays) to a GPU.

    Args:
        array: A NumPy or CuPy array, or None.
        device: The target device: an id, a ``cupy.cuda.Device``, or None
            for the current one.
        stream: Unused (kept for Chainer compatibility).
    """
    check_cuda_available()
    if isinstance(array, (list, tuple)):
        return type(array)(to_gpu(a, device, stream) for a in array)
    if array is None:
        return None
    if isinstance(device, int) or device is None:
        dev = cupy.cuda.Device(device) if device is not None else cupy.cuda.Device()
    else:
        dev = getattr(device, "device", device)
    with dev:
        return cupy.asarray(array)


def to_cpu(array: Any, stream: Any = None) -> Any:
    """Copy an array (or nested list/tuple of arrays) to host memory.

    NumPy arrays and None pass through unchanged, so this is safe to call on
    a CPU-only machine.

    Example:
        >>> import numpy as np
        >>> from kusari.backends import cuda
        >>> cuda.to_cpu(np.arange(3))
        array([0, 1, 2])
    """
    if isinstance(array, (list, tuple)):
        return type(array)(to_cpu(a, stream) for a in array)
    if array is None or isinstance(array, numpy.ndarray):
        return array
    if isinstance(array, numpy.generic):
        return numpy.asarray(array)
    if available and isinstance(array, ndarray):
        return array.get(stream)
    # Imported here: kusari.variable imports this module. Only a Variable is
    # unwrapped; any other object with an ``array`` attribute (a mock) is an
    # error, not something to recurse into.
    from kusari.variable import Variable

    if isinstance(array, Variable):
        return to_cpu(array.array, stream)
    raise TypeError(
        f"to_cpu: expected a NumPy or CuPy array, got {type(array).__name__}"
    )


def copy(
    array: Any, out: Any = None, out_device: Any = None, stream: Any = None
) -> Any:
    """Copy a CuPy array, optionally into ``out`` or onto ``out_device``."""
    check_cuda_available()
    if out is None:
        with get_device_from_id(out_device) if out_device is not None else array.device:
            out = cupy.empty_like(array)
    with array.device:
        cupy.copyto(out, array)
    return out


def get_array_module(*args: Any) -> Any:
    """Return ``cupy`` if any argument is a CuPy array, else ``numpy``."""
    if available:
        arrays = [getattr(a, "array", a) for a in args]
        return cupy.get_array_module(*arrays)
    return numpy


_memoized: list[Callable[..., Any]] = []


def memoize(for_each_device: bool = False) -> Callable[[Callable[..., Any]], Any]:
    """Cache a function's results (per device when asked), like ``cupy.memoize``."""

    def decorator(f: Callable[..., Any]) -> Any:
        cache: dict[Any, Any] = {}

        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key: Any = (args, tuple(sorted(kwargs.items())))
            if for_each_device and available:
                key = (cupy.cuda.Device().id, key)
            if key not in cache:
                cache[key] = f(*args, **kwargs)
            return cache[key]

        wrapper.cache = cache  # type: ignore[attr-defined]
        _memoized.append(wrapper)
        return wrapper

    return decorator


def clear_memo() -> None:
    """Drop every cache made by :func:`memoize`."""
    for f in _memoized:
        f.cache.clear()  # type: ignore[attr-defined]


@memoize(for_each_device=True)
def elementwise(
    in_params: str, out_params: str, operation: str, name: str, **kwargs: Any
) -> Any:
    """A compiled, cached ``cupy.ElementwiseKernel``."""
    check_cuda_available()
    return cupy.ElementwiseKernel(in_params, out_params, operation, name, **kwargs)


@memoize(for_each_device=True)
def reduce(
    in_params: str,
    out_params: str,
    map_expr: str,
    reduce_expr: str,
    post_map_expr: str,
    identity: Any,
    name: str,
    **kwargs: Any,
) -> Any:
    """A compiled, cached ``cupy.ReductionKernel``."""
    check_cuda_available()
    return cupy.ReductionKernel(
        in_params,
        out_params,
        map_expr,
        reduce_expr,
        post_map_expr,
        identity,
        name,
        **kwargs,
    )


@memoize(for_each_device=True)
def raw(code: str, name: str, *args: Any, **kwargs: Any) -> Any:
    """A compiled, cached ``cupy.RawKernel``."""
    check_cuda_available()
    return cupy.RawKernel(code, name, *args, **kwargs)


def fuse(*args: Any, **kwargs: Any) -> Any:
    """``cupy.fuse`` when CuPy is present; otherwise the function unchanged."""
    if available:
        return cupy.fuse(*args, **kwargs)
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda f: f


_max_workspace_size = 8 * 1024 * 1024


def get_max_workspace_size() -> int:
    """Kept for Chainer compatibility; kusari uses no cuDNN workspace."""
    return _max_workspace_size


def set_max_workspace_size(size: int) -> None:
    """Kept for Chainer compatibility; kusari uses no cuDNN workspace."""
    global _max_workspace_size
    _max_workspace_size = size


def should_use_cudnn(level: str, lowest_version: int = 0) -> bool:
    """Always False: kusari runs without cuDNN (CuPy 14 dropped it)."""
    return False


def should_use_cudnn_tensor_core(dtype: Any) -> bool:
    """Always False: kusari runs without cuDNN."""
    return False


def get_cudnn_dropout_states() -> Any:
    """Not available: kusari runs without cuDNN (dropout uses plain CuPy)."""
    raise RuntimeError(
        "get_cudnn_dropout_states: kusari does not use cuDNN; F.dropout works "
        "on CuPy arrays without dropout states"
    )


def get_cudnn_dropout_states_core(thread_id: int) -> Any:
    """Not available: kusari runs without cuDNN."""
    return get_cudnn_dropout_states()
