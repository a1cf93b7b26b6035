"""Parameter construction shared by links."""

from __future__ import annotations

from typing import Any

from kusari import initializers, variable


def bias_parameter(shape: Any, initial_bias: Any = None) -> variable.Parameter:
    """A bias Parameter of ``shape``: ``initial_bias``, or zeros by default."""
    init = 0 if initial_bias is None else initial_bias
    return variable.Parameter(initializers._get_initializer(init), shape)
