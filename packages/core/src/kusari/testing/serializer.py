"""Round-trip an object through a serializer: save one, load into another."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from typing import Any


def save_and_load(
    src: Any,
    dst: Any,
    filename: str,
    saver: Callable[[str, Any], Any],
    loader: Callable[[str, Any], Any],
) -> None:
    """Save ``src`` with ``saver`` to ``filename`` and load it into ``dst``."""
    saver(filename, src)
    loader(filename, dst)


def _round_trip(src: Any, dst: Any, suffix: str, saver: Any, loader: Any) -> None:
    fd, path = tempfile.mkstemp(suffix=suffix)
    os.close(fd)
    try:
        save_and_load(src, dst, path, saver, loader)
    finally:
        os.remove(path)


def save_and_load_npz(src: Any, dst: Any) -> None:
    """Round-trip through a temporary ``.npz`` file.

    Example:
        >>> import kusari.links as L
        >>> from kusari import testing
        >>> a, b = L.Linear(2, 3), L.Linear(2, 3)
        >>> testing.save_and_load_npz(a, b)
        >>> bool((a.W.array == b.W.array).all())
        True
    """
    from kusari import serializers

    _round_trip(src, dst, ".npz", serializers.save_npz, serializers.load_npz)


def save_and_load_hdf5(src: Any, dst: Any) -> None:
    """Round-trip through a temporary HDF5 file (needs h5py)."""
    from kusari import serializers

    _round_trip(src, dst, ".h5", serializers.save_hdf5, serializers.load_hdf5)
