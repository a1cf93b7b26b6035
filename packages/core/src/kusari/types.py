"""Type aliases used in annotations (``chainer.types``)."""

from __future__ import annotations

from typing import Any, Protocol


class AbstractInitializer(Protocol):
    """Anything that fills an array in place: ``initializer(array)``.

    Every :class:`kusari.Initializer` satisfies it, and so does a plain
    function taking the array.
    """

    def __call__(self, array: Any) -> None: ...


# The aliases below are Any to type checkers (NumPy and CuPy arrays share no
# base class, and Chainer accepts many spellings of each); they name what a
# public signature expects.

#: A NumPy or CuPy array.
NdArray = Any
#: A Variable or an array (what most functions accept as an input).
VariableOrArray = Any
#: A shape: an int or a tuple of ints.
ShapeSpec = Any
#: A dtype, its name or a Python type (``numpy.float32``, ``'f'``, ``float``).
DTypeSpec = Any
#: A device specifier: a Device, ``'@numpy'``, ``'@cupy:0'``, an int (GPU id).
DeviceSpec = Any
#: An initializer, an array (used as the value), a scalar or None.
InitializerSpec = Any
#: An int or a tuple of ints, one per spatial axis (ksize, stride, pad).
IntOrTuple = Any
