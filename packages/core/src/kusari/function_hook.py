"""Function hooks: callbacks around every function's forward and backward."""

from __future__ import annotations

import collections
import threading
from typing import Any

_tls = threading.local()
# Number of hooks registered in any thread: lets FunctionNode.apply skip the
# thread-local lookup entirely in the common case of no hooks at all.
_n_registered = [0]


def get_function_hooks() -> collections.OrderedDict[str, FunctionHook]:
    """The function hooks active in this thread, by name."""
    hooks = getattr(_tls, "hooks", None)
    if hooks is None:
        hooks = _tls.hooks = collections.OrderedDict()
    return hooks


class FunctionHook:
    """Base class of function hooks.

    Use as a context manager to apply the hook to every function called
    inside the ``with`` block of this thread, or register it on one function
    with ``FunctionNode.add_hook``. Override the ``*_preprocess`` and
    ``*_postprocess`` methods.

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> import kusari.functions as F
        >>> class Count(kusari.FunctionHook):
        ...     n = 0
        ...     def forward_preprocess(self, function, in_data):
        ...         self.n += 1
        >>> with Count() as hook:
        ...     _ = F.relu(np.ones(3, dtype=np.float32))
        >>> hook.n
        1
    """

    name = "FunctionHook"

    def __enter__(self) -> FunctionHook:
        hooks = get_function_hooks()
        if self.name in hooks:
            raise KeyError(f"hook {self.name} already exists")
        hooks[self.name] = self
        _n_registered[0] += 1
        self.added(None)
        return self

    def __exit__(self, *args: Any) -> None:
        hooks = get_function_hooks()
        self.deleted(None)
        del hooks[self.name]
        _n_registered[0] -= 1

    def added(self, function: Any) -> None:
        """Called when the hook is registered (``function`` is None globally)."""

    def deleted(self, function: Any) -> None:
        """Called when the hook is unregistered."""

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        """Called before a function's forward."""

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        """Called after a function's forward."""

    def backward_preprocess(
        self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]
    ) -> None:
        """Called before a function's backward."""

    def backward_postprocess(
        self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]
    ) -> None:
        """Called after a function's backward."""
