"""The NumPy backend."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import _backend


class CpuDevice(_backend.Device):
    """The host CPU, computing with NumPy (specifier ``'@numpy'``).

    Example:
        >>> import kusari
        >>> kusari.get_device('@numpy')
        <CpuDevice @numpy>
    """

    xp = numpy
    name = "@numpy"
    supported_array_types = (numpy.ndarray, numpy.generic)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CpuDevice)

    __hash__ = None

    def send_array(self, array: Any) -> Any:
        if isinstance(array, numpy.ndarray):
            return array
        if isinstance(array, numpy.generic):
            return numpy.asarray(array)
        get = getattr(array, "get", None)
        if get is not None and type(array).__module__.startswith("cupy"):
            return get()
        if hasattr(array, "__array__"):
            return numpy.asarray(array)
        raise TypeError(
            f"CpuDevice.send: expected an array, got {type(array).__name__}"
        )


def _to_cpu(array: Any) -> Any:
    """``array`` (or a nested tuple/list/dict of arrays) as NumPy arrays.

    Chainer's private helper of the same name; Chainer-style test suites call
    it to bring results back to the host. None passes through.
    """
    return _cpu_device.send(array)


_cpu_device = CpuDevice()
