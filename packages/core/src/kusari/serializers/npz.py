"""NPZ (zipped NumPy arrays) serialization, compatible with Chainer's files.

Keys are ``'/'``-joined paths such as ``predictor/l1/W``. Nothing is ever
unpickled: files are opened with ``allow_pickle=False``. Chainer stores
``None`` as a pickled 0-d object array; kusari stores it as a 0-d array of a
one-field structured dtype instead (see :data:`NONE_DTYPE`), and recognises
Chainer's pickled ``None`` by parsing, never executing, its pickle opcodes.

Loading reads each member's ``.npy`` header first and checks the declared
shape and dtype against the member's byte count and against the value being
loaded into, so a truncated, forged or mismatched member is reported (with
the file and key) before any memory is allocated for it.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Callable, Iterable, Mapping
from typing import IO, Any

import numpy

from kusari import serializer
from kusari.serializers import _array_checks as _checks
from kusari.serializers._pickled_none import _is_pickled_none
from kusari.serializers._pickled_none import (
    _pickle_holds_only_none as _pickle_holds_only_none,  # re-exported
)
from kusari.utils.atomic import atomic_write

#: The dtype of the array that stands for ``None`` in kusari's NPZ files.
#: A structured dtype needs no pickle, and no real parameter uses it.
NONE_DTYPE = numpy.dtype([("__kusari_none__", "u1")])

IgnoreName = str | Callable[[str], bool]
IgnoreNames = IgnoreName | Iterable[IgnoreName] | None
FileLike = str | os.PathLike[str] | IO[bytes]


def _none_array() -> numpy.ndarray:
    return numpy.zeros((), dtype=NONE_DTYPE)


def _is_none_array(arr: Any) -> bool:
    return isinstance(arr, numpy.ndarray) and arr.dtype == NONE_DTYPE


def _is_cupy_array(value: Any) -> bool:
    # Checked by duck typing so that CuPy is never imported here.
    return type(value).__module__.split(".")[0] == "cupy"


def _describe_npz(npz: Any) -> str:
    name = getattr(getattr(npz, "zip", None), "filename", None)
    return repr(name) if name else "<in-memory npz>"


class DictionarySerializer(serializer.Serializer):
    """Serializer that flattens an object hierarchy into a dict of arrays.

    The resulting :attr:`target` can be passed to :func:`numpy.savez`.

    Args:
        target: The dictionary to fill; a new one when ``None``.
        path: Prefix of every key, e.g. ``'updater/'``.

    Example:
        >>> import numpy as np
        >>> s = DictionarySerializer()
        >>> _ = s['l1']('W', np.ones(2, dtype=np.float32))
        >>> sorted(s.target)
        ['l1/W']
    """

    def __init__(self, target: dict[str, Any] | None = None, path: str = "") -> None:
        self.target: dict[str, Any] = {} if target is None else target
        self.path = path

    def __repr__(self) -> str:
        return f"DictionarySerializer(path={self.path!r}, keys={len(self.target)})"

    def __getitem__(self, key: str) -> DictionarySerializer:
        key = key.strip("/")
        return DictionarySerializer(self.target, self.path + key + "/")

    def __call__(self, key: str, value: Any) -> Any:
        full_key = self.path + key.lstrip("/")
        self.target[full_key] = _to_saved_array("DictionarySerializer", full_key, value)
        return value


def _to_saved_array(who: str, key: str, value: Any) -> numpy.ndarray:
    """The pickle-free NumPy array that stands for ``value`` in an NPZ file."""
    if value is None:
        arr = _none_array()
    elif _is_cupy_array(value):
        arr = value.get()
    else:
        arr = numpy.asarray(value)
    if arr.dtype.hasobject:
        raise TypeError(
            f"{who}: cannot save {key!r}: a value of type "
            f"{type(value).__name__} becomes an object array, which would "
            "need pickle; expected an array, a number, a bool, a str or None"
        )
    return arr


def serialize(obj: Any) -> dict[str, Any]:
    """Serialize an object into a flat dict of arrays.

    This is the :attr:`DictionarySerializer.target` after saving ``obj``;
    :func:`save_npz` writes such a dict as is. The arrays may share memory
    with ``obj`` (copy them to keep this moment's values).

    Args:
        obj: Object with a ``serialize(serializer)`` method (e.g. a Link).

    Returns:
        dict: ``{'/'-joined key: numpy.ndarray}``.

    Example:
        >>> import numpy as np
        >>> class Obj:
        ...     def __init__(self):
        ...         self.w = np.zeros(2)
        ...         self.t = 3
        ...     def serialize(self, s):
        ...         self.w = s['sub']('w', self.w)
        ...         self.t = s('t', self.t)
        >>> d = serialize(Obj())
        >>> sorted(d)
        ['sub/w', 't']
        >>> d['t']
        array(3)
    """
    s = DictionarySerializer()
    s.save(obj)
    return s.target


def _npz_members(obj: Any) -> dict[str, numpy.ndarray]:
    if not isinstance(obj, dict):
        return serialize(obj)
    members = {}
    for key, value in obj.items():
        if not isinstance(key, str):
            raise TypeError(
                f"save_npz: the keys of a dict must be str, got {key!r} "
                f"({type(key).__name__})"
            )
        members[key] = _to_saved_array("save_npz", key, value)
    return members


def save_npz(file: FileLike, obj: Any, compression: bool = True) -> None:
    """Save an object that supports ``serialize``, or a dict of arrays, to an
    NPZ file.

    A dict (such as the one :func:`serialize` returns, which Chainer's
    snapshot extension hands to its ``savefun``) is written as is: its keys
    become the file's keys. Its values may be arrays, numbers, bools, strs
    or ``None``; nothing is pickled.

    A path is written atomically: a temporary file in the same directory is
    renamed over ``file`` only once it is complete.

    Args:
        file: Target path or a binary file object opened for writing.
        obj: Object with a ``serialize(serializer)`` method (e.g. a Link),
            or a ``dict`` mapping keys to arrays.
        compression: Compress the zip members (``numpy.savez_compressed``).

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> class Obj:
        ...     def __init__(self):
        ...         self.w = np.zeros(3)
        ...     def serialize(self, s):
        ...         self.w = s('w', self.w)
        >>> path = os.path.join(tempfile.mkdtemp(), 'obj.npz')
        >>> save_npz(path, Obj())
        >>> sorted(np.load(path).files)
        ['w']
        >>> save_npz(path, {'l1/W': np.ones(2), 'epoch': 3})
        >>> sorted(np.load(path).files)
        ['epoch', 'l1/W']
    """
    members = _npz_members(obj)
    if isinstance(file, (str, os.PathLike)):
        with atomic_write(file, "wb") as f:
            _write_npz(f, members, compression)
    else:
        _write_npz(file, members, compression)


def _write_npz(
    f: IO[bytes], members: Mapping[str, numpy.ndarray], compression: bool
) -> None:
    """Write ``members`` as an NPZ archive: one ``<key>.npy`` zip member each.

    ``numpy.savez`` takes the arrays as keyword arguments, so keys such as
    ``file`` or ``allow_pickle`` would clash with its own parameters; the
    archive is built here instead, in the same layout numpy writes.
    """
    method = zipfile.ZIP_DEFLATED if compression else zipfile.ZIP_STORED
    with zipfile.ZipFile(f, mode="w", compression=method, allowZip64=True) as zf:
        for key, arr in members.items():
            # force_zip64: the member size is unknown before it is written.
            with zf.open(key + ".npy", "w", force_zip64=True) as member:
                numpy.lib.format.write_array(member, arr, allow_pickle=False)


_ZIP_ERRORS = _checks.ZIP_ERRORS


def _unreadable(key: str, where: str, e: BaseException) -> ValueError:
    return ValueError(
        f"NpzDeserializer: cannot read {key!r} from {where}: the file is "
        f"truncated or corrupt ({type(e).__name__}: {e})"
    )


class NpzDeserializer(serializer.Deserializer):
    """Deserializer reading from an NPZ archive (or any mapping of arrays).

    Args:
        npz: The object returned by ``numpy.load`` on an NPZ file, or a dict.
        path: Prefix of every key, e.g. ``'updater/model:main/'``.
        strict: When ``True`` a missing key raises :class:`KeyError`;
            otherwise the value passed in is returned unchanged.
        ignore_names: Keys (full paths) to skip: a string, a predicate
            ``f(key) -> bool``, or a list of those.

    Example:
        >>> import numpy as np
        >>> d = NpzDeserializer({'l1/W': np.arange(3.0)})
        >>> w = np.zeros(3)
        >>> _ = d['l1']('W', w)
        >>> w
        array([0., 1., 2.])
    """

    def __init__(
        self,
        npz: Mapping[str, Any] | Any,
        path: str = "",
        strict: bool = True,
        ignore_names: IgnoreNames = None,
    ) -> None:
        self.npz = npz
        self.path = path
        self.strict = strict
        if ignore_names is None:
            names: list[IgnoreName] = []
        elif isinstance(ignore_names, str) or callable(ignore_names):
            names = [ignore_names]
        else:
            names = list(ignore_names)
        for name in names:
            if not (isinstance(name, str) or callable(name)):
                raise TypeError(
                    "NpzDeserializer: ignore_names must hold strings or callables, "
                    f"got {type(name).__name__}"
                )
        self.ignore_names = names

    def __repr__(self) -> str:
        return (
            f"NpzDeserializer(file={_describe_npz(self.npz)}, path={self.path!r}, "
            f"strict={self.strict})"
        )

    def __getitem__(self, key: str) -> NpzDeserializer:
        key = key.strip("/")
        return NpzDeserializer(
            self.npz,
            self.path + key + "/",
            strict=self.strict,
            ignore_names=self.ignore_names,
        )

    def _ignored(self, key: str) -> bool:
        for name in self.ignore_names:
            if isinstance(name, str) and name == key:
                return True
            if callable(name) and name(key):
                return True
        return False

    def _read(self, key: str, value: Any = None) -> numpy.ndarray | None:
        zf = getattr(self.npz, "zip", None)
        if not isinstance(zf, zipfile.ZipFile):  # a mapping of arrays in memory
            arr = numpy.asarray(self.npz[key])
            return None if _is_none_array(arr) else arr
        where = _describe_npz(self.npz)
        try:
            member = self._read_member(zf, key, where, value)
        except _checks.NpyFormatError as e:
            raise ValueError(f"NpzDeserializer: {e}") from None
        except _ZIP_ERRORS as e:
            raise _unreadable(key, where, e) from e
        if member is None:
            # numpy refuses object arrays without pickle; Chainer saved None so.
            if _is_pickled_none(self.npz, key):
                return None
            raise ValueError(
                f"NpzDeserializer: {key!r} in {where} holds a pickled object; "
                "kusari never unpickles (allow_pickle=False)"
            )
        return None if _is_none_array(member) else member

    def _read_member(
        self, zf: zipfile.ZipFile, key: str, where: str, value: Any
    ) -> numpy.ndarray | None:
        """Read ``key``'s ``.npy`` member in one pass: its header first, which
        is checked against the member's size and against ``value`` before
        anything is allocated for the data. None means a pickled object."""
        info = zf.getinfo(_checks.member_name(zf, key))
        with zf.open(info) as f:
            header = _checks.read_npy_header(f, info, key, where)
            if header.dtype.hasobject:
                return None
            _checks.check_npy_member(header, key, where, getattr(zf, "start_dir", None))
            if header.dtype != NONE_DTYPE:
                _checks.check_target(
                    "NpzDeserializer",
                    key,
                    where,
                    header.shape,
                    header.dtype,
                    value,
                    _is_cupy_array(value),
                )
            return _checks.read_npy_data(f, header, key, where)

    def __call__(self, key: str, value: Any) -> Any:
        full_key = self.path + key.lstrip("/")
        if self._ignored(full_key):
            return value
        if full_key not in self.npz:
            if not self.strict:
                return value
            raise KeyError(
                f"NpzDeserializer: key {key!r} not found at path {full_key!r} "
                f"in {_describe_npz(self.npz)}"
            )
        data = self._read(full_key, value)
        if data is None:
            return None
        if value is None:
            return data
        if isinstance(value, numpy.ndarray):
            try:
                numpy.copyto(value, data)
            except (ValueError, TypeError) as e:
                raise ValueError(
                    f"NpzDeserializer: cannot load {full_key!r} from "
                    f"{_describe_npz(self.npz)}: stored shape {data.shape} "
                    f"dtype {data.dtype}, target shape {value.shape} dtype "
                    f"{value.dtype}"
                ) from e
            return value
        if _is_cupy_array(value):
            if data.shape != value.shape:
                raise ValueError(
                    f"NpzDeserializer: cannot load {full_key!r}: stored shape "
                    f"{data.shape}, target shape {value.shape}"
                )
            value.set(numpy.asarray(data, dtype=value.dtype))
            return value
        return _to_python_type(full_key, data, value)


def _to_python_type(key: str, data: numpy.ndarray, value: Any) -> Any:
    value_type = type(value)
    kind = data.dtype.type
    # int(numpy.int64) is exact, so integer into int is always safe even though
    # numpy.can_cast(int64, int) says otherwise.
    safe_int = issubclass(kind, numpy.integer) and value_type is int
    if (
        issubclass(kind, numpy.number)
        and not safe_int
        and not numpy.can_cast(data.dtype, value_type)
    ):
        raise TypeError(
            f"NpzDeserializer: cannot safely load {key!r} stored with dtype "
            f"{data.dtype} into a value of type {value_type.__name__}"
        )
    if data.ndim != 0 and value_type in (int, float, bool, complex):
        raise TypeError(
            f"NpzDeserializer: {key!r} has shape {data.shape} but the target is "
            f"a {value_type.__name__} scalar"
        )
    return value_type(data[()] if data.ndim == 0 else data)


def load_npz(
    file: FileLike,
    obj: Any,
    path: str = "",
    strict: bool = True,
    ignore_names: IgnoreNames = None,
) -> None:
    """Load an object that supports ``serialize`` from an NPZ file.

    Args:
        file: Path or binary file object of the NPZ file.
        obj: Object with a ``serialize(serializer)`` method.
        path: Sub-tree of the file to read, e.g. ``'updater/model:main/'``
            to load a model out of a trainer snapshot.
        strict: Raise :class:`KeyError` for keys missing from the file.
        ignore_names: Full keys (or predicates on them) to skip.

    Raises:
        ValueError: The file is not a readable NPZ archive, a member is
            truncated, corrupt, forged or pickled, or its stored shape or
            dtype does not fit the value it loads into. Nothing is allocated
            for a member before its header passed these checks.
        KeyError: A key is missing and ``strict`` is True.
        TypeError: A stored array does not fit a Python scalar target.
        OSError: The file cannot be opened.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> class Obj:
        ...     def __init__(self, v):
        ...         self.w = np.full(2, v)
        ...     def serialize(self, s):
        ...         self.w = s('w', self.w)
        >>> path = os.path.join(tempfile.mkdtemp(), 'obj.npz')
        >>> save_npz(path, Obj(3.0))
        >>> o = Obj(0.0)
        >>> load_npz(path, o)
        >>> o.w
        array([3., 3.])
    """
    if path and not path.endswith("/"):
        path += "/"
    if isinstance(file, (str, os.PathLike)):
        # Opened here so that the handle is closed even when numpy.load fails.
        with open(file, "rb") as f:
            _load_npz_from(f, os.fspath(file), obj, path, strict, ignore_names)
    else:
        _load_npz_from(file, repr(file), obj, path, strict, ignore_names)


def _load_npz_from(
    f: IO[bytes],
    name: str,
    obj: Any,
    path: str,
    strict: bool,
    ignore_names: IgnoreNames,
) -> None:
    try:
        npz = numpy.load(f, allow_pickle=False)
    except (ValueError, *_ZIP_ERRORS) as e:
        raise ValueError(
            f"load_npz: {name} is not a readable NPZ file (truncated, corrupt or "
            f"another format): {e}"
        ) from e
    if not isinstance(npz, numpy.lib.npyio.NpzFile):
        raise ValueError(
            f"load_npz: {name} holds a single .npy array, expected an NPZ archive "
            "written by save_npz"
        )
    with npz:
        deserializer = NpzDeserializer(
            npz, path=path, strict=strict, ignore_names=ignore_names
        )
        deserializer.load(obj)
