"""Sequence: apply links and functions one after another."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import kusari

__all__ = ["Sequence"]


class Sequence(kusari.Chain):
    """Sequential composition of links and plain callables.

    Links are registered as children named ``'0'``, ``'1'``, ... (by their
    position), so saved parameters look like a ChainList's. Unlike a
    ChainList, a child can be swapped with Chain's public API
    (``delattr`` + ``add_link``), which :func:`to_factorized_noisy` relies on.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> import kusari.links as L
        >>> net = Sequence(L.Linear(3, 4), F.relu, L.Linear(4, 2))
        >>> net(np.zeros((1, 3), dtype=np.float32)).shape
        (1, 2)
    """

    def __init__(self, *layers: Callable[..., Any]) -> None:
        super().__init__()
        self._layer_specs: list[Any] = []
        for i, layer in enumerate(layers):
            if isinstance(layer, kusari.Link):
                self.add_link(str(i), layer)
                self._layer_specs.append(str(i))
            elif callable(layer):
                self._layer_specs.append(layer)
            else:
                raise TypeError(
                    f"Sequence: layer {i} must be a Link or a callable, got "
                    f"{type(layer).__name__}"
                )

    @property
    def layers(self) -> list[Any]:
        """The current layers in order (links looked up by name)."""
        return [
            getattr(self, s) if isinstance(s, str) else s for s in self._layer_specs
        ]

    def __getitem__(self, i: Any) -> Any:
        return self.layers[i]

    def __len__(self) -> int:
        return len(self._layer_specs)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.layers)

    def forward(self, x: Any, *args: Any, **kwargs: Any) -> Any:
        h = x
        for i, spec in enumerate(self._layer_specs):
            layer = getattr(self, spec) if isinstance(spec, str) else spec
            h = layer(h, *args, **kwargs) if i == 0 else layer(h)
        return h
