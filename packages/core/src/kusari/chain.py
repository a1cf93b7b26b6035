"""Chain: a link that owns named child links (``kusari.Chain``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar

from kusari.link import Link

_C = TypeVar("_C", bound="Chain")


class Chain(Link):
    """A link that owns named child links.

    Children are registered by assigning links inside ``init_scope()``, by
    :meth:`add_link`, or as keyword arguments of the constructor. Paths of
    :meth:`~kusari.Link.namedparams` go through the child names.

    Args:
        links: Child links to register, by name.

    Example:
        >>> import kusari
        >>> class Net(kusari.Chain):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.body = kusari.Link()
        >>> print(Net())
        Net(
          (body): Link(),
        )
    """

    _children: set[str]

    def __init__(self, **links: Link) -> None:
        super().__init__()
        self._children = set()
        for name, link in links.items():
            self.add_link(name, link)

    def __getitem__(self, name: str) -> Any:
        """The attribute ``name`` (typically a child link)."""
        return getattr(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if self.within_init_scope and isinstance(value, Link):
            if "_children" not in self.__dict__:
                raise AttributeError(
                    f"cannot assign link {name!r} before Chain.__init__() call"
                )
            if hasattr(self, name):
                raise AttributeError(
                    f"cannot register a new link {name!r}: attribute exists"
                )
            value.name = name
            self._children.add(name)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self._children.discard(name)
        super().__delattr__(name)

    def add_link(self, name: str, link: Link) -> None:
        """Registers ``link`` as the child ``name``.

        Raises:
            AttributeError: If the chain already has an attribute ``name``.
            TypeError: If ``link`` is not a :class:`~kusari.Link`.
        """
        if name in self.__dict__:
            raise AttributeError(
                f"cannot register a new link {name!r}: attribute exists"
            )
        if not isinstance(link, Link):
            raise TypeError(
                "cannot register a non-link object as a child: "
                f"{name!r} is a {type(link).__name__}"
            )
        with self.init_scope():
            setattr(self, name, link)

    def _child_items(self) -> Iterator[tuple[str, Link]]:
        d = self.__dict__
        for name in sorted(self._children):
            yield name, d[name]

    def _get_child(self, name: str) -> Link:
        if name not in self._children:
            raise KeyError(f"{type(self).__name__} has no child link {name!r}")
        return self.__dict__[name]

    def _share(self: _C) -> _C:
        ret = super()._share()
        ret._children = set(self._children)
        d = ret.__dict__
        for name in ret._children:
            child = d[name].copy("share")
            child.name = name
            d[name] = child
        return ret
