"""Converters: turn a list of examples into batched arrays on a device."""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from kusari import backend
from kusari.types import DeviceSpec


def _is_array(x: Any) -> bool:
    if isinstance(x, numpy.ndarray):
        return True
    # CuPy arrays are recognised without importing CuPy.
    return type(x).__module__.split(".")[0] == "cupy" and hasattr(x, "shape")


def _get_device(device_spec: Any) -> Any:
    if device_spec is None:
        return None
    return backend.get_device(device_spec)


def to_device(device: Any, x: Any) -> Any:
    """Send an array (or a nested list/tuple/dict of arrays) to a device.

    Args:
        device: A device specifier accepted by :func:`kusari.backend.get_device`
            (``'@numpy'``, ``'@cupy:0'``, ``-1``, ``0``, a Device) or ``None``
            to leave ``x`` where it is.
        x: The data to send.

    Returns:
        The data on the device.

    Example:
        >>> import numpy as np
        >>> to_device(None, np.ones(2))
        array([1., 1.])
        >>> to_device('@numpy', np.ones(2))
        array([1., 1.])
    """
    dev = _get_device(device)
    if dev is None:
        return x
    return dev.send(x)


class Converter:
    """Base class of converters: ``converter(batch, device)`` returns arrays.

    A converter receives the ``device`` argument as a
    :class:`kusari.backend.Device` (or ``None``), never as a raw int.

    Example:
        >>> import numpy as np
        >>> class Stack(Converter):
        ...     def __call__(self, batch, device=None):
        ...         return to_device(device, np.stack(batch))
        >>> Stack()([np.zeros(2), np.ones(2)]).shape
        (2, 2)
    """

    def __call__(self, batch: Sequence[Any], device: Any = None) -> Any:
        raise NotImplementedError


class _WrappedConverter(Converter):
    def __init__(self, func: Callable[..., Any]) -> None:
        self._func = func
        self.__wrapped__ = func
        functools.update_wrapper(self, func)

    def __repr__(self) -> str:
        return f"<converter {getattr(self._func, '__qualname__', self._func)!r}>"

    def __call__(
        self, batch: Sequence[Any], device: Any = None, *args: Any, **kwargs: Any
    ) -> Any:
        return self._func(batch, _get_device(device), *args, **kwargs)


def converter() -> Callable[[Callable[..., Any]], Converter]:
    """Decorator factory turning ``f(batch, device)`` into a :class:`Converter`.

    The wrapped function receives ``device`` already converted to a Device
    (or ``None``), whatever specifier the caller passed.

    Example:
        >>> import numpy as np
        >>> @converter()
        ... def stack(batch, device):
        ...     return to_device(device, np.stack(batch))
        >>> stack([np.zeros(2), np.ones(2)], -1).shape
        (2, 2)
    """

    def wrap(func: Callable[..., Any]) -> Converter:
        if not callable(func):
            raise TypeError(
                f"converter: expected a function, got {type(func).__name__}"
            )
        return _WrappedConverter(func)

    return wrap


def call_converter(
    conv: Callable[..., Any], batch: Any, device: DeviceSpec = None
) -> Any:
    """Call a converter the way updaters and evaluators do.

    :class:`Converter` instances (from :func:`converter`) get a Device; plain
    functions written for Chainer's old API get what it gave them: -1 for
    the CPU, the GPU's id (an int) for a GPU, or None. Updaters, evaluators
    and user training loops share this one entry point.

    Args:
        conv: A :class:`Converter` or a function ``(batch, device)``.
        batch: The list of examples from an iterator.
        device: A device specifier (None: leave the arrays where they are).

    Returns:
        Whatever the converter returns (usually a tuple of arrays).

    Raises:
        TypeError: ``conv`` is not callable.

    Example:
        >>> import numpy as np
        >>> from kusari.dataset.convert import call_converter, concat_examples
        >>> x, t = call_converter(concat_examples, [(np.zeros(2), 0)] * 3)
        >>> x.shape, t.shape
        ((3, 2), (3,))
    """
    if not callable(conv):
        raise TypeError(
            f"call_converter: expected a converter (a callable), got "
            f"{type(conv).__name__}"
        )
    if isinstance(conv, Converter):
        return conv(batch, _get_device(device))
    return conv(batch, _legacy_device_id(device))


def _legacy_device_id(device: DeviceSpec) -> Any:
    """The device as Chainer's old converters take it: -1 for the CPU, the
    GPU's id for a GPU, None for "leave the arrays where they are"."""
    if device is None:
        return None
    resolved = backend.get_device(device)
    if resolved.xp is numpy:
        return -1
    gpu: Any = resolved  # a GpuDevice: the only other kind of device
    return gpu.device.id


# Chainer 7's private name, kept for code written against it.
_call_converter = call_converter


def concat_examples_func(
    batch: Sequence[Any], device: Any = None, padding: Any = None
) -> Any:
    """Concatenate a list of examples into batched arrays (plain function).

    Each example is an array, a tuple of arrays or a dict of arrays; the
    result has the same structure with one more leading (batch) axis.

    Args:
        batch: A non-empty list of examples.
        device: Where to send the result (see :func:`to_device`).
        padding: ``None`` to require equal shapes; otherwise the value used to
            pad every array up to the largest shape. A tuple (or dict) gives
            one padding value per element of tuple (or dict) examples.

    Example:
        >>> import numpy as np
        >>> x, t = concat_examples_func([(np.zeros(2), 0), (np.ones(2), 1)])
        >>> x.shape, t
        ((2, 2), array([0, 1]))
    """
    if len(batch) == 0:
        raise ValueError("concat_examples: the batch is empty")
    first = batch[0]
    if isinstance(first, tuple):
        n = len(first)
        if not isinstance(padding, tuple):
            pads: Sequence[Any] = [padding] * n
        elif len(padding) != n:
            raise ValueError(
                f"concat_examples: padding has {len(padding)} entries but the "
                f"examples are tuples of {n}"
            )
        else:
            pads = padding
        for example in batch:
            if not isinstance(example, tuple) or len(example) != n:
                raise ValueError(
                    "concat_examples: every example must be a tuple of length "
                    f"{n} like the first one, got {type(example).__name__}"
                    + (
                        f" of length {len(example)}"
                        if isinstance(example, tuple)
                        else ""
                    )
                )
        return tuple(
            to_device(device, _concat_arrays([ex[i] for ex in batch], pads[i]))
            for i in range(n)
        )
    if isinstance(first, dict):
        pad_map = (
            padding if isinstance(padding, dict) else dict.fromkeys(first, padding)
        )
        result = {}
        for key in first:
            try:
                column = [ex[key] for ex in batch]
            except (KeyError, TypeError) as e:
                raise ValueError(
                    f"concat_examples: an example lacks the key {key!r} that "
                    "the first example has"
                ) from e
            result[key] = to_device(device, _concat_arrays(column, pad_map.get(key)))
        return result
    return to_device(device, _concat_arrays(batch, padding))


def _concat_arrays(arrays: Sequence[Any], padding: Any) -> Any:
    if not _is_array(arrays[0]):
        # Python scalars and lists become one NumPy array in a single call.
        stacked = numpy.asarray(arrays)
        if padding is None:
            return stacked
        arrays = list(stacked)
    if padding is not None:
        return _concat_arrays_with_padding(arrays, padding)
    xp = backend.get_array_module(arrays[0])
    shape = arrays[0].shape
    for a in arrays[1:]:
        if a.shape != shape:
            raise ValueError(
                "concat_examples: arrays in a batch must have the same shape "
                f"(got {shape} and {a.shape}); pass padding= to pad them"
            )
    device = backend.get_device_from_array(arrays[0])
    with backend.using_device(device):
        return xp.stack(arrays)


def _concat_arrays_with_padding(arrays: Sequence[Any], padding: Any) -> Any:
    ndim = arrays[0].ndim
    shape = list(arrays[0].shape)
    for a in arrays[1:]:
        if a.ndim != ndim:
            raise ValueError(
                "concat_examples: cannot pad arrays of different ranks "
                f"({ndim} and {a.ndim})"
            )
        shape = [max(s, t) for s, t in zip(shape, a.shape, strict=True)]
    xp = backend.get_array_module(arrays[0])
    device = backend.get_device_from_array(arrays[0])
    with backend.using_device(device):
        result = xp.full([len(arrays), *shape], padding, dtype=arrays[0].dtype)
        for i, a in enumerate(arrays):
            result[(i, *(slice(d) for d in a.shape))] = a
    return result


@converter()
def concat_examples(
    batch: Sequence[Any], device: Any = None, padding: Any = None
) -> Any:
    """Concatenate a list of examples into batched arrays (the default converter).

    Same as :func:`concat_examples_func`, wrapped as a :class:`Converter`.

    Example:
        >>> import numpy as np
        >>> batch = [np.array([1, 2]), np.array([3])]
        >>> concat_examples(batch, padding=0)
        array([[1, 2],
               [3, 0]])
    """
    return concat_examples_func(batch, device, padding)


class ConcatWithAsyncTransfer(Converter):
    """Converter that overlaps host-to-GPU copies with computation.

    kusari performs the concatenation and then one transfer per array; on CPU
    (and in this implementation also on GPU) the transfer is synchronous, which
    gives the same results as Chainer's asynchronous version.

    Args:
        stream: Accepted for compatibility; unused.
        compute_stream: Accepted for compatibility; unused.

    Example:
        >>> import numpy as np
        >>> conv = ConcatWithAsyncTransfer()
        >>> conv([np.zeros(2), np.ones(2)]).shape
        (2, 2)
    """

    def __init__(self, stream: Any = None, compute_stream: Any = None) -> None:
        self.stream = stream
        self.compute_stream = compute_stream

    def __repr__(self) -> str:
        return "ConcatWithAsyncTransfer()"

    def __call__(
        self, batch: Sequence[Any], device: Any = None, padding: Any = None
    ) -> Any:
        return concat_examples_func(batch, device, padding)


class Conveyor:
    """Queue that sends arrays to a device between ``put`` and ``get``.

    Chainer's Conveyor starts the copy in ``put`` on a CUDA stream; kusari
    copies in ``get``, which is equivalent for the caller.

    Args:
        device: Target device specifier (``None`` keeps arrays in place).
        stream: Accepted for compatibility; unused.

    Example:
        >>> import numpy as np
        >>> c = Conveyor('@numpy')
        >>> c.put(np.arange(3))
        >>> c.get()
        array([0, 1, 2])
    """

    def __init__(self, device: Any = None, stream: Any = None) -> None:
        self.device = _get_device(device)
        self.stream = stream
        self._queue: collections.deque[Any] = collections.deque()

    def __repr__(self) -> str:
        return f"Conveyor(device={self.device!r}, pending={len(self._queue)})"

    def put(self, array: Any) -> None:
        """Enqueue an array (or nested tuple/list/dict of arrays)."""
        self._queue.append(array)

    def get(self) -> Any:
        """Return the oldest enqueued data, on the target device."""
        if not self._queue:
            raise IndexError("Conveyor.get: nothing was put")
        data = self._queue.popleft()
        return data if self.device is None else self.device.send(data)
