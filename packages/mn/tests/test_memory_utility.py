"""The gradient buffer's placement (``communicators/_memory_utility.zeros``)."""

from __future__ import annotations

import mmap
import sys

import numpy as np
import pytest

from kusari_mn.communicators._memory_utility import HUGE_PAGE, zeros


def _mapping_of(array: np.ndarray) -> object:
    base = array
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    return base.obj if isinstance(base, memoryview) else base


def _vm_flags(address: int) -> list[str]:
    """The kernel's VmFlags of the mapping holding ``address``."""
    flags: list[str] = []
    inside = False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(x, 16) for x in head.split("-"))
                inside = lo <= address < hi
            elif inside and head == "VmFlags:":
                flags = line.split()[1:]
    return flags


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_large_buffer_is_zeroed_aligned_and_its_own_mapping(dtype):
    count = (3 * HUGE_PAGE) // np.dtype(dtype).itemsize + 5
    # a freed heap block of the same size first: the buffer must not reuse it
    junk = np.full(count, 7, dtype)
    del junk
    buf = zeros(np, count, dtype)
    assert buf.shape == (count,) and buf.dtype == dtype
    assert buf.ctypes.data % HUGE_PAGE == 0
    assert not buf.any()
    assert isinstance(_mapping_of(buf), mmap.mmap)
    buf[...] = 3
    assert (buf == 3).all()


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or not hasattr(mmap, "MADV_HUGEPAGE"),
    reason="transparent huge pages are Linux's",
)
def test_large_buffer_asks_for_huge_pages():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            if "[never]" in f.read():
                pytest.skip("transparent huge pages are off on this kernel")
    except OSError:
        pytest.skip("no transparent huge pages on this kernel")
    buf = zeros(np, HUGE_PAGE, np.float32)
    assert "hg" in _vm_flags(buf.ctypes.data)


def test_small_buffer_is_plain():
    buf = zeros(np, 10, np.float32)
    assert buf.shape == (10,) and not buf.any()
    assert not isinstance(_mapping_of(buf), mmap.mmap)
