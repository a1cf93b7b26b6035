"""HDF5 serialization through h5py (an optional dependency).

The object hierarchy maps onto HDF5 groups; ``None`` is stored as an empty
dataset (``h5py.Empty``), as Chainer does, so files are interchangeable.
"""

from __future__ import annotations

import os
from typing import Any

import numpy

from kusari import serializer
from kusari.utils.atomic import atomic_path


def _import_h5py(caller: str) -> Any:
    try:
        import h5py
    except ImportError as e:
        raise ImportError(
            f"{caller} needs h5py, which is not installed; install it with "
            "`pip install h5py` (or `pip install kusari[hdf5]`)"
        ) from e
    return h5py


def _is_cupy_array(value: Any) -> bool:
    return type(value).__module__.split(".")[0] == "cupy"


class HDF5Serializer(serializer.Serializer):
    """Serializer writing into an HDF5 group.

    Args:
        group: An open ``h5py.File`` or ``h5py.Group``.
        compression: gzip level for arrays with more than one element.

    Example:
        >>> import os, tempfile
        >>> import h5py, numpy as np
        >>> path = os.path.join(tempfile.mkdtemp(), 'x.h5')
        >>> with h5py.File(path, 'w') as f:
        ...     _ = HDF5Serializer(f)['l1']('W', np.ones(3))
        >>> with h5py.File(path, 'r') as f:
        ...     f['l1/W'].shape
        (3,)
    """

    def __init__(self, group: Any, compression: int = 4) -> None:
        self._h5py = _import_h5py("HDF5Serializer")
        self.group = group
        self.compression = compression

    def __repr__(self) -> str:
        return f"HDF5Serializer(group={self.group.name!r})"

    def __getitem__(self, key: str) -> HDF5Serializer:
        name = key.strip("/")
        return HDF5Serializer(self.group.require_group(name), self.compression)

    def __call__(self, key: str, value: Any) -> Any:
        if value is None:
            self.group.create_dataset(key, data=self._h5py.Empty("f"))
            return value
        arr = value.get() if _is_cupy_array(value) else numpy.asarray(value)
        if arr.dtype.hasobject:
            raise TypeError(
                f"HDF5Serializer: cannot save {key!r} under {self.group.name!r}: "
                f"{type(value).__name__} is not an array, number, bool or None"
            )
        if arr.dtype.kind == "U":
            # HDF5 has no fixed-width UCS4 type; UTF-8 bytes round-trip.
            arr = numpy.char.encode(arr, "utf-8")
        compression = None if arr.size <= 1 else self.compression
        self.group.create_dataset(key, data=arr, compression=compression)
        return value


def save_hdf5(filename: str | os.PathLike[str], obj: Any, compression: int = 4) -> None:
    """Save an object that supports ``serialize`` to an HDF5 file, atomically.

    Args:
        filename: Target path.
        obj: Object with a ``serialize(serializer)`` method.
        compression: gzip level used for arrays with more than one element.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> class Obj:
        ...     def __init__(self):
        ...         self.w = np.ones(2)
        ...     def serialize(self, s):
        ...         self.w = s('w', self.w)
        >>> save_hdf5(os.path.join(tempfile.mkdtemp(), 'o.h5'), Obj())
    """
    h5py = _import_h5py("save_hdf5")
    with atomic_path(filename) as tmp:
        with h5py.File(tmp, "w") as f:
            HDF5Serializer(f, compression=compression).save(obj)


class HDF5Deserializer(serializer.Deserializer):
    """Deserializer reading from an HDF5 group.

    Args:
        group: An open ``h5py.File`` or ``h5py.Group`` (``None`` stands for
            a missing group when ``strict`` is ``False``).
        strict: When ``True`` a missing key raises :class:`KeyError`;
            otherwise the value passed in is returned unchanged.

    Example:
        >>> import os, tempfile
        >>> import h5py, numpy as np
        >>> path = os.path.join(tempfile.mkdtemp(), 'x.h5')
        >>> with h5py.File(path, 'w') as f:
        ...     _ = f.create_dataset('n', data=4)
        >>> with h5py.File(path, 'r') as f:
        ...     HDF5Deserializer(f)('n', 0)
        4
    """

    def __init__(self, group: Any, strict: bool = True) -> None:
        _import_h5py("HDF5Deserializer")
        self.group = group
        self.strict = strict

    def __repr__(self) -> str:
        name = None if self.group is None else self.group.name
        return f"HDF5Deserializer(group={name!r}, strict={self.strict})"

    def _where(self) -> str:
        if self.group is None:
            return "<missing group>"
        return f"group {self.group.name!r} of {self.group.file.filename!r}"

    def __getitem__(self, key: str) -> HDF5Deserializer:
        name = key.strip("/")
        if self.group is None or name not in self.group:
            if self.strict:
                raise KeyError(
                    f"HDF5Deserializer: group {name!r} not found in {self._where()}"
                )
            return HDF5Deserializer(None, strict=False)
        return HDF5Deserializer(self.group[name], strict=self.strict)

    def __call__(self, key: str, value: Any) -> Any:
        if self.group is None or key not in self.group:
            if not self.strict:
                return value
            raise KeyError(
                f"HDF5Deserializer: key {key!r} not found in {self._where()}"
            )
        dataset = self.group[key]
        if dataset.shape is None:  # h5py.Empty: the value was None
            return None
        data = numpy.asarray(dataset[()])
        if data.dtype.kind == "S" and isinstance(value, str):
            return str(numpy.char.decode(data, "utf-8"))
        if value is None:
            return data
        if isinstance(value, numpy.ndarray):
            try:
                numpy.copyto(value, data)
            except (ValueError, TypeError) as e:
                raise ValueError(
                    f"HDF5Deserializer: cannot load {key!r} from {self._where()}: "
                    f"stored shape {data.shape}, target shape {value.shape}"
                ) from e
            return value
        if _is_cupy_array(value):
            value.set(numpy.asarray(data, dtype=value.dtype))
            return value
        return type(value)(data[()] if data.ndim == 0 else data)


def load_hdf5(filename: str | os.PathLike[str], obj: Any) -> None:
    """Load an object that supports ``serialize`` from an HDF5 file.

    Args:
        filename: Path of the file written by :func:`save_hdf5`.
        obj: Object with a ``serialize(serializer)`` method.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> class Obj:
        ...     def __init__(self, v):
        ...         self.w = np.full(2, v)
        ...     def serialize(self, s):
        ...         self.w = s('w', self.w)
        >>> path = os.path.join(tempfile.mkdtemp(), 'o.h5')
        >>> save_hdf5(path, Obj(2.0))
        >>> o = Obj(0.0)
        >>> load_hdf5(path, o)
        >>> o.w
        array([2., 2.])
    """
    h5py = _import_h5py("load_hdf5")
    name = os.fspath(filename)
    if not os.path.exists(name):
        raise FileNotFoundError(f"load_hdf5: no such file: {name!r}")
    try:
        f = h5py.File(name, "r")
    except OSError as e:
        raise ValueError(
            f"load_hdf5: {name!r} is not a readable HDF5 file (truncated, corrupt "
            f"or another format): {e}"
        ) from e
    with f:
        HDF5Deserializer(f).load(obj)
