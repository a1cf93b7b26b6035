"""The embedding link (``EmbedID``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kusari import initializers, link, variable
from kusari.functions.connection import embed_id as embed_id_module


class EmbedID(link.Link):
    """Embedding layer: maps integer IDs to rows of ``W``.

    Args:
        in_size: Number of IDs (vocabulary size).
        out_size: Size of each embedding vector.
        initialW: Initializer of ``W`` (shape ``(in_size, out_size)``);
            ``Normal(1.0)`` by default.
        ignore_label: IDs equal to this value give zero vectors.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> embed = L.EmbedID(10, 3, ignore_label=-1)
        >>> embed(np.array([[1, -1]], np.int32)).shape
        (1, 2, 3)
    """

    ignore_label: Any = None

    def __init__(
        self,
        in_size: int,
        out_size: int,
        initialW: Any = None,
        ignore_label: Any = None,
    ) -> None:
        super().__init__()
        self.ignore_label = ignore_label
        if initialW is None:
            initialW = initializers.Normal(1.0)
        with self.init_scope():
            self.W = variable.Parameter(
                initializers._get_initializer(initialW), (in_size, out_size)
            )

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "in_size", self.W.shape[0]
        yield "out_size", self.W.shape[1]
        yield "ignore_label", self.ignore_label

    @classmethod
    def from_params(cls, W: Any, ignore_label: Any = None) -> EmbedID:
        """Build an EmbedID whose ``W`` starts from the given array."""
        W = getattr(W, "array", W)
        in_size, out_size = W.shape
        return cls(in_size, out_size, initialW=W, ignore_label=ignore_label)

    def forward(self, x: Any) -> Any:
        return embed_id_module.embed_id(x, self.W, ignore_label=self.ignore_label)
