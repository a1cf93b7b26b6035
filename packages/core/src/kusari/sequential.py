"""Sequential: a model that pipes its input through a list of callables."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from kusari import _link_impl
from kusari.chain_list import ChainList
from kusari.link import Link


class Sequential(ChainList):
    """Calls its layers one after another; links among them are children.

    Layers are any callables: links (registered as children ``'0'``, ``'1'``,
    ...) and plain functions such as ``F.relu``. A tuple returned by one
    layer is spread as the arguments of the next. The container behaves like
    a list (indexing, ``append``, ``insert``, ``pop``, ``+``...).

    Children are numbered exactly as Chainer 7 numbers them, so that npz
    files move between the two with the same names. That order is the link
    order for up to two links, but not beyond: Chainer inserts a new link
    into its children list at one past the position *among all layers* of
    the first link before it. ``Sequential(l0, l1, l2)`` names ``l0, l2, l1``
    as ``'0', '1', '2'``, and ``Sequential(l0, F.relu, l1, F.relu, l2)``
    does the same; iterate over the Sequential itself (not
    :meth:`children`) for the calling order.

    Args:
        layers: The callables, in calling order.

    Example:
        >>> import kusari
        >>> model = kusari.Sequential(lambda x: x + 1, lambda x: x * 10)
        >>> model(1)
        20
        >>> len(model + model)
        4
    """

    _layers: list[Callable[..., Any]]

    def __init__(self, *layers: Callable[..., Any]) -> None:
        super().__init__()
        self._layers = []
        for layer in layers:
            self.append(layer)

    # -- list protocol ------------------------------------------------------

    def __len__(self) -> int:
        return len(self._layers)

    def __getitem__(self, i: Any) -> Any:
        """The layer at ``i`` (a list of layers for a slice)."""
        return self._layers[i]

    def __setitem__(self, i: int, layer: Callable[..., Any]) -> None:
        _check_callable(layer)
        if not -len(self) <= i < len(self):
            raise IndexError(f"Sequential index {i} out of range (len {len(self)})")
        i %= len(self)
        if self._layers[i] is not layer:
            del self[i]
            self.insert(i, layer)

    def __delitem__(self, i: int) -> None:
        layer = self._layers.pop(i)
        if isinstance(layer, Link):
            self._children = [c for c in self._children if c is not layer]
            self._rename_children()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._layers)

    def __reversed__(self) -> Iterator[Any]:
        return reversed(self._layers)

    def __contains__(self, layer: Any) -> bool:
        return any(item is layer for item in self._layers)

    def __add__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(
                "add (+) operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        return Sequential(*self._layers, *other._layers)

    def __iadd__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(
                "add (+) operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        self.extend(list(other))
        return self

    def __mul__(self, n_repeat: int) -> Sequential:
        """``n_repeat`` freshly initialized copies of this model, in a row."""
        return self.repeat(n_repeat)

    __rmul__ = __mul__

    def append(self, layer: Callable[..., Any]) -> None:
        """Adds ``layer`` at the end."""
        self.insert(len(self), layer)

    def add_link(self, link: Link) -> None:
        """Same as :meth:`append` (a link is a layer)."""
        self.append(link)

    def extend(self, layers: Iterable[Callable[..., Any]]) -> None:
        """Appends every layer of ``layers`` (e.g. another Sequential)."""
        for layer in layers:
            self.append(layer)

    def insert(self, i: int, layer: Callable[..., Any]) -> None:
        """Inserts ``layer`` before position ``i`` (list semantics).

        Raises:
            ValueError: If ``layer`` is not callable.
        """
        _check_callable(layer)
        n = len(self._layers)
        if not -n <= i <= n:
            raise IndexError(f"Index out of range: {i}")
        if i < 0:
            i += n
        self._layers.insert(i, layer)
        if isinstance(layer, Link):
            # Chainer 7's rule, kept for its npz names (see the class doc): the
            # slot is one past the layer position of the first earlier link.
            slot = 0
            if i > 0:
                first = next(
                    (j for j in range(i) if isinstance(self._layers[j], Link)), 0
                )
                slot = first + 1
            self._children.insert(slot, layer)
            self._rename_children()

    def remove(self, layer: Callable[..., Any]) -> None:
        """Removes the first occurrence of ``layer``.

        Raises:
            ValueError: If ``layer`` is not in the model.
        """
        if layer not in self:
            raise ValueError(f"There is no layer object that is same as {layer!r}")
        del self[self.index(layer)]

    def pop(self, i: int = -1) -> Any:
        """Removes and returns the layer at ``i`` (the last by default)."""
        layer = self._layers[i]
        del self[i]
        return layer

    def clear(self) -> None:
        """Removes every layer."""
        self._layers = []
        self._children = []

    def index(self, layer: Any, start: int = 0, end: int | None = None) -> int:
        """Position of the first occurrence of ``layer`` (by identity)."""
        stop = len(self) if end is None else end
        for position in range(start, min(stop, len(self))):
            if self._layers[position] is layer:
                return position
        raise ValueError(f"{layer!r} is not in Sequential")

    def count(self, layer: Any) -> int:
        """Number of occurrences of ``layer`` (by identity)."""
        return sum(item is layer for item in self._layers)

    def count_by_layer_type(self, type_name: str) -> int:
        """Number of layers whose class name (links) or ``__name__`` matches."""
        return sum(_layer_type_name(layer) == type_name for layer in self._layers)

    def remove_by_layer_type(self, type_name: str) -> None:
        """Removes every layer whose class name (links) or ``__name__`` matches."""
        for layer in [x for x in self._layers if _layer_type_name(x) == type_name]:
            self.remove(layer)

    def _rename_children(self) -> None:
        for index, child in enumerate(self._children):
            child.name = str(index)

    # -- model behaviour ----------------------------------------------------

    def forward(self, *x: Any) -> Any:
        """Feeds the inputs through every layer; returns the last output.

        Raises:
            RuntimeError: If the model has no layer.
        """
        if not self._layers:
            raise RuntimeError("Sequential does not have any layer.")
        out: Any = x
        for layer in self._layers:
            out = layer(*out) if isinstance(out, tuple) else layer(out)
        return out

    def copy(self, mode: str = "share") -> Sequential:
        """Copies the model: links with :meth:`Link.copy`, others shallowly."""
        _link_impl.check_copy_mode(mode)
        ret = Sequential()
        for layer in self._layers:
            ret.append(
                layer.copy(mode) if isinstance(layer, Link) else copy.copy(layer)
            )
        return ret

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        """Copies parameters from a Sequential of the same structure.

        Raises:
            ValueError: If ``link`` is not a Sequential.
        """
        if not isinstance(link, Sequential):
            raise ValueError(
                "Objects other than Sequential object cannot be copied to a "
                f"Sequential object, got {type(link).__name__}."
            )
        super().copyparams(link, copy_persistent)

    def flatten(self) -> Sequential:
        """A Sequential with every nested Sequential spliced in place."""
        ret = Sequential()
        for layer in self._layers:
            if isinstance(layer, Sequential):
                ret.extend(layer.flatten())
            else:
                ret.append(layer)
        return ret

    def __reduce__(self) -> Any:
        if any(getattr(layer, "__name__", None) == "<lambda>" for layer in self):
            raise ValueError(
                "This Sequential object has a lambda function as a layer, and "
                "lambdas cannot be pickled: use functools.partial or a named "
                "function instead."
            )
        return super().__reduce__()

    def __repr__(self) -> str:
        items = [
            (
                str(i),
                repr(layer) if isinstance(layer, Link) else _layer_text(layer),
            )
            for i, layer in enumerate(self._layers)
        ]
        return _link_impl.format_tree(type(self).__name__, "", items)

    __str__ = __repr__


def _layer_text(layer: Any) -> str:
    """How Chainer prints a non-link layer: a lambda as its source line, any
    other callable (function, partial, object) as ``str()``."""
    if getattr(layer, "__name__", None) == "<lambda>":
        try:
            return inspect.getsource(layer).strip().rstrip(",")
        except (OSError, TypeError):
            pass  # defined where no source is kept (an interactive prompt)
    return str(layer)


def _check_callable(layer: Any) -> None:
    if not callable(layer):
        raise ValueError(
            "All elements of a Sequential class should be callable. But given "
            f"{layer!r} is not callable."
        )


def _layer_type_name(layer: Any) -> str:
    if isinstance(layer, Link):
        return type(layer).__name__
    return getattr(layer, "__name__", type(layer).__name__)
