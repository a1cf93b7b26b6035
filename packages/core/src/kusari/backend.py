"""Device-agnostic helpers: which array module, which device.

Example:
    >>> import numpy as np
    >>> from kusari import backend
    >>> backend.get_array_module(np.zeros(3)) is np
    True
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy

from kusari._backend import Device
from kusari.backends import cuda
from kusari.backends._cpu import CpuDevice
from kusari.backends.cuda import GpuDevice

__all__ = [
    "CpuDevice",
    "Device",
    "GpuDevice",
    "copyto",
    "get_array_module",
    "get_device",
    "get_device_from_array",
    "using_device",
]

_cpu_device = CpuDevice()


def get_array_module(*args: Any) -> Any:
    """Return the array module (``numpy`` or ``cupy``) for the arguments.

    Variables are looked through to their arrays.
    """
    if cuda.available:
        return cuda.get_array_module(*args)
    return numpy


def get_device(device_spec: Any) -> Device:
    """Return the :class:`Device` that a specifier names.

    Args:
        device_spec: A :class:`Device`; a string ``'@numpy'`` or
            ``'@cupy:N'``; an int (``-1`` is the CPU, ``N >= 0`` GPU ``N``)
            or its string form (``'-1'``, ``'0'``);
            the ``numpy`` or ``cupy`` module; a ``cupy.cuda.Device``; or a
            legacy ``(module, id)`` tuple.

    Example:
        >>> import kusari
        >>> kusari.get_device(-1)
        <CpuDevice @numpy>
    """
    if isinstance(device_spec, Device):
        return device_spec
    if isinstance(device_spec, str):
        return _parse_device_string(device_spec)
    if isinstance(device_spec, (int, numpy.integer)) and not isinstance(
        device_spec, bool
    ):
        n = int(device_spec)
        if n < 0:
            return _cpu_device
        return GpuDevice.from_device_id(n)
    if device_spec is numpy:
        return _cpu_device
    if cuda.available:
        if device_spec is cuda.cupy:
            return GpuDevice(cuda.cupy.cuda.Device())
        if isinstance(device_spec, cuda.cupy.cuda.Device):
            return GpuDevice(device_spec)
    if isinstance(device_spec, tuple) and len(device_spec) == 2:
        module, index = device_spec
        if module is numpy:
            return _cpu_device
        if module is cuda.cupy and cuda.available:
            return GpuDevice.from_device_id(int(index))
    if isinstance(device_spec, cuda.DummyDeviceType):
        return _cpu_device
    raise ValueError(
        f"Invalid device specifier: {device_spec!r}. Expected '@numpy', "
        "'@cupy:N', an int (-1 for the CPU), a Device, or an array module."
    )


def _parse_device_string(spec: str) -> Device:
    if spec == "@numpy":
        return _cpu_device
    if spec.strip().lstrip("-").isdigit():
        # Chainer 7's examples pass `--device -1` through as a string.
        return get_device(int(spec))
    if spec.startswith("@cupy"):
        rest = spec[len("@cupy") :]
        if rest == "":
            cuda.check_cuda_available()
            return GpuDevice(cuda.cupy.cuda.Device())
        if rest.startswith(":") and rest[1:].isdigit():
            return GpuDevice.from_device_id(int(rest[1:]))
    if spec.startswith(("@intel64", "native", "cuda:")):
        raise ValueError(
            f"Device {spec!r} is not supported: kusari has no iDeep or ChainerX "
            "backend. Use '@numpy' or '@cupy:N'."
        )
    raise ValueError(
        f"Invalid device specifier: {spec!r}. Expected '@numpy' or '@cupy:N'."
    )


def get_device_from_array(*arrays: Any) -> Device:
    """Return the device the given arrays live on.

    With several arrays, the first one on a GPU decides (as in Chainer); the
    CPU is returned when none is on a GPU, or for non-arrays.

    Example:
        >>> import numpy as np
        >>> from kusari import backend
        >>> backend.get_device_from_array(np.zeros(2), np.ones(3))
        <CpuDevice @numpy>
    """
    for array in arrays:
        array = getattr(array, "array", array)
        if cuda.available and isinstance(array, cuda.ndarray):
            return GpuDevice(array.device)
    return _cpu_device


@contextlib.contextmanager
def using_device(device_spec: Any) -> Iterator[None]:
    """Make a device current inside a ``with`` block.

    Example:
        >>> import kusari
        >>> with kusari.using_device('@numpy'):
        ...     pass
    """
    device = get_device(device_spec)
    with device.create_context():
        yield


def copyto(dst: Any, src: Any) -> None:
    """Copy ``src`` into ``dst`` in place, across devices if needed."""
    if isinstance(dst, numpy.ndarray):
        numpy.copyto(dst, _cpu_device.send(src))
    elif cuda.available and isinstance(dst, cuda.ndarray):
        if isinstance(src, numpy.ndarray):
            dst.set(numpy.ascontiguousarray(src, dtype=dst.dtype))
        else:
            with dst.device:
                cuda.cupy.copyto(dst, src)
    else:
        raise TypeError(
            f"copyto: cannot copy into {type(dst).__name__}; expected a NumPy "
            "or CuPy array"
        )
