#!/usr/bin/env python
"""``multi_node_mean_grad`` against a raw mpi4py ``Allreduce`` of the same bytes.

Two parameter sets: the MNIST MLP 784-1000-1000-10 (1.8 M float32) and one
with ResNet-50's 161 parameter shapes (25.6 M float32). All cases run in
the same job, interleaved in rotating order; the best and the median of
each are reported, with the best's ratio to the raw Allreduce and the
median of the per-repetition ratios. Cases:
gradients already in the buffer's views, gradients replaced by new arrays
(copied in once), the views again with the ring reduction switched off
(divided by the size in one pass, then one Allreduce: what
``multi_node_mean_grad`` does below the ring's size threshold), float16 on
the wire (Alltoallv + NumPy sum + Allgatherv), and for comparison float16
summed by one Allreduce with a Python-level MPI user op.

    python bench_allreduce.py [--ranks 2] [--repeat 100]
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


def _user_op_half_sum(mpi_comm: object, buf: np.ndarray) -> None:
    from mpi4py import MPI

    from kusari_mn.communicators._reduction import sum_op_and_type

    op, mpi_type = sum_op_and_type(buf)
    mpi_comm.Allreduce(MPI.IN_PLACE, [buf, mpi_type], op)  # type: ignore[attr-defined]


def _time_cases(
    mpi: object,
    cases: dict[str, tuple[Callable[[], object], Callable[[], None] | None]],
    reps: int,
    flush: np.ndarray | None,
    calls: int = 1,
) -> dict[str, np.ndarray]:
    """Every rank's slowest time per call of each repetition of each case, in s.

    Each repetition runs every case once, in rotating order (no case always
    first or last). Before its timed calls a case runs once untimed, so
    that every case is timed in the same cache state: its own buffer warm,
    as in a training loop that reduces the same buffer every step. Then
    ``calls`` calls run back to back and their mean is the sample: after
    the first, the ranks arrive at each call together, as in training,
    where one call alone would charge the call for how far apart the
    ranks left the Barrier before it (large on a busy machine). With
    ``flush`` (and one call), a pass over that array (larger than the
    last-level cache) evicts the buffers first, so every case runs cold.
    """
    from mpi4py import MPI

    times: dict[str, list[float]] = {k: [] for k in cases}
    keys = list(cases)
    for rep in range(reps):
        for key in keys[rep % len(keys) :] + keys[: rep % len(keys)]:
            fn, setup = cases[key]
            if setup is not None:
                setup()
            fn()
            if flush is not None:
                flush += 1.0
            mpi.Barrier()  # type: ignore[attr-defined]
            t0 = time.perf_counter()
            for _ in range(calls):
                if setup is not None:
                    setup()  # a few reference assignments (microseconds)
                fn()
            times[key].append((time.perf_counter() - t0) / calls)
    out = {}
    for key, ts in times.items():
        a = np.array(ts)
        mpi.Allreduce(MPI.IN_PLACE, a, MPI.MAX)  # type: ignore[attr-defined]
        out[key] = a
    return out


def _summary(times: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    raw = times["raw"]
    return {
        key: {
            "best_ms": float(a.min() * 1e3),
            "median_ms": float(np.median(a) * 1e3),
            # the ratio within each repetition, whose median a slow spell
            # of the shared machine that hits both cases does not move
            "paired": float(np.median(a / raw)),
        }
        for key, a in times.items()
    }


def worker(repeat: int) -> None:
    from mpi4py import MPI

    import kusari_mn

    comm = kusari_mn.create_communicator("flat")
    # the same, with the ring reduction (mean fused into it) switched off
    no_ring = kusari_mn.create_communicator("flat")
    no_ring._ring_min_shard_bytes = 1 << 62
    half = kusari_mn.create_communicator("flat", allreduce_grad_dtype=np.float16)
    # the same, but summing float16 with one Allreduce and a Python user op
    half_op = kusari_mn.create_communicator("flat", allreduce_grad_dtype=np.float16)
    half_op._half = _user_op_half_sum  # type: ignore[assignment]
    mpi = comm.mpi_comm
    # 64 MB: more than the last-level cache of the machines this runs on
    flush = np.zeros(8 * 2**20)
    results: dict[str, object] = {"load_before": os.getloadavg()[0]}
    for name, shapes in (("mlp", mlp_shapes()), ("resnet50", resnet50_shapes())):
        # One model per case: a communicator leaves its own buffer's views as
        # the gradients, so cases sharing a model would copy each other's.
        models = {
            k: build(shapes)
            for k in ("views", "fresh", "views_allreduce", "fp16", "fp16_userop")
        }
        fresh = [p.grad.copy() for p in models["fresh"].params()]  # type: ignore[attr-defined]
        n = sum(int(np.prod(s)) for s in shapes)
        # zeros: summing them in place never overflows, however many calls
        raw = np.zeros(n, np.float32)
        small = n < 5_000_000
        reps = repeat if small else max(5, repeat // 6)

        replace_grads = partial(_replace_grads, models["fresh"], fresh)
        f32: dict[str, tuple[Callable[[], object], Callable[[], None] | None]] = {
            "raw": (partial(mpi.Allreduce, MPI.IN_PLACE, raw, MPI.SUM), None),
            "views": (partial(comm.multi_node_mean_grad, models["views"]), None),
            "fresh": (
                partial(comm.multi_node_mean_grad, models["fresh"]),
                replace_grads,
            ),
            "views_allreduce": (
                partial(no_ring.multi_node_mean_grad, models["views_allreduce"]),
                None,
            ),
        }
        out: dict[str, object] = {"floats": n, "arrays": len(shapes), "reps": reps}
        calls = 10 if small else 2
        out["calls"] = calls
        out["warm"] = _summary(_time_cases(mpi, f32, reps, None, calls))
        if small:  # ResNet-50's 102 MB never fit the cache: always cold
            out["cold"] = _summary(_time_cases(mpi, f32, reps, flush))
        # float16 apart: its casts churn the cache and take tens of times as
        # long, which would disturb the float32 cases' timings
        f16: dict[str, tuple[Callable[[], object], Callable[[], None] | None]] = {
            "raw": f32["raw"],
            "fp16": (partial(half.multi_node_mean_grad, models["fp16"]), None),
            "fp16_userop": (
                partial(half_op.multi_node_mean_grad, models["fp16_userop"]),
                None,
            ),
        }
        out["fp16"] = _summary(_time_cases(mpi, f16, max(3, reps // 6), None, 1))
        results[name] = out
    results["load_after"] = os.getloadavg()[0]
    if comm.rank == 0:
        print(json.dumps({"ranks": comm.size, "results": results}))


def _print_block(title: str, block: dict[str, dict[str, float]]) -> None:
    raw = block["raw"]["best_ms"]
    print(f"  {title}")
    for key, t in block.items():
        print(
            f"    {key:<16}{t['best_ms']:>9.2f} ({t['median_ms']:.2f})"
            f"   best x{t['best_ms'] / raw:.3f} of raw, paired median "
            f"x{t['paired']:.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=100)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker or under_mpi():
        worker(args.repeat)
        return
    yields, note = yield_policy(args.ranks)
    out = mpiexec(
        args.ranks,
        __file__,
        "--worker",
        "--repeat",
        str(args.repeat),
        yield_when_idle=yields,
    )
    data = json.loads(out.strip().splitlines()[-1])
    results = data["results"]
    print(
        f"kusari_mn multi_node_mean_grad vs raw mpi4py Allreduce (in place, same "
        f"float32 bytes), {data['ranks']} ranks, 1 BLAS thread each; best "
        f"(median) ms\n{note}; load average in the job "
        f"{results['load_before']:.1f} at the start, {results['load_after']:.1f} "
        "at the end"
    )
    print(
        "views: gradients left in their buffer views; fresh: replaced by new "
        "arrays (cleargrads + backward);\nviews_allreduce: views, ring off "
        "(1/size pass + one Allreduce);\nwarm: every case's buffer in cache, "
        "the mean of back-to-back calls (as in training); cold: caches flushed, "
        "then one call after a Barrier;\n"
        "fp16: allreduce_grad_dtype=float16; fp16_userop: the same, summed by "
        "one Allreduce with a Python-level MPI user op;\npaired: median over "
        "repetitions of the case's time / raw's time in the same repetition"
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


if __name__ == "__main__":
    main()
