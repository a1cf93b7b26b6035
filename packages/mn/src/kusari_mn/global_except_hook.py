"""Abort the whole MPI job when any rank dies of an uncaught exception.

Without this, the other ranks wait forever in their next collective for the
rank that died. The hook prints the traceback (with the rank) to stderr and
calls ``MPI_Abort``, which ends every process of the job. It is installed
when :mod:`kusari_mn` is imported (set ``KUSARI_MN_GLOBAL_EXCEPT_HOOK=0`` to
opt out) and only acts in jobs of more than one process.
"""

from __future__ import annotations

import os
import sys
import traceback
from types import TracebackType
from typing import Any

from mpi4py import MPI

_previous_hook: Any = None


def _global_except_hook(
    exc_type: type[BaseException], value: BaseException, tb: TracebackType | None
) -> None:
    if not MPI.Is_initialized() or MPI.Is_finalized() or MPI.COMM_WORLD.size == 1:
        (_previous_hook or sys.__excepthook__)(exc_type, value, tb)
        return
    rank = MPI.COMM_WORLD.rank
    try:
        sys.stdout.flush()
        lines = traceback.format_exception(exc_type, value, tb)
        sys.stderr.write(
            f"\n*** kusari_mn: uncaught exception on rank {rank}; aborting the "
            f"MPI job ***\n{''.join(lines)}\n"
        )
        sys.stderr.flush()
    finally:
        try:
            MPI.COMM_WORLD.Abort(1)
        finally:
            os._exit(1)


def add_hook() -> None:
    """Install the hook as ``sys.excepthook`` (idempotent)."""
    global _previous_hook
    if sys.excepthook is not _global_except_hook:
        _previous_hook = sys.excepthook
        sys.excepthook = _global_except_hook


def remove_hook() -> None:
    """Restore the ``sys.excepthook`` that was there before :func:`add_hook`."""
    global _previous_hook
    if sys.excepthook is _global_except_hook:
        sys.excepthook = _previous_hook or sys.__excepthook__
        _previous_hook = None


def _add_hook_if_enabled() -> None:
    if os.environ.get("KUSARI_MN_GLOBAL_EXCEPT_HOOK", "1") not in ("0", "false", "no"):
        add_hook()
