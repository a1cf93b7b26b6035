"""Fuzzing load_npz with random and corrupted files: it loads them or raises a
documented exception whose message names the file, and never hangs."""

import io

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from kusari.serializers import load_npz, save_npz  # noqa: E402


class Leaf:
    def __init__(self):
        self.w = np.zeros((4, 5), np.float32)
        self.b = None
        self.t = 0
        self.name = "x"

    def serialize(self, s):
        self.w = s("w", self.w)
        self.b = s("b", self.b)
        self.t = s("t", self.t)
        self.name = s("name", self.name)


def _valid_npz(compression):
    leaf = Leaf()
    leaf.w[:] = np.arange(20).reshape(4, 5)
    leaf.b, leaf.t, leaf.name = np.arange(7, dtype=np.int64), 3, "leaf"
    buf = io.BytesIO()
    save_npz(buf, leaf, compression=compression)
    return buf.getvalue()


VALID = {True: _valid_npz(True), False: _valid_npz(False)}

# Documented: ValueError (unreadable, corrupt, mismatched), KeyError (a key
# missing in strict mode), TypeError (an array stored for a Python scalar),
# OSError (the file system).
DOCUMENTED = (ValueError, KeyError, TypeError, OSError)


@st.composite
def corrupted(draw):
    data = bytearray(VALID[draw(st.booleans())])
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "overwrite", "truncate", "insert"]))
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        if kind == "flip":
            data[at] ^= draw(st.integers(1, 255))
        elif kind == "overwrite":
            chunk = draw(st.binary(min_size=1, max_size=8))
            data[at : at + len(chunk)] = chunk
        elif kind == "truncate":
            del data[at:]
        else:
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
    return bytes(data)


def _check(path, data):
    path.write_bytes(data)
    try:
        load_npz(path, Leaf())
    except DOCUMENTED as e:
        message = str(e)
        assert str(path.name) in message or "NpzDeserializer" in message, message
    # Anything else (BadZipFile, MemoryError, struct.error, ...) fails here.


FUZZ = settings(
    max_examples=150,
    deadline=2000,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@settings(FUZZ, max_examples=500)
@given(data=corrupted())
def test_corrupted_npz(tmp_path, data):
    _check(tmp_path / "fuzz.npz", data)


@FUZZ
@given(data=st.binary(max_size=512))
def test_random_bytes(tmp_path, data):
    _check(tmp_path / "fuzz.npz", data)


@FUZZ
@given(data=st.binary(max_size=256))
def test_random_bytes_after_zip_magic(tmp_path, data):
    _check(tmp_path / "fuzz.npz", b"PK\x03\x04" + data)
