"""Path checks: nothing outside a registered project folder is ever served."""

from __future__ import annotations

import os
from pathlib import Path


def is_within(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """True if ``path`` resolves (symlinks followed) inside ``root``.

    Example:
        >>> is_within("/tmp", "/tmp/a/../b")
        True
        >>> is_within("/tmp", "/tmp/../etc/passwd")
        False
    """
    root_r = os.path.realpath(root)
    path_r = os.path.realpath(path)
    return path_r == root_r or path_r.startswith(root_r.rstrip(os.sep) + os.sep)


def resolve_inside(root: str | os.PathLike[str], *parts: str) -> Path | None:
    """Join ``parts`` onto ``root``; None if the result escapes ``root``.

    Example:
        >>> resolve_inside("/tmp", "..", "etc") is None
        True
    """
    for part in parts:
        if "\x00" in part or os.path.isabs(part):
            return None
    candidate = os.path.join(root, *parts)
    if not is_within(root, candidate):
        return None
    return Path(os.path.realpath(candidate))
