"""The per-operation harness shared by ``bench_lenet_ops.py`` and
``bench_mlp_ops.py``: subprocess workers per library, the command line and
the side-by-side table.

A script gives :func:`main` its op names and three builders: ``data()`` (the
seeded arrays both libraries use) and, for each library, ``ops(data)`` (op
name -> a callable running that op once). The script re-runs itself as
``--worker`` once per library and round, so that one library's idle threads
cannot take a core from the other.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

Ops = Callable[[Any], dict[str, Callable[[], Any]]]


def _worker(
    lib: str,
    thread_counts: list[int],
    ops: list[str],
    repeat: int,
    data: Callable[[], Any],
    kusari_ops: Ops,
    torch_ops: Ops,
) -> None:
    """One library, every op at every thread count: prints a JSON dict of
    ``"op|threads" -> best seconds``."""
    d = data()
    if lib == "kusari":
        import kusari

        table = kusari_ops(d)
        set_threads = kusari.set_num_threads
    else:
        import torch

        torch.set_grad_enabled(False)
        table = torch_ops(d)
        set_threads = torch.set_num_threads
    best: dict[str, float] = {}
    for n in thread_counts:
        set_threads(n)
        for name in ops:
            fn = table[name]
            fn()  # warm-up: scratch buffers, kernel choice
            for _ in range(repeat):
                t0 = time.perf_counter()
                fn()
                dt = time.perf_counter() - t0
                key = f"{name}|{n}"
                best[key] = min(best.get(key, dt), dt)
    print(json.dumps(best))


def _print_table(
    best: dict[str, dict[str, float]], ops: list[str], ns: list[int], digits: int
) -> None:
    libs = list(best)
    head = f"{'op (ms, best)':14s}" + "".join(
        f" | {'kusari':>7s} {'torch':>7s} {'ratio':>5s} @{n}t" for n in ns
    )
    print(head)
    print("-" * len(head))
    total = {(lib, n): 0.0 for lib in libs for n in ns}
    for name in ops:
        row = f"{name:14s}"
        for n in ns:
            k = best["kusari"][f"{name}|{n}"] * 1e3
            total["kusari", n] += k
            if "torch" in best:
                tt = best["torch"][f"{name}|{n}"] * 1e3
                total["torch", n] += tt
                row += f" | {k:7.{digits}f} {tt:7.{digits}f} {k / tt:5.2f}    "
            else:
                row += f" | {k:7.{digits}f} {'-':>7s} {'-':>5s}    "
        print(row)
    row = f"{'sum':14s}"
    for n in ns:
        k = total["kusari", n]
        tt = total.get(("torch", n), 0.0)
        row += f" | {k:7.{digits}f} {tt:7.{digits}f} {k / tt if tt else 0:5.2f}    "
    print(row)


def main(
    script: str,
    description: str,
    all_ops: list[str],
    data: Callable[[], Any],
    kusari_ops: Ops,
    torch_ops: Ops,
    *,
    rounds: int,
    repeat: int,
    digits: int,
) -> None:
    """The command line of a per-op benchmark ``script`` (its ``__file__``)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--repeat", type=int, default=repeat)
    parser.add_argument("--threads", default="", help="e.g. 1,2 (default: 1,all)")
    parser.add_argument("--only", default="", help="comma-separated op names")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        lib, counts, ops, reps = args.worker
        _worker(
            lib,
            [int(c) for c in counts.split(",")],
            ops.split(","),
            int(reps),
            data,
            kusari_ops,
            torch_ops,
        )
        return
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    counts = args.threads or ("1" if cores == 1 else f"1,{cores}")
    ops = args.only.split(",") if args.only else all_ops
    unknown = sorted(set(ops) - set(all_ops))
    if unknown:
        parser.error(f"unknown ops {unknown}; choose from {all_ops}")
    try:
        import torch  # noqa: F401

        libs = ["kusari", "torch"]
    except ImportError:
        libs = ["kusari"]
    best: dict[str, dict[str, float]] = {lib: {} for lib in libs}
    for _ in range(args.rounds):
        for lib in libs:
            cmd = [sys.executable, script, "--worker", lib, counts, ",".join(ops)]
            cmd.append(str(args.repeat))
            res = subprocess.run(cmd, capture_output=True, text=True, check=True)
            for k, v in json.loads(res.stdout.strip().splitlines()[-1]).items():
                best[lib][k] = min(best[lib].get(k, v), v)
    _print_table(best, ops, [int(c) for c in counts.split(",")], digits)
