"""DLPack interop: share arrays with PyTorch, JAX, CuPy and NumPy without copying.

``kusari.from_dlpack(t)`` wraps any object that speaks the DLPack protocol
(``__dlpack__`` and ``__dlpack_device__``) in a :class:`~kusari.Variable`;
the other way round, a Variable has those two methods itself, so
``torch.from_dlpack(v)`` or ``numpy.from_dlpack(v)`` view its array. The
exchange goes through the array library of the producer's device: NumPy for
host memory, CuPy for CUDA memory.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari.backends import cuda
from kusari.variable import Variable

# DLPack device types (dlpack.h ``DLDeviceType``).
_CPU = 1
_CUDA = 2
_CUDA_HOST = 3
_CUDA_MANAGED = 13


def from_dlpack(obj: Any, *, requires_grad: bool = True) -> Variable:
    """Wrap a DLPack-capable array in a Variable, sharing its memory.

    Args:
        obj: An object with ``__dlpack__`` and ``__dlpack_device__``: a
            ``torch.Tensor``, a JAX array, a CuPy or NumPy array, a Variable.
        requires_grad: Passed to the new :class:`~kusari.Variable`.

    Returns:
        A Variable whose array is a NumPy array (host memory) or a CuPy array
        (CUDA memory) viewing the same memory as ``obj``: writes through
        either side are seen by the other.

    Raises:
        TypeError: ``obj`` does not support DLPack (a legacy capsule from
            ``to_dlpack`` included: pass the tensor itself).
        RuntimeError: ``obj`` is on a CUDA device and CuPy is not available.
        ValueError: ``obj`` lives on a device kind kusari does not run on.

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> a = np.arange(3, dtype=np.float32)
        >>> v = kusari.from_dlpack(a)
        >>> v.array[0] = 7
        >>> a
        array([7., 1., 2.], dtype=float32)
    """
    if not (hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__")):
        hint = (
            " (a DLPack capsule: pass the tensor itself, which implements "
            "__dlpack__, instead of the result of to_dlpack)"
            if type(obj).__name__ == "PyCapsule"
            else ""
        )
        raise TypeError(
            "kusari.from_dlpack: expected an object implementing __dlpack__ and "
            f"__dlpack_device__, got {type(obj).__module__}.{type(obj).__name__}"
            f"{hint}"
        )
    device_type, _ = obj.__dlpack_device__()
    device_type = int(device_type)
    if device_type in (_CPU, _CUDA_HOST):
        array = numpy.from_dlpack(obj)
    elif device_type in (_CUDA, _CUDA_MANAGED):
        if not cuda.available:
            raise RuntimeError(
                "kusari.from_dlpack: the array lives on a CUDA device, which needs "
                "CuPy (pip install 'kusari[cuda]')"
            )
        array = cuda.cupy.from_dlpack(obj)
    else:
        raise ValueError(
            f"kusari.from_dlpack: DLPack device type {device_type} is not supported "
            f"(kusari runs on CPU ({_CPU}) and CUDA ({_CUDA}) memory)"
        )
    return Variable(array, requires_grad=requires_grad)
