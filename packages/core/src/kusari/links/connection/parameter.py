"""A link that holds one array as a parameter (``Parameter``)."""

from __future__ import annotations

from typing import Any

from kusari import backend, link, variable
from kusari.functions.math import identity as identity_module


class Parameter(link.Link):
    """Link that holds an array as its parameter ``W`` and returns it.

    Args:
        array: Initial value of the parameter (shared, not copied; its shape
            and dtype are kept).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> p = L.Parameter(np.arange(3, dtype=np.float64))
        >>> p().array
        array([0., 1., 2.])
    """

    def __init__(self, array: Any) -> None:
        super().__init__()
        array = getattr(array, "array", array)
        with self.init_scope():
            self.W = variable.Parameter(array)
        device = backend.get_device_from_array(array)
        if not isinstance(device, backend.CpuDevice):
            self.to_device(device)

    def forward(self, volatile: Any = "off") -> Any:
        """Return ``W`` through an identity function (``volatile`` is ignored)."""
        return identity_module.identity(self.W)
