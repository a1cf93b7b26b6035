"""The :class:`Device` abstraction shared by the CPU and CUDA backends."""

from __future__ import annotations

from typing import Any

import numpy


class Device:
    """A place where arrays live and computation runs.

    Subclasses give :attr:`xp` (the array module), :attr:`name` (the device
    specifier string such as ``'@numpy'`` or ``'@cupy:0'``) and implement
    :meth:`send_array`.
    """

    xp: Any = None
    name: str = "<abstract>"
    supported_array_types: tuple[type, ...] = ()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    def __str__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        raise NotImplementedError

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __enter__(self) -> Device:
        self._ctx = self.create_context()
        self._ctx.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._ctx.__exit__(*exc)

    def create_context(self) -> Any:
        """Return a context manager that makes this device current."""
        return _NullContext()

    def send_array(self, array: Any) -> Any:
        raise NotImplementedError

    def use(self) -> None:
        """Make this device the current one (a no-op for the CPU)."""

    def is_array_supported(self, array: Any) -> bool:
        return isinstance(array, self.supported_array_types)

    def send(self, arrays: Any) -> Any:
        """Transfer an array, or a nested tuple/list/dict of arrays, here.

        ``None`` and Python scalars are returned as they are.

        Example:
            >>> import numpy as np
            >>> import kusari
            >>> kusari.get_device('@numpy').send([np.zeros(2)])[0]
            array([0., 0.])
        """
        return _convert_arrays(arrays, self.send_array)


class _NullContext:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def _convert_arrays(obj: Any, func: Any) -> Any:
    # NumPy scalars first: numpy.float64 subclasses float, yet it is array
    # data (a 0-d result of numpy.dot or .sum()) and goes to the device.
    if isinstance(obj, numpy.generic):
        return func(obj)
    if obj is None or isinstance(obj, (bool, int, float, complex, str)):
        return obj
    if isinstance(obj, list):
        return [_convert_arrays(o, func) for o in obj]
    if isinstance(obj, tuple):
        return tuple(_convert_arrays(o, func) for o in obj)
    if isinstance(obj, dict):
        return {k: _convert_arrays(v, func) for k, v in obj.items()}
    return func(obj)
