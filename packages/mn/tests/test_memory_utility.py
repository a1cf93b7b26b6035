"""The gradient buffer's placement (``communicators/_memory_utility.zeros``)."""

from __future__ import annotations

import mmap
import sys

import numpy as np
import pytest

from kusari_mn.communicators import _memory_utility
from kusari_mn.communicators._memory_utility import (
    HUGE_PAGE,
    _ask_for_huge_pages,
    zeros,
)


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


def test_large_buffer_asks_for_huge_pages(monkeypatch):
    asked = []

    def record(area):
        asked.append(len(area))
        return _ask_for_huge_pages(area)

    monkeypatch.setattr(_memory_utility, "_ask_for_huge_pages", record)
    buf = zeros(np, HUGE_PAGE, np.float32)
    # the buffer's 8 MiB and a huge page of slack at each end
    assert asked == [buf.nbytes + 2 * HUGE_PAGE]


def test_kernel_marks_the_buffer_where_it_has_huge_pages():
    buf = zeros(np, HUGE_PAGE, np.float32)
    accepted = _ask_for_huge_pages(mmap.mmap(-1, HUGE_PAGE))
    if sys.platform.startswith("linux"):
        # "hg": the mapping is marked for transparent huge pages exactly
        # where the kernel takes the advice.
        assert ("hg" in _vm_flags(buf.ctypes.data)) is accepted
    else:
        assert accepted is hasattr(mmap, "MADV_HUGEPAGE")


def _smaps_field(address: int, field: str) -> int:
    """One kB field (e.g. ``AnonHugePages``) of the mapping holding
    ``address``, from ``/proc/self/smaps``."""
    value = 0
    inside = False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(x, 16) for x in head.split("-"))
                inside = lo <= address < hi
            elif inside and head == field + ":":
                value = int(line.split()[1])
    return value


def _thp_for_madvised() -> bool:
    """Whether this kernel gives transparent huge pages to memory that asks."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            mode = f.read()
    except OSError:
        return False
    return "[always]" in mode or "[madvise]" in mode


def test_large_buffer_is_private_anonymous_memory():
    # Shared anonymous memory (what mmap.mmap(-1, n) maps) is shmem: no huge
    # pages where shmem_enabled is "never", and slow for the peer's kernel copy.
    buf = zeros(np, 2 * HUGE_PAGE, np.float32)
    buf[...] = 1.0  # fault every page in
    if not sys.platform.startswith("linux"):
        assert isinstance(_mapping_of(buf), mmap.mmap)
        return
    flags = _vm_flags(buf.ctypes.data)
    assert flags and "sh" not in flags, flags
    huge_kb = _smaps_field(buf.ctypes.data, "AnonHugePages")
    # Anonymous huge pages only where the kernel grants them to memory that
    # asks (it may still refuse one, e.g. when its memory is fragmented, so
    # their presence is not required; a shared mapping's never count here).
    assert huge_kb == 0 or _thp_for_madvised(), huge_kb


def test_small_buffer_is_plain():
    buf = zeros(np, 10, np.float32)
    assert buf.shape == (10,) and not buf.any()
    assert not isinstance(_mapping_of(buf), mmap.mmap)
