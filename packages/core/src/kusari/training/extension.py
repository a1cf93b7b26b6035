"""Trainer extensions: callables run by the trainer at trigger times."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: Priority of extensions that write the observation (run first).
PRIORITY_WRITER = 300
#: Priority of extensions that edit the observation.
PRIORITY_EDITOR = 200
#: Priority of extensions that only read the observation (run last).
PRIORITY_READER = 100


class Extension:
    """Base class of trainer extensions.

    The trainer calls ``extension(trainer)`` whenever ``trigger`` fires;
    extensions with a higher ``priority`` run first.

    Attributes:
        trigger: Default trigger (``(1, 'iteration')``).
        priority: Default priority (:data:`PRIORITY_READER`).
        name: The name the trainer registered it under (set by ``extend``).
    """

    trigger: Any = (1, "iteration")
    priority: int = PRIORITY_READER
    name: str | None = None
    #: True for an extension whose ``initialize`` restores training state
    #: (an autoloading snapshot): the trainer initializes those first, so
    #: every other extension's ``initialize`` sees the restored state.
    restores_state: bool = False

    @property
    def default_name(self) -> str:
        """The name used when ``extend`` gets none: the class name."""
        return type(self).__name__

    def __call__(self, trainer: Any) -> Any:
        raise NotImplementedError

    def initialize(self, trainer: Any) -> None:
        """Called once before the training loop (also when resuming)."""

    def finalize(self) -> None:
        """Called once after the training loop, even on error."""

    def on_error(self, trainer: Any, exc: BaseException, tb: Any) -> None:
        """Called when the training loop raises ``exc``."""

    def serialize(self, serializer: Any) -> None:
        """Save or load the extension's state (nothing by default)."""


def make_extension(
    trigger: Any = None,
    default_name: str | None = None,
    priority: int | None = None,
    finalizer: Callable[..., Any] | None = None,
    initializer: Callable[..., Any] | None = None,
    on_error: Callable[..., Any] | None = None,
    **kwargs: Any,
) -> Callable[[Any], Any]:
    """Decorator turning a function ``f(trainer)`` into an extension.

    Args:
        trigger: Default trigger.
        default_name: Default name (the function's name by default).
        priority: Default priority.
        finalizer: Called after training.
        initializer: Called as ``initializer(trainer)`` before training.
        on_error: Called as ``on_error(trainer, exc, tb)`` on error.

    Example:
        >>> @make_extension(trigger=(1, 'epoch'))
        ... def hello(trainer):
        ...     pass
        >>> hello.trigger, hello.default_name, hello.priority
        ((1, 'epoch'), 'hello', 100)
    """
    if "invoke_before_training" in kwargs:
        # Removed in Chainer v2; Chainer 7 still names it in a ValueError.
        raise ValueError(
            "make_extension: invoke_before_training has been removed since "
            "Chainer v2.0.0; use initializer= instead"
        )
    if kwargs:
        raise TypeError(
            f"make_extension() got unexpected keyword arguments {sorted(kwargs)}"
        )
    if trigger is None:
        trigger = Extension.trigger
    if priority is None:
        priority = Extension.priority

    def decorator(ext: Any) -> Any:
        ext.trigger = trigger
        ext.default_name = default_name or ext.__name__
        ext.priority = priority
        ext.finalize = finalizer
        ext.on_error = on_error
        ext.initialize = initializer
        return ext

    return decorator
