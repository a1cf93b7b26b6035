"""Create a run directory and record how the run was started."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from typing import Any

from kusari.utils.atomic import atomic_write

__all__ = ["prepare_output_dir", "write_json_atomic"]


def write_json_atomic(path: str, obj: Any, indent: int | None = 4) -> None:
    """Write ``obj`` as JSON to ``path`` through a temporary file and a rename."""
    with atomic_write(path, "w") as f:
        json.dump(obj, f, indent=indent, default=_plain)


def _plain(value: Any) -> Any:
    # numpy scalars, paths and other objects: numbers stay numbers.
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def prepare_output_dir(
    args: argparse.Namespace | dict[str, Any] | None,
    user_specified_dir: str | None = None,
    argv: Sequence[str] | None = None,
    time_format: str = "%Y%m%dT%H%M%S.%f",
    exp_id: str | None = None,
) -> str:
    """Create the output directory of a run and write its arguments.

    The directory is ``<user_specified_dir>/<timestamp or exp_id>`` (a fresh
    temporary directory when ``user_specified_dir`` is None). Written files:
    ``args.txt`` (ChainerRL's, one JSON line), ``args`` (the same dict, read by
    kusari-ui) and ``command.txt`` (the command line).

    Args:
        args: Parsed command-line arguments (or a dict).
        user_specified_dir: Parent directory for the run directory.
        argv: Command line to record (``sys.argv`` by default).
        time_format: ``strftime`` format of the run directory's name.
        exp_id: Use this name instead of a timestamp.

    Returns:
        Path of the new directory.
    """
    name = exp_id or datetime.datetime.now().strftime(time_format)
    if user_specified_dir is not None:
        if os.path.exists(user_specified_dir) and not os.path.isdir(user_specified_dir):
            raise RuntimeError(
                f"prepare_output_dir: {user_specified_dir} exists and is not a "
                "directory"
            )
        outdir = os.path.join(user_specified_dir, name)
        if os.path.exists(outdir):
            raise RuntimeError(f"prepare_output_dir: {outdir} already exists")
        os.makedirs(outdir)
    else:
        outdir = tempfile.mkdtemp(prefix=name)
    if isinstance(args, argparse.Namespace):
        args = vars(args)
    args = dict(args or {})
    write_json_atomic(os.path.join(outdir, "args.txt"), args, indent=None)
    write_json_atomic(os.path.join(outdir, "args"), args)
    with atomic_write(os.path.join(outdir, "command.txt"), "w") as f:
        f.write(" ".join(sys.argv if argv is None else argv))
    return outdir
