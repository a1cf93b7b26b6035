"""HDF5 serialization through h5py (an optional dependency).

The object hierarchy maps onto HDF5 groups; ``None`` is stored as an empty
dataset (``h5py.Empty``), as Chainer does, so files are interchangeable.
Strings are stored as UTF-8 HDF5 strings. As with NPZ files, a group that
holds nothing need not exist in the file: only a missing *value* is an error.
"""

from __future__ import annotations

import os
from typing import Any

import numpy

from kusari import serializer
from kusari.serializers._array_checks import check_target
from kusari.serializers.npz import NONE_DTYPE
from kusari.utils.atomic import atomic_path

#: Datasets up to this size are read without comparing them with their storage.
_UNCHECKED_BYTES = 1 << 20
#: gzip (DEFLATE) cannot expand data by more than about 1032:1.
_MAX_GZIP_RATIO = 1100


class _H5pyMissingError(ImportError, RuntimeError):
    """h5py cannot be imported.

    An ``ImportError`` by nature, and a ``RuntimeError`` because that is what
    Chainer raises here and what Chainer-era code catches.
    """


def _import_h5py(caller: str) -> Any:
    try:
        import h5py
    except ImportError as e:
        raise _H5pyMissingError(
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
        # A leading "/" would make h5py resolve the key from the file's root.
        name = key.lstrip("/")
        arr = None if value is None else _to_array(value)
        if arr is None or arr.dtype == NONE_DTYPE:
            # None, or the NPZ stand-in for None that a snapshot's flat dict
            # (npz.serialize) holds.
            self.group.create_dataset(name, data=self._h5py.Empty("f"))
            return value
        if arr.dtype.hasobject:
            raise TypeError(
                f"HDF5Serializer: cannot save {key!r} under {self.group.name!r}: "
                f"{type(value).__name__} is not an array, number, bool, str or None"
            )
        if arr.dtype.kind == "U":
            # HDF5 has no UCS4 strings: store UTF-8, tagged as such so that
            # loading gives str back (and other HDF5 tools read it as text).
            encoded = numpy.char.encode(arr, "utf-8")
            arr = encoded.astype(self._h5py.string_dtype("utf-8", encoded.itemsize))
        compression = None if arr.size <= 1 else self.compression
        self.group.create_dataset(name, data=arr, compression=compression)
        return value


def _to_array(value: Any) -> numpy.ndarray:
    return value.get() if _is_cupy_array(value) else numpy.asarray(value)


class _Items:
    """A dict of values, replayed through the serialize protocol."""

    def __init__(self, items: dict[str, Any]) -> None:
        for key in items:
            if not isinstance(key, str):
                raise TypeError(
                    f"save_hdf5: the keys of a dict must be str, got {key!r} "
                    f"({type(key).__name__})"
                )
        self.items = items

    def serialize(self, s: serializer.AbstractSerializer) -> None:
        for key, value in self.items.items():
            s(key, value)


def save_hdf5(filename: str | os.PathLike[str], obj: Any, compression: int = 4) -> None:
    """Save an object that supports ``serialize``, or a dict of arrays, to an
    HDF5 file, atomically.

    A dict (such as :func:`kusari.serializers.npz.serialize` returns) is
    written as is: its ``'/'``-joined keys become datasets in nested groups.

    Args:
        filename: Target path.
        obj: Object with a ``serialize(serializer)`` method, or a ``dict``
            mapping keys to arrays, numbers, bools, strs or ``None``.
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
    if isinstance(obj, dict):
        obj = _Items(obj)
    with atomic_path(filename) as tmp:
        with h5py.File(tmp, "w") as f:
            HDF5Serializer(f, compression=compression).save(obj)


class HDF5Deserializer(serializer.Deserializer):
    """Deserializer reading from an HDF5 group.

    A child group missing from the file is not an error by itself (objects
    that save nothing leave no group behind, as in NPZ files); reading a
    value from it is, when ``strict``.

    Args:
        group: An open ``h5py.File`` or ``h5py.Group`` (``None`` stands for
            a group that the file lacks).
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
        self._h5py = _import_h5py("HDF5Deserializer")
        self.group = group
        self.strict = strict
        # Where a missing group would have been, for error messages.
        self._path = "" if group is None else group.name.rstrip("/")
        self._filename = None if group is None else group.file.filename

    def __repr__(self) -> str:
        return f"HDF5Deserializer(group={self._path or '/'!r}, strict={self.strict})"

    def _where(self) -> str:
        missing = " (missing)" if self.group is None else ""
        return f"group {self._path or '/'!r}{missing} of {self._filename!r}"

    def __getitem__(self, key: str) -> HDF5Deserializer:
        name = key.strip("/")
        group = self.group
        child = group[name] if group is not None and name in group else None
        if child is not None and not isinstance(child, self._h5py.Group):
            raise KeyError(
                f"HDF5Deserializer: {name!r} in {self._where()} is a dataset, "
                "not a group"
            )
        sub = HDF5Deserializer(child, strict=self.strict)
        if child is None:
            sub._path = f"{self._path}/{name}"
            sub._filename = self._filename
        return sub

    def _check_storage(self, key: str, dataset: Any) -> None:
        """Refuse a dataset that declares far more bytes than the file holds
        for it (never written, or a forged shape): reading it would allocate
        the declared size and fill it with the fill value."""
        declared = dataset.size * dataset.dtype.itemsize
        if declared <= _UNCHECKED_BYTES or dataset.dtype.kind == "O":
            return  # small, or variable-length data kept outside the dataset
        if getattr(dataset, "is_virtual", False) or dataset.external:
            return  # the data lives in other files
        if dataset.compression == "gzip":
            ratio = _MAX_GZIP_RATIO
        elif (
            dataset.compression is None
            and not dataset.id.get_create_plist().get_nfilters()
        ):
            ratio = 1
        else:
            return  # other filters: no known bound on the ratio
        stored = dataset.id.get_storage_size()
        if declared > stored * ratio:
            raise ValueError(
                f"HDF5Deserializer: {key!r} in {self._where()} declares shape "
                f"{tuple(dataset.shape)} dtype {dataset.dtype} ({declared} bytes) "
                f"but the file stores only {stored} bytes for it (never written, "
                "truncated or forged)"
            )

    def _read(self, key: str, dataset: Any, value: Any) -> numpy.ndarray:
        """Read ``dataset`` once its declared shape and dtype fit ``value``.

        The declarations come from the dataset object, so a file that
        declares a huge or mismatched array is refused before anything is
        allocated for it.
        """
        shape, dtype = tuple(dataset.shape), dataset.dtype
        if dtype != NONE_DTYPE:
            check_target(
                "HDF5Deserializer",
                key,
                self._where(),
                shape,
                dtype,
                value,
                _is_cupy_array(value),
            )
        self._check_storage(key, dataset)
        try:
            return numpy.asarray(dataset[()])
        except MemoryError as e:
            raise ValueError(
                f"HDF5Deserializer: {key!r} in {self._where()} declares shape "
                f"{shape} dtype {dtype} ({dataset.size * dtype.itemsize} bytes), "
                "too large to load into memory"
            ) from e
        except OSError as e:  # h5py's message names neither the key nor file
            raise ValueError(
                f"HDF5Deserializer: cannot read {key!r} from {self._where()}: the "
                f"file is truncated or corrupt ({e})"
            ) from e

    def __call__(self, key: str, value: Any) -> Any:
        name = key.lstrip("/")
        if self.group is None or name not in self.group:
            if not self.strict:
                return value
            raise KeyError(
                f"HDF5Deserializer: key {key!r} not found in {self._where()}"
            )
        dataset = self.group[name]
        if not isinstance(dataset, self._h5py.Dataset):
            raise KeyError(
                f"HDF5Deserializer: {key!r} in {self._where()} is a group, not a "
                "dataset"
            )
        if dataset.shape is None:  # h5py.Empty: the value was None
            return None
        data = self._read(key, dataset, value)
        if data.dtype == NONE_DTYPE:  # written by an older kusari
            return None
        if data.dtype.kind == "S":
            info = self._h5py.check_string_dtype(dataset.dtype)
            # Text is tagged UTF-8; plain bytes become str only for a str target.
            if (info is not None and info.encoding == "utf-8") or isinstance(
                value, str
            ):
                data = numpy.char.decode(data, "utf-8")
        if value is None:
            return data
        if isinstance(value, numpy.ndarray):
            try:
                numpy.copyto(value, data)
            except (ValueError, TypeError) as e:
                raise ValueError(
                    f"HDF5Deserializer: cannot load {key!r} from {self._where()}: "
                    f"stored shape {data.shape} dtype {data.dtype}, target shape "
                    f"{value.shape} dtype {value.dtype}"
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

    Raises:
        ValueError: The file is not readable HDF5, a dataset cannot be read,
            declares more bytes than the file stores for it, or its shape or
            dtype does not fit the value it loads into (checked from the
            dataset's metadata, before its data is read).
        KeyError: A value is missing, or a group stands where a value should.
        TypeError: A stored array does not fit a Python scalar target.

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


def __getattr__(name: str) -> Any:
    # ``_available``: Chainer's flag, read by Chainer-style code and tests to
    # skip HDF5 work. Computed on access so that importing this module does
    # not import h5py.
    if name == "_available":
        try:
            import h5py  # noqa: F401
        except ImportError:
            return False
        return True
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
