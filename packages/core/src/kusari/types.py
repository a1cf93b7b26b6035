"""Type aliases used in annotations (``chainer.types``)."""

from __future__ import annotations

from typing import Any, Protocol


class AbstractInitializer(Protocol):
    """Anything that fills an array in place: ``initializer(array)``.

    Every :class:`kusari.Initializer` satisfies it, and so does a plain
    function taking the array.
    """

    def __call__(self, array: Any) -> None: ...


ShapeSpec = Any
DTypeSpec = Any
DeviceSpec = Any
InitializerSpec = Any
