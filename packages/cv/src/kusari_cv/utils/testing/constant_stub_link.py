"""A link that returns fixed arrays, for testing code that calls links."""

from __future__ import annotations

from typing import Any

import numpy as np

import kusari
from kusari_cv._typing import Array


class ConstantStubLink(kusari.Link):
    """A :class:`kusari.Link` whose ``forward`` ignores its inputs and returns
    constant Variables (on the link's device).

    Args:
        outputs: An array or a tuple of arrays to return.
    """

    def __init__(self, outputs: Array | tuple[Array, ...]) -> None:
        super().__init__()
        self._tuple = isinstance(outputs, tuple)
        values = outputs if isinstance(outputs, tuple) else (outputs,)
        for v in values:
            if kusari.backend.get_array_module(v) is np and not isinstance(
                v, np.ndarray
            ):
                raise ValueError(
                    "ConstantStubLink: outputs must be arrays or a tuple of "
                    f"arrays, got {type(v).__name__}"
                )
        self._outputs = [
            np.asarray(v) if isinstance(v, np.ndarray) else v for v in values
        ]

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        out = tuple(kusari.Variable(self.device.send(v)) for v in self._outputs)
        return out if self._tuple else out[0]
