"""Checks on a stored array's declared shape, dtype and size, run *before* its
data is read, so that a broken or hostile file is reported instead of making
the loader allocate whatever the file declares.

Two sources of declarations are read here without touching the data: the
``.npy`` header of an NPZ zip member (parsed as a literal, never executed) and
an HDF5 dataset's ``shape``/``dtype``. Both are compared with the value being
loaded into (:func:`check_target`); the NPZ header is also compared with the
byte counts of the zip member and of the archive (:func:`check_npy_member`).
"""

from __future__ import annotations

import ast
import dataclasses
import math
import struct
import zipfile
import zlib
from typing import IO, Any

import numpy

_NPY_MAGIC = b"\x93NUMPY"
#: The longest ``.npy`` header accepted (numpy's own default limit).
MAX_HEADER_BYTES = 10000
#: DEFLATE cannot expand data by more than about 1032:1; a member declaring
#: a larger ratio has a forged size field.
_MAX_DEFLATE_RATIO = 1100
_LOCAL_HEADER_BYTES = 30  # the fixed part of a zip local file header
_READ_CHUNK = 1 << 20


class NpyFormatError(ValueError):
    """A ``.npy`` member is malformed, truncated or implausibly large."""


@dataclasses.dataclass(frozen=True)
class NpyHeader:
    """What a ``.npy`` zip member declares, and what its zip entry says."""

    member: str
    shape: tuple[int, ...]
    dtype: numpy.dtype
    fortran_order: bool
    header_bytes: int
    member_bytes: int
    compressed_bytes: int
    compress_type: int
    header_offset: int

    @property
    def data_bytes(self) -> int:
        """Bytes the declared shape and dtype need (a Python int: no overflow)."""
        return math.prod(self.shape) * self.dtype.itemsize

    def describe(self) -> str:
        return f"shape {self.shape} dtype {self.dtype}"


def member_name(zf: zipfile.ZipFile, key: str) -> str:
    """The zip member numpy's ``NpzFile`` reads for ``key``."""
    try:
        zf.getinfo(key)  # a dict lookup; namelist() would copy every name
    except KeyError:
        return key + ".npy"
    return key


def read_npy_header(
    f: IO[bytes], info: zipfile.ZipInfo, key: str, where: str
) -> NpyHeader:
    """Parse the ``.npy`` header at the start of the open member ``f``
    (described by ``info``), leaving ``f`` at the first byte of the data.

    Raises:
        NpyFormatError: The member is not a ``.npy`` array or its header is
            truncated or malformed; the message names ``key`` and ``where``.
    """
    name = info.filename

    def bad(what: str) -> NpyFormatError:
        return NpyFormatError(f"{key!r} in {where}: {what}")

    head = f.read(len(_NPY_MAGIC) + 2)
    if len(head) < len(_NPY_MAGIC) + 2:
        raise bad(
            f"the member {name!r} is truncated: {len(head)} bytes, shorter "
            "than a .npy header"
        )
    if head[: len(_NPY_MAGIC)] != _NPY_MAGIC:
        raise bad(f"the member {name!r} is not a .npy array (no NUMPY magic)")
    major = head[len(_NPY_MAGIC)]
    if major == 1:
        size_format = "<H"
    elif major in (2, 3):
        size_format = "<I"
    else:
        raise bad(f"unsupported .npy format version {major}.{head[-1]}")
    size_field = f.read(struct.calcsize(size_format))
    if len(size_field) < struct.calcsize(size_format):
        raise bad(f"the member {name!r} is truncated inside its .npy header")
    (header_len,) = struct.unpack(size_format, size_field)
    if header_len > MAX_HEADER_BYTES:
        raise bad(
            f"the .npy header declares {header_len} bytes, more than the "
            f"{MAX_HEADER_BYTES} accepted"
        )
    raw = f.read(header_len)
    if len(raw) < header_len:
        raise bad(f"the member {name!r} is truncated inside its .npy header")
    shape, dtype, fortran = _parse_header(raw, major, bad)
    return NpyHeader(
        member=name,
        shape=shape,
        dtype=dtype,
        fortran_order=fortran,
        header_bytes=len(head) + len(size_field) + header_len,
        member_bytes=info.file_size,
        compressed_bytes=info.compress_size,
        compress_type=info.compress_type,
        header_offset=info.header_offset,
    )


def read_npy_data(f: IO[bytes], header: NpyHeader, key: str, where: str) -> Any:
    """Read the array ``header`` declares from ``f``, positioned after the
    header (call :func:`check_npy_member` first: it bounds the size).

    Raises:
        NpyFormatError: The data ends early, or the array does not fit in memory.
    """
    count = math.prod(header.shape)
    try:
        flat = numpy.empty(count, dtype=header.dtype)
    except (MemoryError, ValueError) as e:
        raise NpyFormatError(
            f"{key!r} in {where} declares {header.describe()} "
            f"({header.data_bytes} bytes), too large to load into memory"
        ) from e
    if header.data_bytes:
        buf = flat.view(numpy.uint8).data  # a writable memoryview
        done = 0
        while done < header.data_bytes:
            got = f.readinto(buf[done : done + _READ_CHUNK])  # type: ignore[attr-defined]
            if not got:
                raise NpyFormatError(
                    f"{key!r} in {where} (member {header.member!r}) is "
                    f"truncated: {done} of the {header.data_bytes} bytes its "
                    f"header declares ({header.describe()})"
                )
            done += got
    if header.fortran_order:
        return flat.reshape(header.shape[::-1]).transpose()
    return flat.reshape(header.shape)


def _parse_header(
    raw: bytes, major: int, bad: Any
) -> tuple[tuple[int, ...], numpy.dtype, bool]:
    try:
        text = raw.decode("utf-8" if major >= 3 else "latin1")
        # A literal only: ast.literal_eval evaluates no names or calls.
        fields = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError) as e:
        raise bad(f"malformed .npy header ({type(e).__name__})") from None
    if not isinstance(fields, dict) or not {"descr", "shape"} <= fields.keys():
        raise bad("malformed .npy header (not a dict with 'descr' and 'shape')")
    shape = fields["shape"]
    if not isinstance(shape, tuple) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape
    ):
        raise bad(f"malformed .npy header: shape {shape!r}")
    try:
        dtype = numpy.lib.format.descr_to_dtype(fields["descr"])
    except (ValueError, TypeError, KeyError, IndexError, RecursionError) as e:
        raise bad(f"malformed .npy header: dtype {fields['descr']!r} ({e})") from None
    if dtype.subdtype is not None:  # numpy writes these as part of the shape
        raise bad(f"malformed .npy header: sub-array dtype {dtype}")
    fortran = fields.get("fortran_order", False)
    if not isinstance(fortran, bool):
        raise bad(f"malformed .npy header: fortran_order {fortran!r}")
    return shape, dtype, fortran


def check_npy_member(header: NpyHeader, key: str, where: str, start_dir: Any) -> None:
    """Check that the member's byte counts can hold what its header declares.

    ``start_dir`` is the offset of the zip's central directory (where member
    data must end), or ``None`` when unknown.

    Raises:
        NpyFormatError: The member is truncated, has extra bytes, or declares
            sizes the archive cannot hold; the message says which.
    """
    expected = header.header_bytes + header.data_bytes
    found = header.member_bytes
    prefix = f"{key!r} in {where} (member {header.member!r})"
    if found < expected:
        raise NpyFormatError(
            f"{prefix} is truncated: its header declares {header.describe()}, "
            f"{header.data_bytes} bytes of data, but the member holds only "
            f"{max(found - header.header_bytes, 0)}"
        )
    if found > expected:
        raise NpyFormatError(
            f"{prefix} is corrupt: {found - expected} bytes follow the "
            f"{header.data_bytes} bytes of data its header declares "
            f"({header.describe()})"
        )
    if header.compress_type == zipfile.ZIP_STORED:
        plausible = header.compressed_bytes == found
    elif header.compress_type == zipfile.ZIP_DEFLATED:
        plausible = found <= header.compressed_bytes * _MAX_DEFLATE_RATIO + 1024
    else:
        plausible = True  # bz2/lzma: no tight bound; decompression checks it
    if not plausible:
        raise NpyFormatError(
            f"{prefix} is corrupt: it declares {found} bytes stored in "
            f"{header.compressed_bytes} compressed bytes, which is impossible"
        )
    end = header.header_offset + _LOCAL_HEADER_BYTES + header.compressed_bytes
    if isinstance(start_dir, int) and end > start_dir:
        raise NpyFormatError(
            f"{prefix} is truncated: its {header.compressed_bytes} compressed "
            f"bytes run past the end of the archive's data ({start_dir} bytes)"
        )


#: What reading a zip member raises when the archive is damaged: zipfile
#: reports unknown compression methods or flag bits (garbled headers) as
#: NotImplementedError, and an "encrypted" flag as RuntimeError.
ZIP_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    OSError,
    EOFError,
    NotImplementedError,
    RuntimeError,
)

_SCALAR_TYPES = (int, float, bool, complex)


def check_target(
    who: str,
    key: str,
    where: str,
    shape: tuple[int, ...],
    dtype: numpy.dtype,
    value: Any,
    is_cupy: bool,
) -> None:
    """Check a stored ``shape``/``dtype`` against the value it will load into.

    A NumPy target accepts data that broadcasts to its shape and casts to its
    dtype under ``'same_kind'`` (what :func:`numpy.copyto` allows); a CuPy
    target needs the same shape; a Python number needs a 0-d array. Other
    targets (``None``, ``str``, ...) impose nothing here.

    Raises:
        ValueError: The shapes or dtypes do not fit (arrays).
        TypeError: A non-scalar is stored for a Python number.
    """
    if isinstance(value, numpy.ndarray):
        fits = _broadcasts_to(shape, value.shape)
        if fits and dtype.kind not in "OSU" and value.dtype.kind not in "OSU":
            fits = numpy.can_cast(dtype, value.dtype, casting="same_kind")
        if not fits:
            raise ValueError(
                f"{who}: cannot load {key!r} from {where}: stored shape {shape} "
                f"dtype {dtype}, target shape {value.shape} dtype {value.dtype}"
            )
    elif is_cupy:
        if tuple(shape) != tuple(value.shape):
            raise ValueError(
                f"{who}: cannot load {key!r} from {where}: stored shape {shape}, "
                f"target shape {tuple(value.shape)}"
            )
    elif type(value) in _SCALAR_TYPES and shape != ():
        raise TypeError(
            f"{who}: {key!r} in {where} has shape {shape} but the target is "
            f"a {type(value).__name__} scalar"
        )


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    if len(shape) > len(target):
        return False
    for n, m in zip(reversed(shape), reversed(target), strict=False):
        if n not in (1, m):
            return False
    return True
