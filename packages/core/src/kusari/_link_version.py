"""The process-wide parameter-set version behind ``Link.param_set_version``.

:mod:`kusari.link` moves it whenever a link gains, loses or replaces a
parameter or a child link; :class:`_ChildList` moves it on every in-place
change of a ChainList's (or a Sequential's) children.
"""

from __future__ import annotations

from typing import Any

# In a list so that moving it is one item assignment, without a ``global``
# statement.
_param_set_version = [0]


def _bump_param_set_version() -> None:
    _param_set_version[0] += 1


class _ChildList(list):
    """The list of a ChainList's (or a Sequential's) child links: changing it
    in place moves :attr:`Link.param_set_version`."""

    __slots__ = ()
    # Pickles of a ChainList name this class kusari.link._ChildList (where it
    # was defined first); kusari.link imports it, so that name still resolves.
    __module__ = "kusari.link"


def _bumping(method_name: str) -> Any:
    method = getattr(list, method_name)

    def changed(self: _ChildList, *args: Any, **kwargs: Any) -> Any:
        _bump_param_set_version()
        return method(self, *args, **kwargs)

    changed.__name__ = method_name
    return changed


for _method_name in (
    "__setitem__",
    "__delitem__",
    "__iadd__",
    "__imul__",
    "append",
    "extend",
    "insert",
    "pop",
    "remove",
    "clear",
    "sort",
    "reverse",
):
    setattr(_ChildList, _method_name, _bumping(_method_name))
