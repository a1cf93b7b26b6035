"""``cached_property``: a property computed once per object and backprop mode."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from kusari import configuration


class cached_property:
    """A read-only property whose value is computed once and kept.

    The value is kept separately for ``enable_backprop`` on and off: a value
    computed under ``no_backprop_mode`` has no graph, so reading the property
    with backprop on computes it again (once) rather than returning a
    Variable that cannot be differentiated.

    Args:
        func: The getter, called with the object.

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> from kusari.utils.cache import cached_property
        >>> class Doubler:
        ...     def __init__(self, x):
        ...         self.x = kusari.Variable(x)
        ...     @cached_property
        ...     def y(self):
        ...         return self.x * 2
        >>> d = Doubler(np.ones(2, np.float32))
        >>> d.y is d.y
        True
    """

    def __init__(self, func: Callable[[Any], Any]) -> None:
        # __name__, __doc__, ... of the getter, as functools.wraps gives.
        functools.update_wrapper(self, func)  # type: ignore[arg-type]
        self.func = func

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        if obj is None:
            return self
        # Kept in the object's __dict__ under the property's own name; this
        # class defines __set__, so the entry never shadows the descriptor.
        caches = obj.__dict__.setdefault(self.__name__, {})  # type: ignore[attr-defined]
        mode = bool(configuration.config.enable_backprop)
        if mode not in caches:
            caches[mode] = self.func(obj)
        return caches[mode]

    def __set__(self, obj: Any, value: Any) -> None:
        raise AttributeError(
            f"cached_property: attribute '{self.__name__}' of "  # type: ignore[attr-defined]
            f"{type(obj).__name__} is read-only"
        )
