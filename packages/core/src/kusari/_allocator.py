"""glibc's allocator, set once at import for kusari's large short-lived arrays.

A training step allocates and frees the same large arrays (activations,
columns, gradients) again and again. Under glibc's defaults an array of a
few MB is mapped on its own when allocated and unmapped when freed (its
adaptive threshold only rises for blocks *larger* than the last one freed,
so a same-sized block goes back to ``mmap`` every step), and memory freed at
the top of a heap is handed back to the kernel; the next step then pays a
page fault and a page clearing for every 4 KiB it writes. On the LeNet step
of ``benchmarks/bench_threads.py`` (batch 100) that was 700-1,200 faults per
step, 10-25 % of the step's time; with the settings below, none, for 3-4 MiB
more peak memory.

So at import kusari asks glibc (``mallopt``) to map only blocks of at least
:data:`MMAP_THRESHOLD` on their own and to keep up to
:data:`TRIM_THRESHOLD` of freed memory at a heap's top. This is process-wide;
it is skipped where the C library is not glibc, when the process was started
with glibc's own malloc settings (``MALLOC_*_`` variables or
``glibc.malloc`` tunables: the user's choice wins), and when
``KUSARI_MALLOC_TUNING=0``.
"""

from __future__ import annotations

import ctypes
import os
import sys
import warnings
from collections.abc import Mapping

ENV_VAR = "KUSARI_MALLOC_TUNING"

#: Blocks at least this large are mapped on their own (glibc's adaptive
#: threshold never goes above this either, on 64-bit systems).
MMAP_THRESHOLD = 32 << 20

#: Freed memory kept at a heap's top before it is handed back.
TRIM_THRESHOLD = 64 << 20

# mallopt's parameter numbers (malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3

_GLIBC_VARS = (
    "MALLOC_MMAP_THRESHOLD_",
    "MALLOC_TRIM_THRESHOLD_",
    "MALLOC_TOP_PAD_",
    "MALLOC_MMAP_MAX_",
)

_OFF = ("0", "false", "off", "no")
_ON = ("", "1", "true", "on", "yes")


def _is_glibc() -> bool:
    try:
        version = os.confstr("CS_GNU_LIBC_VERSION")
    except (AttributeError, ValueError, OSError):
        return False
    return version is not None and version.startswith("glibc")


def tune(environ: Mapping[str, str] = os.environ) -> bool:
    """Apply the settings above unless they are switched off or not glibc's.

    Args:
        environ: The environment to read the switches from.

    Returns:
        True when glibc accepted both settings.
    """
    value = environ.get(ENV_VAR, "1").strip().lower()
    if value in _OFF:
        return False
    if value not in _ON:
        warnings.warn(
            f"{ENV_VAR}={environ[ENV_VAR]!r} is not understood (expected 0 or 1); "
            "glibc's allocator settings are left as they are",
            RuntimeWarning,
            stacklevel=2,
        )
        return False
    if any(name in environ for name in _GLIBC_VARS):
        return False
    if "glibc.malloc." in environ.get("GLIBC_TUNABLES", ""):
        return False
    if not sys.platform.startswith("linux") or not _is_glibc():
        return False
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is None:
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # mallopt answers 1 on success, 0 on a refused value.
    mmap_ok = mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
    trim_ok = mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
    return mmap_ok and trim_ok
