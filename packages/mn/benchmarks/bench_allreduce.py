#!/usr/bin/env python
"""``multi_node_mean_grad`` against a raw mpi4py ``Allreduce`` of the same bytes.

Two parameter sets: the MNIST MLP 784-1000-1000-10 (1.8 M float32) and one
with ResNet-50's 161 parameter shapes (25.6 M float32). All cases run in
the same job, interleaved in rotating order; the best and the median of
each are reported, with the best's ratio to the raw Allreduce. Cases:
gradients already in the buffer's views (only the division by the size is
left), gradients replaced by new arrays (copied in once, divided on the
way), float16 on the wire (Alltoallv + NumPy sum + Allgatherv), and for
comparison float16 summed by one Allreduce with a Python-level MPI user op.

    python bench_allreduce.py [--ranks 2] [--repeat 30]
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
from _launch import mpiexec, under_mpi


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


def worker(repeat: int) -> None:
    from mpi4py import MPI

    import kusari_mn

    comm = kusari_mn.create_communicator("flat")
    half = kusari_mn.create_communicator("flat", allreduce_grad_dtype=np.float16)
    # the same, but summing float16 with one Allreduce and a Python user op
    half_op = kusari_mn.create_communicator("flat", allreduce_grad_dtype=np.float16)
    half_op._half = _user_op_half_sum  # type: ignore[attr-defined]
    mpi = comm.mpi_comm
    results = {}
    for name, shapes in (("mlp", mlp_shapes()), ("resnet50", resnet50_shapes())):
        # One model per case: a communicator leaves its own buffer's views as
        # the gradients, so cases sharing a model would copy each other's.
        models = {k: build(shapes) for k in ("views", "fresh", "fp16", "fp16_userop")}
        fresh = [p.grad.copy() for p in models["fresh"].params()]
        n = sum(int(np.prod(s)) for s in shapes)
        raw = np.ones(n, np.float32)
        reps = repeat if n < 5_000_000 else max(5, repeat // 3)

        replace_grads = partial(_replace_grads, models["fresh"], fresh)

        cases: dict[str, tuple[Callable[[], object], Callable[[], None] | None]] = {
            "raw": (partial(mpi.Allreduce, MPI.IN_PLACE, raw, MPI.SUM), None),
            "views": (partial(comm.multi_node_mean_grad, models["views"]), None),
            "fresh": (
                partial(comm.multi_node_mean_grad, models["fresh"]),
                replace_grads,
            ),
            "fp16": (partial(half.multi_node_mean_grad, models["fp16"]), None),
            "fp16_userop": (
                partial(half_op.multi_node_mean_grad, models["fp16_userop"]),
                None,
            ),
        }
        times: dict[str, list[float]] = {k: [] for k in cases}
        for fn, setup in cases.values():  # warm up (buffers, connections)
            for _ in range(2):
                if setup is not None:
                    setup()
                fn()
        keys = list(cases)
        for rep in range(reps):
            # rotate the order so no case always runs first or last
            for key in keys[rep % len(keys) :] + keys[: rep % len(keys)]:
                fn, setup = cases[key]
                if setup is not None:
                    setup()
                mpi.Barrier()
                t0 = time.perf_counter()
                fn()
                times[key].append(time.perf_counter() - t0)
        out = {"floats": n, "arrays": len(shapes), "reps": reps}
        for key, ts in times.items():
            # every rank's slowest view of each repetition
            a = np.array(ts)
            mpi.Allreduce(MPI.IN_PLACE, a, MPI.MAX)
            out[key] = {
                "best_ms": float(a.min() * 1e3),
                "median_ms": float(np.median(a) * 1e3),
            }
        results[name] = out
    if comm.rank == 0:
        print(json.dumps({"ranks": comm.size, "results": results}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker or under_mpi():
        worker(args.repeat)
        return
    out = mpiexec(args.ranks, __file__, "--worker", "--repeat", str(args.repeat))
    data = json.loads(out.strip().splitlines()[-1])
    print(
        f"kusari_mn multi_node_mean_grad vs raw mpi4py Allreduce (float32, same "
        f"bytes), {data['ranks']} ranks, 1 BLAS thread each; best (median) ms"
    )
    print(
        "views: gradients left in their buffer views; fresh: replaced by new "
        "arrays (cleargrads + backward);\nfp16: allreduce_grad_dtype=float16; "
        "fp16_userop: the same, summed by one Allreduce with a Python-level MPI user op"
    )
    for name, r in data["results"].items():
        raw = r["raw"]["best_ms"]
        print(
            f"{name}: {r['arrays']} arrays, {r['floats'] * 4 / 1e6:.1f} MB, "
            f"{r['reps']} repeats"
        )
        for key in ("raw", "views", "fresh", "fp16", "fp16_userop"):
            t = r[key]
            print(
                f"  {key:<12}{t['best_ms']:>9.2f} ({t['median_ms']:.2f})"
                f"   x{t['best_ms'] / raw:.3f} of raw"
            )


if __name__ == "__main__":
    main()
