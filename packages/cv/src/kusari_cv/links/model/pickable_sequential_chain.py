"""A sequential chain whose intermediate outputs can be picked by name."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import kusari


class PickableSequentialChain(kusari.Chain):
    """Runs its callables in registration order and returns picked outputs.

    Every callable (a link or a plain function) assigned inside
    ``init_scope()`` becomes a layer; links also become child links. Calling
    the chain runs the layers in the order they were registered and returns
    the output of the layer(s) named by :attr:`pick`: one output for a
    string, a tuple (in ``pick``'s order) for a sequence of strings, and the
    last layer's output when ``pick`` is None. Layers after the last picked
    one are not run.

    Attributes:
        layer_names: Names of the layers, in execution order.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> import kusari.links as L
        >>> from kusari_cv.links import PickableSequentialChain
        >>> model = PickableSequentialChain()
        >>> with model.init_scope():
        ...     model.l1 = L.Linear(3, 4)
        ...     model.l1_relu = F.relu
        ...     model.l2 = L.Linear(4, 2)
        >>> x = np.ones((1, 3), np.float32)
        >>> model(x).shape
        (1, 2)
        >>> model.pick = ('l2', 'l1_relu')
        >>> [h.shape for h in model(x)]
        [(1, 2), (1, 4)]
    """

    def __init__(self) -> None:
        super().__init__()
        self.layer_names: list[str] = []
        # Both set by the ``pick`` setter.
        self._pick: tuple[str, ...] | None = None
        self._return_tuple = False

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if self.within_init_scope and callable(value):
            self.layer_names.append(name)

    def __delattr__(self, name: str) -> None:
        if self._pick is not None and name in self._pick:
            raise AttributeError(
                f"{type(self).__name__}: cannot delete layer {name!r}, it is "
                f"registered in pick {self._pick}"
            )
        super().__delattr__(name)
        if name in self.layer_names:
            self.layer_names.remove(name)

    @property
    def pick(self) -> str | tuple[str, ...] | None:
        """Name(s) of the returned layers; None for the last layer."""
        if self._pick is None:
            return None
        return self._pick if self._return_tuple else self._pick[0]

    @pick.setter
    def pick(self, pick: str | Iterable[str] | None) -> None:
        if pick is None:
            self._pick = None
            self._return_tuple = False
            return
        if isinstance(pick, str):
            names: tuple[Any, ...] = (pick,)
            return_tuple = False
        else:
            names = tuple(pick)
            return_tuple = True
        unknown = [n for n in names if n not in self.layer_names]
        if unknown or not names:
            raise ValueError(
                f"{type(self).__name__}: invalid layer name(s) in pick: "
                f"{unknown or names!r}; expected names from {self.layer_names}"
            )
        self._pick = names
        self._return_tuple = return_tuple

    def remove_unused(self) -> None:
        """Deletes the layers that come after the last picked one.

        Does nothing when :attr:`pick` is None.
        """
        if self._pick is None:
            return
        last = max(self.layer_names.index(name) for name in self._pick)
        for name in self.layer_names[last + 1 :]:
            delattr(self, name)

    def forward(self, x: Any) -> Any:
        """Runs the layers up to the last picked one on ``x``.

        Returns:
            The picked output, or a tuple of them (see :attr:`pick`).
        """
        pick = self._pick if self._pick is not None else (self.layer_names[-1],)
        last = max(self.layer_names.index(name) for name in pick)
        outputs = {}
        h = x
        for name in self.layer_names[: last + 1]:
            h = getattr(self, name)(h)
            if name in pick:
                outputs[name] = h
        if self._return_tuple:
            return tuple(outputs[name] for name in pick)
        return outputs[pick[0]]
