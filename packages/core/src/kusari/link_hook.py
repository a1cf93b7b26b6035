"""Hooks run around :meth:`Link.forward`.

Example:
    >>> import kusari
    >>> class Trace(LinkHook):
    ...     name = 'Trace'
    ...     def forward_preprocess(self, args):
    ...         print('calling', type(args.link).__name__)
    >>> class Twice(kusari.Link):
    ...     def forward(self, x):
    ...         return 2 * x
    >>> link = Twice().add_hook(Trace())
    >>> link(3)
    calling Twice
    6
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from typing import Any


@dataclasses.dataclass
class _ForwardPreprocessCallbackArgs:
    """What :meth:`LinkHook.forward_preprocess` receives."""

    link: Any
    forward_name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


@dataclasses.dataclass
class _ForwardPostprocessCallbackArgs:
    """What :meth:`LinkHook.forward_postprocess` receives."""

    link: Any
    forward_name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    out: Any


class _GlobalHooks(threading.local):
    def __init__(self) -> None:
        self.hooks: OrderedDict[str, LinkHook] = OrderedDict()


_global_hooks = _GlobalHooks()


def _get_link_hooks() -> OrderedDict[str, LinkHook]:
    """The hooks enabled for every link in this thread by ``with hook:``."""
    return _global_hooks.hooks


class LinkHook:
    """Base of hooks that observe or alter calls of links.

    Register one on a link with :meth:`kusari.Link.add_hook`, or for every
    link in the current thread with ``with hook:``. Override the callbacks
    you need; the defaults do nothing.

    Attributes:
        name: Key of the hook in the registries; subclasses set their own.

    Example:
        >>> hook = LinkHook()
        >>> with hook:
        ...     pass
    """

    name: str = "LinkHook"

    def __enter__(self) -> LinkHook:
        hooks = _get_link_hooks()
        if self.name in hooks:
            raise KeyError(f"hook {self.name!r} already exists")
        hooks[self.name] = self
        self.added(None)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.deleted(None)
        del _get_link_hooks()[self.name]

    def added(self, link: Any) -> None:
        """Called when the hook is registered.

        Args:
            link: The link it was added to, or ``None`` for ``with hook:``.
        """

    def deleted(self, link: Any) -> None:
        """Called when the hook is unregistered.

        Args:
            link: The link it was removed from, or ``None`` for ``with hook:``.
        """

    def forward_preprocess(self, args: _ForwardPreprocessCallbackArgs) -> None:
        """Called before the link's forward method.

        Args:
            args: Has ``link``, ``forward_name``, ``args`` and ``kwargs``.
        """

    def forward_postprocess(self, args: _ForwardPostprocessCallbackArgs) -> None:
        """Called after the link's forward method.

        Args:
            args: Like the preprocess one, plus ``out``, the forward's result.
        """
