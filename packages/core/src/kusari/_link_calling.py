"""Calling a link: its own hooks and ``__call__``, a base of :class:`~kusari.Link`."""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, TypeVar

from kusari import _link_impl, link_hook

_C = TypeVar("_C", bound="_LinkCalling")


class _LinkCalling:
    """Runs ``forward`` between the thread-wide and the link's own hooks.

    Only :class:`~kusari.Link` derives from it; ``Link.__init__`` sets
    ``_local_link_hooks`` to None (made a dict on first use).
    """

    _local_link_hooks: OrderedDict[str, link_hook.LinkHook] | None

    if TYPE_CHECKING:

        def _check_init_done(self) -> None: ...

    @property
    def local_link_hooks(self) -> OrderedDict[str, link_hook.LinkHook]:
        """Hooks registered on this link only, by name."""
        if self._local_link_hooks is None:
            self._local_link_hooks = OrderedDict()
        return self._local_link_hooks

    def add_hook(self: _C, hook: link_hook.LinkHook, name: str | None = None) -> _C:
        """Registers ``hook`` on this link (under ``name`` or ``hook.name``).

        Raises:
            TypeError: If ``hook`` is not a :class:`~kusari.LinkHook`.
            KeyError: If a hook with that name is already registered.
        """
        if not isinstance(hook, link_hook.LinkHook):
            raise TypeError(f"Hook must be of type LinkHook, got {type(hook).__name__}")
        key = hook.name if name is None else name
        hooks = self.local_link_hooks
        if key in hooks:
            raise KeyError(f"Hook {key!r} already exists")
        hooks[key] = hook
        hook.added(self)
        return self

    def delete_hook(self, name: str) -> None:
        """Unregisters the hook ``name``.

        Raises:
            KeyError: If no hook has that name.
        """
        hooks = self.local_link_hooks
        if name not in hooks:
            raise KeyError(f"Hook {name!r} does not exist")
        hooks.pop(name).deleted(self)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._check_init_done()
        forward = getattr(self, "forward", None)
        if forward is None:
            raise AttributeError(
                f"{type(self).__name__} has no forward method: define "
                "forward(self, ...) to make the link callable"
            )
        return _link_impl.call_with_hooks(
            self, forward, args, kwargs, self._local_link_hooks
        )
