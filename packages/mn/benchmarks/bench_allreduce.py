#!/usr/bin/env python
"""``multi_node_mean_grad`` against a raw mpi4py ``Allreduce`` of the same bytes.

Two parameter sets: the MNIST MLP 784-1000-1000-10 (1.8 M float32) and one
with ResNet-50's 161 parameter shapes (25.6 M float32). Both measurements
run in the same job, interleaved, and the median of each is reported with
their ratio (the packing and unpacking are the whole difference).

    python bench_allreduce.py [--ranks 2] [--repeat 30]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable

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


def worker(repeat: int) -> None:
    from mpi4py import MPI

    import kusari_mn

    comm = kusari_mn.create_communicator("flat")
    results = {}
    for name, shapes in (("mlp", mlp_shapes()), ("resnet50", resnet50_shapes())):
        model = build(shapes)
        n = sum(int(np.prod(s)) for s in shapes)
        raw = np.ones(n, np.float32)
        reps = repeat if n < 5_000_000 else max(5, repeat // 4)
        for _ in range(2):  # warm up both paths (buffers, MPI connections)
            comm.multi_node_mean_grad(model)
            comm.mpi_comm.Allreduce(MPI.IN_PLACE, raw, MPI.SUM)
        t_mn, t_raw = [], []

        def timed(fn: Callable[..., None], *args: object) -> float:
            comm.mpi_comm.Barrier()
            t0 = time.perf_counter()
            fn(*args)
            return time.perf_counter() - t0

        mean_grad = comm.multi_node_mean_grad
        allreduce = comm.mpi_comm.Allreduce
        for rep in range(reps):
            # alternate the order so neither side always runs second
            if rep % 2:
                t_raw.append(timed(allreduce, MPI.IN_PLACE, raw, MPI.SUM))
                t_mn.append(timed(mean_grad, model))
            else:
                t_mn.append(timed(mean_grad, model))
                t_raw.append(timed(allreduce, MPI.IN_PLACE, raw, MPI.SUM))
        # every rank's slowest view of each repetition, then the median
        a_mn, a_raw = np.array(t_mn), np.array(t_raw)
        comm.mpi_comm.Allreduce(MPI.IN_PLACE, a_mn, MPI.MAX)
        comm.mpi_comm.Allreduce(MPI.IN_PLACE, a_raw, MPI.MAX)
        t_mn, t_raw = list(a_mn), list(a_raw)
        results[name] = {
            "floats": n,
            "arrays": len(shapes),
            "mean_grad_ms": float(np.median(t_mn) * 1e3),
            "raw_allreduce_ms": float(np.median(t_raw) * 1e3),
        }
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
        f"kusari_mn multi_node_mean_grad vs raw mpi4py Allreduce, "
        f"{data['ranks']} ranks (median)"
    )
    print(
        f"{'params':<10}{'arrays':>8}{'MB':>9}{'mean_grad ms':>15}"
        f"{'Allreduce ms':>15}{'ratio':>8}"
    )
    for name, r in data["results"].items():
        ratio = r["mean_grad_ms"] / r["raw_allreduce_ms"]
        print(
            f"{name:<10}{r['arrays']:>8}{r['floats'] * 4 / 1e6:>9.1f}"
            f"{r['mean_grad_ms']:>15.2f}{r['raw_allreduce_ms']:>15.2f}"
            f"{ratio:>8.3f}"
        )


if __name__ == "__main__":
    main()
