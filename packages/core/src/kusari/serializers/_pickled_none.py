"""Recognising the pickled ``None`` that Chainer's NPZ files hold, without
unpickling anything."""

from __future__ import annotations

import io
import pickletools
import zipfile
from typing import Any

import numpy

from kusari.serializers._array_checks import ZIP_ERRORS, member_name

#: A pickled 0-d ``None`` array is about 150 bytes; members longer than this
#: are not read to find out whether they hold one.
_MAX_PICKLED_NONE_BYTES = 4096


def _pickle_holds_only_none(payload: bytes) -> bool:
    """Tell whether a pickled 0-d object ndarray holds ``None``.

    The opcodes are only parsed (``pickletools.genops`` executes nothing).
    NumPy pickles the element list of an object array as ``EMPTY_LIST``
    followed by the elements and ``APPEND``; for ``[None]`` that is
    ``EMPTY_LIST [memo ops] NONE APPEND``.
    """
    ops = []
    try:
        for opcode, _arg, _pos in pickletools.genops(payload):
            if opcode.name in ("PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE"):
                continue
            ops.append(opcode.name)
    except Exception:  # any parse failure means "not a None we recognise"
        return False
    # Exactly one list, holding exactly one element, which is None. (A nested
    # list such as [[None]] has two EMPTY_LISTs and is rejected.)
    appends = ops.count("APPEND") + ops.count("APPENDS")
    if ops.count("EMPTY_LIST") != 1 or appends != 1:
        return False
    i = ops.index("EMPTY_LIST")
    return ops[i : i + 3] == ["EMPTY_LIST", "NONE", "APPEND"]


def _is_pickled_none(npz: Any, key: str) -> bool:
    zf = getattr(npz, "zip", None)
    if not isinstance(zf, zipfile.ZipFile):
        return False
    try:
        info = zf.getinfo(member_name(zf, key))
        if info.file_size > _MAX_PICKLED_NONE_BYTES:
            return False  # far too long for a pickled None: not read at all
        with zf.open(info) as member:
            raw = io.BytesIO(member.read(_MAX_PICKLED_NONE_BYTES))
    except (KeyError, *ZIP_ERRORS):
        return False
    try:
        version = numpy.lib.format.read_magic(raw)
        if version == (1, 0):
            shape, _, dtype = numpy.lib.format.read_array_header_1_0(raw)
        else:
            shape, _, dtype = numpy.lib.format.read_array_header_2_0(raw)
    except ValueError:
        return False
    if shape != () or not dtype.hasobject:
        return False
    return _pickle_holds_only_none(raw.read())
