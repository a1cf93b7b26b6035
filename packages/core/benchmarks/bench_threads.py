"""kusari vs PyTorch CPU at one thread and at all cores, with peak memory.

Workloads (float32):

* ``small_fb`` / ``small_f``: 200 small element-wise ops on (10,) arrays,
  forward + backward, and forward alone (``no_backprop_mode`` /
  ``torch.no_grad``);
* ``mlp_sgd`` / ``mlp_adam``: MLP 784-1000-1000-10, batch 100, one training
  step with SGD / Adam;
* ``lenet``: the LeNet of Chainer's MNIST example (conv 1->20 5x5, pool,
  conv 20->50 5x5, pool, 800-500-10), batch 100, SGD step;
* ``atari_f`` / ``atari``: the Nature-DQN network (conv 4->32 8x8 stride 4
  on 84x84, 32->64 4x4 stride 2, 64->64 3x3, 3136-512-6), batch 32, forward
  (``no_backprop_mode``) / SGD step;
* ``conv11_f`` / ``_b``: conv 3x128x128 -> 96, 11x11, batch 32, forward /
  forward + backward (input and weight gradients);
* ``alex1_f`` / ``_b``: AlexNet conv1, 3x224x224 -> 64, 11x11 stride 4 pad 2,
  batch 64;
* ``lstm``: PTB LSTM language model, 650 units, batch 20, 35 steps
  (``L.LSTM`` loop vs ``nn.LSTMCell`` loop, from ``bench_lstm.py``);
* ``vgg``: a VGG block (conv 64->128 3x3, conv 128->128 3x3, ReLUs, max
  pool 2) on 8x64x56x56, momentum SGD step;
* ``resnet50``: a ResNet-50 training step, batch 16 at 224x224 (batch 4
  with ``--quick``), momentum SGD.

Every (workload, library, thread count) runs in its own subprocess, so that
its peak resident memory is its own. Both libraries are measured alike: the
baseline is the resident size once the model, optimizer and data are built
(before the first step); on Linux the kernel's high-water mark is then reset
(``/proc/self/clear_refs``), so the peak (``VmHWM``) is that of the steps
alone, warm-up included, and ``Δ`` is the peak minus the baseline: what a
training step needs beyond its model. (Elsewhere the peak is ``ru_maxrss``,
which may include the build.) The peak counts what glibc's allocator keeps
of freed memory for reuse; ``--malloc-mmap-threshold BYTES`` sets
``MALLOC_MMAP_THRESHOLD_`` in both libraries' subprocesses, so that every
block at least that large is mapped and unmapped on its own and the peak
comes closer to the live arrays (default: glibc's own, adaptive threshold,
what users get). ``--openblas-thread-timeout N`` likewise sets
``OPENBLAS_THREAD_TIMEOUT``: OpenBLAS's idle threads spin-wait 2**N cycles
(default 2**28, about 0.1 s) for their next GEMM before sleeping, on cores
that the intra-op pool's threads then share; it is read when OpenBLAS loads,
so only the environment can set it. The subprocesses of the two libraries
and thread counts are interleaved round by round, so that load from other
programs hits all alike; each reports its best wall-clock time over its repeats, and the
table the best over ``--rounds``.

Threads: a run at ``n`` threads sets ``KUSARI_NUM_THREADS``,
``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS`` and ``MKL_NUM_THREADS`` to
``n`` and calls ``torch.set_num_threads(n)``. "all" is the number of cores
the process may use. ``ratio`` is kusari / PyTorch (below 1: kusari is
faster); ``1->all`` is each library's speedup from one thread to all;
``CPU/wall`` is the process's CPU time over its wall time in the timed steps
at the highest thread count: a value well above the speedup means threads
burn CPU waiting (OpenBLAS's threads spin-wait between GEMMs).

Run: ``python bench_threads.py [--quick] [--rounds N] [--repeat N]
[--only lenet,vgg] [--threads 1,4] [--malloc-mmap-threshold BYTES]
[--openblas-thread-timeout N]``;
under ``nox -s bench`` set
``KUSARI_BENCH_QUICK=1`` for ``--quick``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = [
    "small_fb",
    "small_f",
    "mlp_sgd",
    "mlp_adam",
    "lenet",
    "atari_f",
    "atari",
    "conv11_f",
    "conv11_b",
    "alex1_f",
    "alex1_b",
    "lstm",
    "vgg",
    "resnet50",
]
LABELS = {
    "small_fb": "200 small ops, fwd+bwd",
    "small_f": "200 small ops, fwd (no backprop)",
    "mlp_sgd": "MLP 784-1000-1000-10 b100, SGD",
    "mlp_adam": "MLP 784-1000-1000-10 b100, Adam",
    "lenet": "LeNet (20/50 ch) b100, SGD",
    "atari_f": "Nature-DQN b32, fwd (no backprop)",
    "atari": "Nature-DQN b32, SGD",
    "conv11_f": "conv 3x128²->96 11x11 b32, fwd",
    "conv11_b": "conv 3x128²->96 11x11 b32, f+b",
    "alex1_f": "AlexNet conv1 b64, fwd",
    "alex1_b": "AlexNet conv1 b64, f+b",
    "lstm": "PTB LSTM 650 b20 35 steps",
    "vgg": "VGG block 64->128->128 56² b8",
    "resnet50": "ResNet-50 step 224²",
}
# Timed repeats per subprocess: fast workloads get more.
REPEATS = {
    "small_fb": 200,
    "small_f": 200,
    "mlp_sgd": 20,
    "mlp_adam": 20,
    "lenet": 20,
    "atari_f": 20,
    "atari": 20,
    "lstm": 3,
    "vgg": 3,
    "resnet50": 2,
}


def _status_kib(key: str) -> int | None:
    """A ``kB`` field of ``/proc/self/status`` (None where there is none)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _maxrss_kib() -> int:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak  # bytes on macOS


def rss_now_kib() -> int:
    """The resident size now (the high-water mark where it is unknown)."""
    now = _status_kib("VmRSS")
    return _maxrss_kib() if now is None else now


def reset_peak() -> bool:
    """Reset the kernel's resident high-water mark to the current size.

    Returns:
        Whether it was reset (Linux: writing 5 to ``/proc/self/clear_refs``).
    """
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def trim_heap() -> bool:
    """Give malloc's free memory back to the kernel (glibc's ``malloc_trim``).

    Returns:
        Whether it was called (False where the C library has no such call).
    """
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):
        return False
    trim.argtypes = [ctypes.c_size_t]
    trim(0)
    return True


def peak_kib() -> int:
    """The resident high-water mark (since :func:`reset_peak`, where it worked)."""
    peak = _status_kib("VmHWM")
    return _maxrss_kib() if peak is None else peak


def worker(lib: str, name: str, threads: int, repeat: int, quick: bool) -> None:
    """Run one workload here and print a JSON line with its results."""
    sys.path.insert(0, HERE)
    if lib == "torch":
        import torch

        torch.set_num_threads(threads)
        import _workloads_torch as W
    else:
        import kusari
        from kusari.utils import threads as kthreads

        kthreads.set_num_threads(threads)
        import _workloads_kusari as W  # type: ignore[no-redef]

        assert kusari is not None
    step = W.BUILDERS[name](quick)
    # The baseline: model, optimizer and data built, no step run yet. The
    # build's garbage and the free memory malloc keeps go back first: the
    # steps would otherwise reuse those pages and hide their own growth.
    gc.collect()
    trim_heap()
    base = rss_now_kib()
    reset_peak()
    step()  # warm-up: lazy allocation, caches, thread start
    best = float("inf")
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for _ in range(repeat):
        t0 = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - t0)
    # CPU time of all the process's threads over wall time: ~1 per busy
    # thread; above the speedup, threads spin (e.g. BLAS waiting for work).
    util = (time.process_time() - cpu0) / max(time.perf_counter() - wall0, 1e-9)
    peak = peak_kib()
    print(
        json.dumps(
            {"time": best, "util": util, "peak_kib": peak, "delta_kib": peak - base}
        )
    )


def _spawn(
    lib: str,
    name: str,
    threads: int,
    repeat: int,
    quick: bool,
    mmap_threshold: int,
    blas_timeout: int = 0,
) -> Any:
    env = dict(os.environ)
    if mmap_threshold:
        env["MALLOC_MMAP_THRESHOLD_"] = str(mmap_threshold)
    if blas_timeout:
        env["OPENBLAS_THREAD_TIMEOUT"] = str(blas_timeout)
    for var in (
        "KUSARI_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
    ):
        env[var] = str(threads)
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--worker",
        lib,
        name,
        str(threads),
        str(repeat),
    ] + (["--quick"] if quick else [])
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["?"]
        return {"error": tail[0]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _have_torch() -> bool:
    probe = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True)
    return probe.returncode == 0


def _fmt_ms(r: Any) -> str:
    if r is None or "error" in r:
        return "-"
    t = r["time"] * 1e3
    return f"{t:.3f}" if t < 1 else f"{t:.1f}" if t < 100 else f"{t:.0f}"


def _ratio(a: Any, b: Any) -> str:
    if not a or not b or "error" in a or "error" in b:
        return "-"
    return f"{a['time'] / b['time']:.2f}"


def _util(r: Any) -> str:
    return "-" if not r or "error" in r or "util" not in r else f"{r['util']:.1f}"


def _mib(r: Any, key: str) -> str:
    return "-" if not r or "error" in r else f"{r[key] / 1024:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="ResNet-50 at batch 4, one round"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="interleaved rounds (default 2, 1 with --quick)",
    )
    parser.add_argument(
        "--repeat", type=float, default=1.0, help="scale the per-workload repeats"
    )
    parser.add_argument("--only", default="", help="comma-separated workloads")
    parser.add_argument(
        "--threads", default="", help="thread counts to compare (default 1,<all cores>)"
    )
    parser.add_argument(
        "--malloc-mmap-threshold",
        type=int,
        default=0,
        metavar="BYTES",
        help="set MALLOC_MMAP_THRESHOLD_ for both libraries (0: glibc's default)",
    )
    parser.add_argument(
        "--openblas-thread-timeout",
        type=int,
        default=0,
        metavar="N",
        help="set OPENBLAS_THREAD_TIMEOUT=N (4-30: idle OpenBLAS threads spin "
        "2**N cycles before sleeping; 0: OpenBLAS's default, 28)",
    )
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.malloc_mmap_threshold < 0:
        parser.error(
            "--malloc-mmap-threshold: expected a byte count >= 0, got "
            f"{args.malloc_mmap_threshold}"
        )
    if args.openblas_thread_timeout and not 4 <= args.openblas_thread_timeout <= 30:
        parser.error(
            "--openblas-thread-timeout: expected 0 or 4 to 30, got "
            f"{args.openblas_thread_timeout}"
        )
    # `nox -s bench` passes no arguments: KUSARI_BENCH_QUICK=1 asks for --quick.
    args.quick = args.quick or os.environ.get("KUSARI_BENCH_QUICK") == "1"
    if args.worker:
        lib, name, n, rep = args.worker
        worker(lib, name, int(n), int(rep), args.quick)
        return

    cores = (
        len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else (os.cpu_count() or 1)
    )
    counts = [int(v) for v in args.threads.split(",")] if args.threads else [1, cores]
    names = [n for n in args.only.split(",") if n] or WORKLOADS
    for n in names:
        if n not in WORKLOADS:
            parser.error(f"--only: unknown workload {n!r}; choose from {WORKLOADS}")
    rounds = args.rounds or (1 if args.quick else 2)
    libs = ["kusari"] + (["torch"] if _have_torch() else [])
    res: dict[tuple[str, str, int], Any] = {}
    for r in range(rounds):
        for name in names:
            repeat = max(1, int(REPEATS.get(name, 5) * args.repeat))
            for n in counts if r % 2 == 0 else counts[::-1]:
                for lib in libs if r % 2 == 0 else libs[::-1]:
                    out = _spawn(
                        lib,
                        name,
                        n,
                        repeat,
                        args.quick,
                        args.malloc_mmap_threshold,
                        args.openblas_thread_timeout,
                    )
                    prev = res.get((name, lib, n))
                    if (
                        prev is None
                        or "error" in prev
                        or ("error" not in out and out["time"] < prev["time"])
                    ):
                        res[(name, lib, n)] = out
            print(f"round {r + 1}/{rounds}: {name} done", file=sys.stderr, flush=True)
    _print_table(names, counts, libs, res, rounds, args.quick)
    if args.malloc_mmap_threshold:
        print(f"MALLOC_MMAP_THRESHOLD_={args.malloc_mmap_threshold} in both libraries")
    if args.openblas_thread_timeout:
        print(
            f"OPENBLAS_THREAD_TIMEOUT={args.openblas_thread_timeout} in both libraries"
        )


def _print_table(
    names: list[str],
    counts: list[int],
    libs: list[str],
    res: dict[tuple[str, str, int], Any],
    rounds: int,
    quick: bool,
) -> None:
    lo, hi = counts[0], counts[-1]
    import numpy

    print(
        f"kusari vs PyTorch CPU, wall ms (best of {rounds} interleaved "
        f"subprocess rounds x repeats), numpy {numpy.__version__}"
        + ("" if "torch" in libs else "; torch not installed: kusari only")
    )
    if quick:
        print("--quick: ResNet-50 at batch 4 instead of 16")
    head = f"{'workload':<34}"
    for n in counts:
        head += f" | {'kusari':>7} {'torch':>7} {'ratio':>5} @{n}t"
    head += f" | {'speedup ' + str(lo) + '->' + str(hi):>15}"
    head += f" | {'CPU/wall @' + str(hi) + 't':>11} | {'peak MiB (Δ)':>23}"
    print(head)
    print("-" * len(head))
    for name in names:
        label = LABELS[name]
        if name == "resnet50":
            label += f" b{4 if quick else 16}"
        row = f"{label:<34}"
        for n in counts:
            k, t = res.get((name, "kusari", n)), res.get((name, "torch", n))
            row += f" | {_fmt_ms(k):>7} {_fmt_ms(t):>7} {_ratio(k, t):>5}    "
        sp = []
        for lib in libs:
            a, b = res.get((name, lib, lo)), res.get((name, lib, hi))
            sp.append(_ratio(a, b))
        row += f" | {' / '.join(sp):>15}"
        row += f" | {' / '.join(_util(res.get((name, lib, hi))) for lib in libs):>11}"
        mem = []
        for lib in libs:
            r = res.get((name, lib, hi))
            mem.append(f"{_mib(r, 'peak_kib')} ({_mib(r, 'delta_kib')})")
        row += f" | {' / '.join(mem):>23}"
        print(row)
    errors = [(k, v["error"]) for k, v in res.items() if "error" in v]
    for key, err in errors:
        print(f"error in {key}: {err}")
    print(
        f"speedup {lo}->{hi}: each library's time at {lo} thread(s) over its time "
        f"at {hi} (kusari / torch); peak MiB: resident peak at {hi} thread(s), "
        "kusari / torch, Δ: growth over the built model and data; CPU/wall: "
        f"process CPU time over wall time in the timed steps at {hi} thread(s) "
        "(above the speedup: threads spinning)"
    )


if __name__ == "__main__":
    main()
