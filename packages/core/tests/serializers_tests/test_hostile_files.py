"""load_npz / load_hdf5 on broken and hostile files: declared shapes, dtypes
and sizes are checked before anything is allocated for them."""

import io
import struct
import tracemalloc
import zipfile

import numpy as np
import pytest

from kusari.serializers import HDF5Deserializer, load_hdf5, load_npz, save_npz


class One:
    """Loads a single value ``w``."""

    def __init__(self, w):
        self.w = w

    def serialize(self, s):
        self.w = s("w", self.w)


def _npy_bytes(shape, dtype, data=b""):
    """A .npy header declaring ``shape``/``dtype``, followed by ``data``."""
    buf = io.BytesIO()
    header = {"descr": np.dtype(dtype).str, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(buf, header)
    return buf.getvalue() + data


def _write_zip(path, members, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, raw in members.items():
            zf.writestr(name, raw)


def _peak_bytes(fn):
    tracemalloc.start()
    try:
        fn()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


@pytest.mark.parametrize(
    ("stored", "target", "message"),
    [
        # 32 MiB of zeros compress to ~32 KiB: a small file, a big array.
        (np.zeros(1 << 23, np.float32), np.zeros(3, np.float32), r"\(8388608,\)"),
        (np.zeros(1 << 21, np.complex128), np.zeros(1 << 21), "complex128"),
    ],
)
def test_npz_mismatch_is_refused_before_reading(tmp_path, stored, target, message):
    path = tmp_path / "bomb.npz"
    save_npz(path, {"w": stored})
    assert path.stat().st_size < stored.nbytes // 100 or stored.dtype.kind == "c"

    def load():
        with pytest.raises(ValueError, match=rf"'w'.*bomb\.npz.*{message}"):
            load_npz(path, One(target))

    # Without the header check numpy allocates the whole stored array first.
    assert _peak_bytes(load) < 4 << 20


def test_npz_broadcast_and_cast_still_load(tmp_path):
    path = tmp_path / "ok.npz"
    save_npz(path, {"w": np.arange(3, dtype=np.int32)})
    obj = One(np.zeros((2, 3), np.float64))
    load_npz(path, obj)
    np.testing.assert_array_equal(obj.w, [[0, 1, 2], [0, 1, 2]])


@pytest.mark.parametrize(
    "stored",
    [
        np.asfortranarray(np.arange(12.0).reshape(3, 4)),
        np.arange(5, dtype=">i4"),
        np.array([(1, 2.5), (3, 4.5)], dtype=[("a", "<i2"), ("b", "<f8")]),
        np.zeros((0, 4)),
        np.array(["ab", "cde"]),
        np.arange(300_000, dtype=np.int64),  # several read chunks
    ],
)
def test_npz_members_numpy_writes_load_exactly(tmp_path, stored):
    path = tmp_path / "ok.npz"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        with zf.open("w.npy", "w") as member:
            np.lib.format.write_array(member, stored)
    obj = One(None)
    load_npz(path, obj)
    assert obj.w.dtype == stored.dtype
    np.testing.assert_array_equal(obj.w, stored)


def test_npz_truncated_member_says_truncated(tmp_path):
    path = tmp_path / "cut.npz"
    data = np.arange(100, dtype=np.float64).tobytes()
    _write_zip(path, {"w.npy": _npy_bytes((1000,), "<f8", data)})
    with pytest.raises(ValueError, match=r"'w'.*cut\.npz.*truncated.*8000.*800"):
        load_npz(path, One(np.zeros(1000)))


def test_npz_member_with_trailing_bytes(tmp_path):
    path = tmp_path / "long.npz"
    _write_zip(path, {"w.npy": _npy_bytes((2,), "<f8", b"\0" * 24)})
    with pytest.raises(ValueError, match=r"'w'.*long\.npz.*corrupt.*8 bytes follow"):
        load_npz(path, One(np.zeros(2)))


@pytest.mark.parametrize("target", [None, np.zeros(3)])
def test_npz_absurd_shape_is_no_memory_error(tmp_path, target):
    path = tmp_path / "huge.npz"
    _write_zip(path, {"w.npy": _npy_bytes((10**12,), "<f8", b"\0" * 80)})
    with pytest.raises(ValueError, match=r"'w'.*huge\.npz.*\(1000000000000,\)"):
        load_npz(path, One(target))


def _forge_uncompressed_size(path, size):
    """Overwrite the uncompressed size of the only member in the central
    directory (the field zipfile trusts), as a hostile file could."""
    raw = bytearray(path.read_bytes())
    at = raw.rfind(b"PK\x01\x02")
    raw[at + 24 : at + 28] = struct.pack("<I", size)
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("compression", [zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED])
def test_npz_forged_member_size(tmp_path, compression):
    path = tmp_path / "forged.npz"
    member = _npy_bytes((10**8,), "<f4", b"\0" * 40)
    _write_zip(path, {"w.npy": member}, compression)
    header_len = len(member) - 40
    _forge_uncompressed_size(path, header_len + 4 * 10**8)

    def load():
        with pytest.raises(ValueError, match=r"'w'.*forged\.npz.*impossible"):
            load_npz(path, One(None))

    assert _peak_bytes(load) < 4 << 20


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"PK not numpy at all", "not a .npy array"),
        (b"\x93NUMPY", "truncated"),
        (b"\x93NUMPY\x09\x00\x10\x00" + b" " * 16, "unsupported .npy format"),
        (b"\x93NUMPY\x01\x00\x10\x00" + b"{'descr': 1+}   ", "malformed"),
        (b"\x93NUMPY\x01\x00\x10\x00" + b"[1, 2, 3]       ", "malformed"),
        (b"\x93NUMPY\x01\x00\xff\xff" + b"{}", "more than the 10000"),
        (_npy_bytes((-1,), "<f8"), "malformed .npy header: shape"),
        (_npy_bytes((2,), "<f8")[:-5], "truncated inside its .npy header"),
    ],
)
def test_npz_bad_headers(tmp_path, raw, message):
    path = tmp_path / "bad.npz"
    _write_zip(path, {"w.npy": raw})
    with pytest.raises(ValueError, match=r"'w'.*bad\.npz") as info:
        load_npz(path, One(np.zeros(2)))
    assert message in str(info.value)


def test_npz_bad_header_dtype(tmp_path):
    path = tmp_path / "dt.npz"
    buf = io.BytesIO()
    header = "{'descr': 'not-a-dtype', 'fortran_order': False, 'shape': (2,), }"
    header = header.ljust(118) + "\n"
    buf.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    _write_zip(path, {"w.npy": buf.getvalue()})
    with pytest.raises(ValueError, match=r"'w'.*dt\.npz.*dtype 'not-a-dtype'"):
        load_npz(path, One(np.zeros(2)))


def test_npz_scalar_target_checked_before_reading(tmp_path):
    path = tmp_path / "s.npz"
    save_npz(path, {"w": np.zeros(1 << 22)})

    def load():
        with pytest.raises(TypeError, match=r"'w'.*s\.npz.*\(4194304,\).*float"):
            load_npz(path, One(0.0))

    assert _peak_bytes(load) < 4 << 20


def test_npz_corrupt_deflate_stream(tmp_path):
    path = tmp_path / "flip.npz"
    save_npz(path, {"w": np.arange(4096, dtype=np.float64)})
    raw = bytearray(path.read_bytes())
    # Flip bytes in the middle of the compressed data (past the .npy header).
    for i in range(400, 440):
        raw[i] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=r"'w'.*flip\.npz"):
        load_npz(path, One(np.zeros(4096)))


@pytest.mark.parametrize(
    ("offset", "value", "at_open"),
    [
        (6, b"\x40\x00", True),  # "needs zip version 6.4": refused on open
        (8, b"\x01\x00", False),  # "encrypted"
        (10, b"\x09\x00", False),  # deflate64, which zipfile cannot read
    ],
)
def test_npz_garbled_zip_fields(tmp_path, offset, value, at_open):
    path = tmp_path / "garbled.npz"
    save_npz(path, {"w": np.arange(3.0)})
    raw = bytearray(path.read_bytes())
    at = raw.rfind(b"PK\x01\x02")  # the member's central directory entry
    raw[at + offset : at + offset + 2] = value
    path.write_bytes(bytes(raw))
    who = "load_npz" if at_open else "NpzDeserializer: cannot read 'w'"
    with pytest.raises(ValueError, match=rf"{who}.*garbled\.npz"):
        load_npz(path, One(np.zeros(3)))


h5py = pytest.importorskip("h5py")


def _sparse_h5(path, shape, dtype="f4"):
    """A small file declaring a big dataset (chunked, nothing written)."""
    with h5py.File(path, "w") as f:
        f.create_dataset("w", shape=shape, dtype=dtype, chunks=(1024,))


def test_hdf5_declared_shape_checked_before_reading(tmp_path):
    path = tmp_path / "big.h5"
    _sparse_h5(path, (1 << 23,))
    assert path.stat().st_size < 16384

    def load():
        with pytest.raises(ValueError, match=r"'w'.*big\.h5.*\(8388608,\).*\(3,\)"):
            load_hdf5(path, One(np.zeros(3, np.float32)))

    assert _peak_bytes(load) < 4 << 20


def test_hdf5_dtype_and_scalar_targets(tmp_path):
    path = tmp_path / "t.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("w", data=np.zeros(4, np.complex64))
    with pytest.raises(ValueError, match=r"'w'.*t\.h5.*complex64.*float32"):
        load_hdf5(path, One(np.zeros(4, np.float32)))
    with pytest.raises(TypeError, match=r"'w'.*t\.h5.*\(4,\).*int scalar"):
        load_hdf5(path, One(0))


def test_hdf5_group_where_a_value_is_expected(tmp_path):
    path = tmp_path / "g.h5"
    with h5py.File(path, "w") as f:
        f.create_group("w")
    with pytest.raises(KeyError, match=r"'w'.*g\.h5.*group, not a dataset"):
        load_hdf5(path, One(np.zeros(2)))


@pytest.mark.parametrize("compression", [None, "gzip"])
def test_hdf5_unwritten_big_dataset_into_none_target(tmp_path, compression):
    path = tmp_path / "sparse.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset(
            "w", shape=(1 << 23,), dtype="f4", chunks=(1024,), compression=compression
        )

    def load():
        with pytest.raises(ValueError, match=r"'w'.*sparse\.h5.*stores only 0 bytes"):
            load_hdf5(path, One(None))

    assert _peak_bytes(load) < 4 << 20


def test_hdf5_big_written_datasets_still_load(tmp_path):
    path = tmp_path / "full.h5"
    zeros = np.zeros(1 << 20, np.float32)  # 4 MiB compressing ~600:1 with gzip
    ramp = np.arange(1 << 19, dtype=np.float64)
    with h5py.File(path, "w") as f:
        f.create_dataset("w", data=zeros, compression="gzip", chunks=(1 << 16,))
        f.create_dataset("v", data=ramp)
    for name, stored in (("w", zeros), ("v", ramp)):
        with h5py.File(path, "r") as f:
            loaded = HDF5Deserializer(f)(name, None)
        np.testing.assert_array_equal(loaded, stored)
