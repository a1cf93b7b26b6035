#!/usr/bin/env python
"""``multi_node_mean_grad`` against a raw mpi4py ``Allreduce`` of the same bytes.

Two parameter sets: the MNIST MLP 784-1000-1000-10 (1.8 M float32) and one
with ResNet-50's 161 parameter shapes (25.6 M float32). All cases run in
the same job, interleaved in rotating order, many repetitions. For each
case the report gives the best and the median time per call, and, what
decides, the **paired** medians: the median over repetitions of the case's
time divided by the raw Allreduce's time *in the same repetition*, for wall
time (the slowest rank) and for CPU time (both ranks added), which a slow
spell of a shared machine moves much less than wall time. Cases:
gradients already in the buffer's views, gradients just written into their
views (what the multi-node optimizer's backward does: it writes each
gradient into the buffer), gradients replaced by new arrays (what a plain
``cleargrads`` + backward makes, and what training did before backward
wrote into the buffer; its fair baseline, printed apart, is the raw
Allreduce of bytes just written into its buffer too), the views again with
the ring reduction
switched off (divided by the size in one pass, then one Allreduce: what
``multi_node_mean_grad`` does below the ring's size threshold), the bare
ring on a plain buffer (the transport without the call around it), the
same with its last add and division as two NumPy passes, float16
on the wire (Alltoallv + NumPy sum + Allgatherv), and for comparison float16
summed by one Allreduce with a Python-level MPI user op.

``--sweep`` times the ring against the pass + Allreduce on plain buffers
from 64 KiB to 64 MiB instead (paired the same way) and prints the smallest
size from which the ring wins at every larger size, for ``MIN_SHARD_BYTES``
in ``communicators/_ring.py``.

Whether waiting ranks spin or yield their core changes the result on a
busy machine (the ring waits ``size`` times per call, the Allreduce once):
``--yield auto`` (the default) yields when the load says the cores are
taken; ``on``/``off`` force it, to compare.

    python bench_allreduce.py [--ranks 2] [--repeat 100] [--sweep] [--yield auto]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from functools import partial

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _launch import mpiexec, under_mpi, yield_policy


def mlp_shapes() -> list[tuple[int, ...]]:
    return [(1000, 784), (1000,), (1000, 1000), (1000,), (10, 1000), (10,)]


def resnet50_shapes() -> list[tuple[int, ...]]:
    shapes: list[tuple[int, ...]] = [(64, 3, 7, 7), (64,), (64,), (64,)]
    in_ch = 64
    for n_blocks, ch, out in (
        (3, 64, 256),
        (4, 128, 512),
        (6, 256, 1024),
        (3, 512, 2048),
    ):
        for b in range(n_blocks):
            shapes += [
                (ch, in_ch, 1, 1),
                (ch,),
                (ch,),
                (ch, ch, 3, 3),
                (ch,),
                (ch,),
                (out, ch, 1, 1),
                (out,),
                (out,),
            ]
            if b == 0:
                shapes += [(out, in_ch, 1, 1), (out,), (out,)]
            in_ch = out
    return shapes + [(1000, 2048), (1000,)]


def build(shapes: list[tuple[int, ...]]) -> object:
    import kusari

    model = kusari.Link()
    with model.init_scope():
        for i, shape in enumerate(shapes):
            setattr(model, f"p{i:03d}", kusari.Parameter(np.zeros(shape, np.float32)))
    for p in model.params():
        p.grad = np.random.RandomState(0).rand(*p.shape).astype(np.float32)
    return model


def _replace_grads(model: object, fresh: list[np.ndarray]) -> None:
    # what cleargrads + backward leave: new arrays, not the buffer's views
    for p, g in zip(model.params(), fresh, strict=True):  # type: ignore[attr-defined]
        p.grad = g


def _write_grads(model: object, fresh: list[np.ndarray]) -> None:
    # what backward into the buffer leaves (MultiNodeOptimizer.update): new
    # values in the gradients' own views, just written
    for p, g in zip(model.params(), fresh, strict=True):  # type: ignore[attr-defined]
        np.copyto(p.grad, g)


def _user_op_half_sum(mpi_comm: object, buf: np.ndarray) -> None:
    from mpi4py import MPI

    from kusari_mn.communicators._reduction import sum_op_and_type

    op, mpi_type = sum_op_and_type(buf)
    mpi_comm.Allreduce(MPI.IN_PLACE, [buf, mpi_type], op)  # type: ignore[attr-defined]


Cases = dict[str, tuple[Callable[[], object], Callable[[], None] | None]]


def _time_cases(
    mpi: object,
    cases: Cases,
    reps: int,
    flush: np.ndarray | None,
    calls: int = 1,
    resets: dict[str, Callable[[], None]] | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per repetition of each case: the slowest rank's wall time and both
    ranks' CPU time added, per call, in s.

    Each repetition runs every case once, in rotating order (no case always
    first or last). Before its timed calls a case runs once untimed, so
    that every case is timed in the same cache state: its own buffer warm,
    as in a training loop that reduces the same buffer every step. Then,
    after a Barrier, ``calls`` calls run back to back and their mean is the
    sample: after the first, the ranks arrive at each call together, as in
    training, where one call alone would charge the call for how far apart
    the ranks left the Barrier (large on a busy machine). With ``flush``
    (and one call), a pass over that array (larger than the last-level
    cache) evicts the buffers first, so every case runs cold. ``resets``
    run untimed before a case's sample (the raw Allreduce's buffer gets the
    gradients' values back: sums grow, and the same bytes are compared).
    """
    from mpi4py import MPI

    wall: dict[str, list[float]] = {k: [] for k in cases}
    cpu: dict[str, list[float]] = {k: [] for k in cases}
    keys = list(cases)
    clock, cpu_clock = time.perf_counter, time.process_time
    for rep in range(reps):
        for key in keys[rep % len(keys) :] + keys[: rep % len(keys)]:
            fn, setup = cases[key]
            if resets and key in resets:
                resets[key]()
            if setup is not None:
                setup()
            fn()
            if flush is not None:
                flush += 1.0
            mpi.Barrier()  # type: ignore[attr-defined]
            w = c = 0.0
            for _ in range(calls):
                if setup is not None:
                    setup()  # untimed: what comes before the call in training
                c0 = cpu_clock()
                t0 = clock()
                fn()
                w += clock() - t0
                c += cpu_clock() - c0
            wall[key].append(w / calls)
            cpu[key].append(c / calls)
    out = {}
    for key in keys:
        w = np.array(wall[key])
        c = np.array(cpu[key])
        mpi.Allreduce(MPI.IN_PLACE, w, MPI.MAX)  # type: ignore[attr-defined]
        mpi.Allreduce(MPI.IN_PLACE, c, MPI.SUM)  # type: ignore[attr-defined]
        out[key] = (w, c)
    return out


def _summary(
    times: dict[str, tuple[np.ndarray, np.ndarray]], base: str = "raw"
) -> dict[str, dict[str, float]]:
    raw_wall, raw_cpu = times[base]
    return {
        key: {
            "best_ms": float(w.min() * 1e3),
            "median_ms": float(np.median(w) * 1e3),
            # the ratio within each repetition, whose median a slow spell
            # of the shared machine that hits both cases does not move
            "paired": float(np.median(w / raw_wall)),
            "cpu_ms": float(np.median(c) * 1e3),
            "paired_cpu": float(np.median(c / raw_cpu)),
        }
        for key, (w, c) in times.items()
    }


def _ring_vs_pass(
    times: dict[str, tuple[np.ndarray, np.ndarray]], ring: str, other: str
) -> dict[str, float]:
    """Paired medians of ``ring``'s time over ``other``'s (wall, CPU)."""
    (rw, rc), (ow, oc) = times[ring], times[other]
    return {"wall": float(np.median(rw / ow)), "cpu": float(np.median(rc / oc))}


def worker(repeat: int) -> None:
    from mpi4py import MPI

    import kusari_mn
    from kusari_mn.communicators._memory_utility import zeros
    from kusari_mn.communicators._ring import RingMean

    comm = kusari_mn.create_communicator("flat")
    # the same, with the ring reduction (mean fused into it) switched off
    no_ring = kusari_mn.create_communicator("flat")
    no_ring._ring_min_shard_bytes = 1 << 62
    half = kusari_mn.create_communicator("flat", allreduce_grad_dtype=np.float16)
    # the same, but summing float16 with one Allreduce and a Python user op
    half_op = kusari_mn.create_communicator("flat", allreduce_grad_dtype=np.float16)
    half_op._half = _user_op_half_sum  # type: ignore[assignment]
    mpi = comm.mpi_comm
    ring = RingMean()
    two_pass = RingMean(fuse_scale=False)
    # 64 MB: more than the last-level cache of the machines this runs on
    flush = np.zeros(8 * 2**20)
    results: dict[str, object] = {"load_before": os.getloadavg()[0]}
    for name, shapes in (("mlp", mlp_shapes()), ("resnet50", resnet50_shapes())):
        # One model per case: a communicator leaves its own buffer's views as
        # the gradients, so cases sharing a model would copy each other's.
        models = {
            k: build(shapes)
            for k in (
                "views",
                "backward",
                "fresh",
                "views_allreduce",
                "fp16",
                "fp16_userop",
            )
        }
        fresh = [p.grad.copy() for p in models["fresh"].params()]  # type: ignore[attr-defined]
        n = sum(int(np.prod(s)) for s in shapes)
        # The raw Allreduce sums the gradients' own values (refilled before
        # every sample, so that they grow by at most size**calls) on a
        # buffer placed like the communicator's: the same bytes. (It used
        # to sum zeros on an ordinary allocation, and how much of a buffer
        # is huge pages moved a 7.2 MB Allreduce by 20% here.)
        values = np.concatenate(
            [p.grad.ravel() for p in models["views_allreduce"].params()]  # type: ignore[attr-defined]
        )
        # placed like the communicator's buffers (huge pages: see zeros)
        raw = zeros(np, n, np.float32)
        raw[...] = values
        # the raw Allreduce of bytes just written, as backward would leave
        # them: the baseline of the "backward" case
        raw_written = zeros(np, n, np.float32)
        plain = zeros(np, n + 1, np.float32)  # the bare ring's (and a flag)
        plain[:n] = values
        plain_2 = zeros(np, n + 1, np.float32)
        plain_2[:n] = values
        resets = {"raw": partial(np.copyto, raw, values)}
        small = n < 5_000_000
        reps = repeat if small else max(5, repeat // 6)

        replace_grads = partial(_replace_grads, models["fresh"], fresh)
        write_grads = partial(_write_grads, models["backward"], fresh)
        f32: Cases = {
            "raw": (partial(mpi.Allreduce, MPI.IN_PLACE, raw, MPI.SUM), None),
            "raw_written": (
                partial(mpi.Allreduce, MPI.IN_PLACE, raw_written, MPI.SUM),
                partial(np.copyto, raw_written, values),
            ),
            "views": (partial(comm.multi_node_mean_grad, models["views"]), None),
            "backward": (
                partial(comm.multi_node_mean_grad, models["backward"]),
                write_grads,
            ),
            "fresh": (
                partial(comm.multi_node_mean_grad, models["fresh"]),
                replace_grads,
            ),
            "views_allreduce": (
                partial(no_ring.multi_node_mean_grad, models["views_allreduce"]),
                None,
            ),
            "ring_only": (partial(ring, mpi, plain, 1.0 / comm.size), None),
            # the same, the last step's add and 1/size as two NumPy passes
            "ring_two_pass": (
                partial(two_pass, mpi, plain_2, 1.0 / comm.size),
                None,
            ),
        }
        out: dict[str, object] = {"floats": n, "arrays": len(shapes), "reps": reps}
        calls = 10 if small else 2
        out["calls"] = calls
        warm = _time_cases(mpi, f32, reps, None, calls, resets)
        out["warm"] = _summary(warm)
        out["ring_vs_off"] = _ring_vs_pass(warm, "views", "views_allreduce")
        out["backward_vs_raw_written"] = _ring_vs_pass(warm, "backward", "raw_written")
        if small:  # ResNet-50's 102 MB never fit the cache: always cold
            cold = _time_cases(mpi, f32, reps, flush, 1, resets)
            out["cold"] = _summary(cold)
            out["ring_vs_off_cold"] = _ring_vs_pass(cold, "views", "views_allreduce")
            out["backward_vs_raw_written_cold"] = _ring_vs_pass(
                cold, "backward", "raw_written"
            )
        # float16 apart: its casts churn the cache and take tens of times as
        # long, which would disturb the float32 cases' timings
        f16: Cases = {
            "raw": f32["raw"],
            "fp16": (partial(half.multi_node_mean_grad, models["fp16"]), None),
            "fp16_userop": (
                partial(half_op.multi_node_mean_grad, models["fp16_userop"]),
                None,
            ),
        }
        out["fp16"] = _summary(
            _time_cases(mpi, f16, max(3, reps // 6), None, 1, resets)
        )
        results[name] = out
    results["load_after"] = os.getloadavg()[0]
    if comm.rank == 0:
        print(json.dumps({"ranks": comm.size, "results": results}))


#: Buffer sizes of ``--sweep``, bytes.
SWEEP_BYTES = [2**k for k in range(16, 27)] + [7_184_040, 24 << 20, 48 << 20]


def sweep_worker(repeat: int) -> None:
    """The ring against the 1/size pass + one Allreduce on plain float32
    buffers of every size in :data:`SWEEP_BYTES`, paired per repetition."""
    from mpi4py import MPI

    from kusari_mn.communicators._memory_utility import zeros
    from kusari_mn.communicators._ring import RingMean

    mpi = MPI.COMM_WORLD
    ring = RingMean()
    scale = 1.0 / mpi.size
    rows = []
    for nbytes in sorted(SWEEP_BYTES):
        # values like gradients' (a mean of equal values keeps them)
        a = zeros(np, nbytes // 4, np.float32)
        a[...] = np.random.RandomState(0).rand(nbytes // 4)
        b = zeros(np, nbytes // 4, np.float32)
        b[...] = a

        def pass_allreduce(buf: np.ndarray = b) -> None:
            np.multiply(buf, scale, out=buf)
            mpi.Allreduce(MPI.IN_PLACE, buf, MPI.SUM)

        cases: Cases = {
            "ring": (partial(ring, mpi, a, scale), None),
            "pass_allreduce": (pass_allreduce, None),
        }
        # the same number of calls per sample at every size (about 10 ms)
        calls = max(2, min(50, (10 << 20) // nbytes))
        reps = repeat if nbytes <= 8 << 20 else max(10, repeat // 4)
        times = _time_cases(mpi, cases, reps, None, calls)
        summary = _summary(times, base="pass_allreduce")["ring"]
        summary["bytes"] = nbytes
        summary["shard_bytes"] = nbytes // mpi.size
        summary["reps"] = reps
        rows.append(summary)
    if mpi.rank == 0:
        print(json.dumps({"ranks": mpi.size, "load": os.getloadavg()[0], "rows": rows}))


def _threshold(rows: list[dict[str, float]]) -> int | None:
    """The smallest shard size from which the ring's paired wall and CPU
    medians are both below the pass + Allreduce's at every larger size."""
    best = None
    for row in sorted(rows, key=lambda r: -r["bytes"]):
        if row["paired"] < 1.0 and row["paired_cpu"] < 1.0:
            best = int(row["shard_bytes"])
        else:
            break
    return best


def _print_block(title: str, block: dict[str, dict[str, float]]) -> None:
    raw = block["raw"]["best_ms"]
    print(f"  {title}")
    for key, t in block.items():
        print(
            f"    {key:<16}{t['best_ms']:>9.2f} ({t['median_ms']:.2f})"
            f"   best x{t['best_ms'] / raw:.3f} of raw, paired median "
            f"x{t['paired']:.3f}, CPU x{t['paired_cpu']:.3f}"
        )


def _launch(args: argparse.Namespace, mode: str) -> tuple[dict[str, object], str]:
    preset = {"on": "1", "off": "0"}.get(args.yield_)
    if preset is not None:
        os.environ["OMPI_MCA_mpi_yield_when_idle"] = preset
    yields, note = yield_policy(args.ranks)
    out = mpiexec(
        args.ranks,
        __file__,
        mode,
        "--repeat",
        str(args.repeat),
        yield_when_idle=yields,
    )
    return json.loads(out.strip().splitlines()[-1]), note


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=100)
    parser.add_argument(
        "--sweep", action="store_true", help="ring vs pass + Allreduce by size"
    )
    parser.add_argument(
        "--yield",
        dest="yield_",
        choices=("auto", "on", "off"),
        default="auto",
        help="whether waiting ranks yield their core (auto: by the load)",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--sweep-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sweep_worker:
        sweep_worker(args.repeat)
        return
    if args.worker or under_mpi():
        worker(args.repeat)
        return
    if args.sweep:
        data, note = _launch(args, "--sweep-worker")
        print(
            f"ring (mean fused) vs 1/size pass + Allreduce, {data['ranks']} ranks, "
            f"plain float32 buffers; {note}; load {data['load']:.1f} at the end\n"
            "paired: median over repetitions of ring time / pass+Allreduce time "
            "in the same repetition (wall: slowest rank; CPU: ranks added)"
        )
        for row in data["rows"]:  # type: ignore[attr-defined]
            print(
                f"  {row['bytes'] / 2**20:8.3f} MiB ({row['reps']} reps): ring "
                f"best {row['best_ms']:7.3f} ms, paired x{row['paired']:.3f}, "
                f"CPU x{row['paired_cpu']:.3f}"
            )
        shard = _threshold(data["rows"])  # type: ignore[arg-type]
        print(
            "ring wins from a shard of "
            + (
                "(no size)"
                if shard is None
                else f"{shard / 2**10:.0f} KiB "
                f"(a {shard * data['ranks'] / 2**20:.1f} MiB buffer)"
            )
            + " at every larger size in this run"
        )
        return
    data, note = _launch(args, "--worker")
    results = data["results"]
    print(
        f"kusari_mn multi_node_mean_grad vs raw mpi4py Allreduce (in place, same "
        f"float32 bytes), {data['ranks']} ranks, 1 BLAS thread each; best "
        f"(median) ms\n{note}; load average in the job "
        f"{results['load_before']:.1f} at the start, {results['load_after']:.1f} "
        "at the end"
    )
    print(
        "views: gradients left in their buffer views; backward: new values "
        "written into the views (as MultiNodeOptimizer's backward does);\n"
        "raw_written: the raw Allreduce of bytes just written into its buffer "
        "(backward's baseline);\n"
        "fresh: replaced by new arrays (a plain cleargrads + backward); "
        "views_allreduce: views, ring off "
        "(1/size pass + one Allreduce); ring_only: the ring on a plain buffer;\n"
        "ring_two_pass: the same with its last add and 1/size as two NumPy "
        "passes (no axpby);\n"
        "warm: every case's buffer in cache, the mean of back-to-back calls (as "
        "in training); cold: caches flushed, then one call after a Barrier;\n"
        "fp16: allreduce_grad_dtype=float16; fp16_userop: the same, summed by "
        "one Allreduce with a Python-level MPI user op;\npaired: median over "
        "repetitions of the case's time / raw's time in the same repetition "
        "(wall: slowest rank; CPU: both ranks' CPU time added)"
    )
    for name in ("mlp", "resnet50"):
        r = results[name]
        print(
            f"{name}: {r['arrays']} arrays, {r['floats'] * 4 / 1e6:.1f} MB, "
            f"{r['reps']} repetitions (warm: of {r['calls']} calls each)"
        )
        for mode in ("warm", "cold", "fp16"):
            if mode in r:
                _print_block(mode, r[mode])
        for key, label in (
            ("ring_vs_off", "ring on / ring off (warm, paired)"),
            ("ring_vs_off_cold", "ring on / ring off (cold, paired)"),
            ("backward_vs_raw_written", "backward / raw_written (warm, paired)"),
            ("backward_vs_raw_written_cold", "backward / raw_written (cold, paired)"),
        ):
            if key in r:
                v = r[key]
                print(f"  {label}: wall x{v['wall']:.3f}, CPU x{v['cpu']:.3f}")


if __name__ == "__main__":
    main()
