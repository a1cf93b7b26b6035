"""ChainList: a link that owns a numbered list of child links (``kusari.ChainList``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar

from kusari.link import Link

_CL = TypeVar("_CL", bound="ChainList")


class ChainList(Link):
    """A link that owns an ordered list of child links named ``'0'``, ``'1'``...

    Args:
        links: Initial children, in order.

    Example:
        >>> import kusari
        >>> layers = kusari.ChainList(kusari.Link(), kusari.Link())
        >>> len(layers), layers[1].name
        (2, '1')
    """

    _children: list[Link]

    def __init__(self, *links: Link) -> None:
        super().__init__()
        self._children = []
        for link in links:
            self.add_link(link)

    def __setattr__(self, name: str, value: Any) -> None:
        if self.within_init_scope and isinstance(value, Link):
            raise TypeError(
                'cannot register a new link within a "with chainlist.init_scope():" '
                "block; use ChainList.add_link or append instead"
            )
        super().__setattr__(name, value)

    def __getitem__(self, index: Any) -> Any:
        """The child at ``index`` (a list of children for a slice)."""
        return self._children[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._children)

    def __len__(self) -> int:
        return len(self._children)

    def add_link(self, link: Link) -> None:
        """Appends ``link`` as the next child.

        Raises:
            TypeError: If ``link`` is not a :class:`~kusari.Link`.
        """
        if not isinstance(link, Link):
            raise TypeError(
                "cannot register a non-link object as a child of ChainList: "
                f"got {type(link).__name__}"
            )
        link.name = str(len(self._children))
        self._children.append(link)

    def append(self, link: Link) -> None:
        """Same as :meth:`add_link`."""
        self.add_link(link)

    def __setitem__(self, index: int, link: Link) -> None:
        """Replace the child at ``index`` (it takes the old one's name)."""
        if not isinstance(link, Link):
            raise TypeError(
                "cannot register a non-link object as a child of ChainList: "
                f"got {type(link).__name__}"
            )
        if not isinstance(index, int):
            raise TypeError(f"ChainList indices must be integers, got {index!r}")
        old = self._children[index]  # IndexError as a list gives
        link.name = old.name
        self._children[index] = link

    def __delitem__(self, index: Any) -> None:
        """Remove children; the ones after move up and are renamed to match."""
        del self._children[index]
        for i, child in enumerate(self._children):
            child.name = str(i)

    def __iadd__(self, other: Any) -> ChainList:
        """Append every link of ``other`` (a ChainList or a list of links)."""
        if not isinstance(other, (ChainList, list, tuple)):
            return NotImplemented
        for link in list(other):
            self.add_link(link)
        return self

    def _child_items(self) -> Iterator[tuple[str, Link]]:
        for index, child in enumerate(self._children):
            yield str(index), child

    def _get_child(self, name: str) -> Link:
        return self._children[int(name)]

    def _share(self: _CL) -> _CL:
        ret = super()._share()
        ret._children = []
        for index, child in enumerate(self._children):
            copied = child.copy("share")
            copied.name = str(index)
            ret._children.append(copied)
        return ret
