#!/usr/bin/env python
"""Data-parallel MNIST MLP (784-1000-1000-10, batch 100 per rank) throughput.

Three jobs: 1 rank; 2 ranks averaging gradients ('flat'); 2 ranks that do
not communicate ('dummy': same packing, no Allreduce). Each job times
three windows of iterations and keeps the best. Reported: images/s of each
and the ratios 2 ranks / 1 rank and 2 ranks / 2 non-communicating ranks.
Synthetic data, so nothing is downloaded.

    python bench_data_parallel.py [--iterations 20]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _launch import mpiexec, under_mpi


def worker(
    communicator: str,
    iterations: int,
    batch: int,
    double_buffering: bool = False,
    grad_dtype: str | None = None,
) -> None:
    import kusari
    import kusari.functions as F
    import kusari.links as L
    import kusari_mn

    comm = kusari_mn.create_communicator(
        communicator, allreduce_grad_dtype=grad_dtype
    )

    class MLP(kusari.Chain):
        def __init__(self) -> None:
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(784, 1000)
                self.l2 = L.Linear(1000, 1000)
                self.l3 = L.Linear(1000, 10)

        def forward(self, x: object) -> object:
            return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))

    model = L.Classifier(MLP())
    optimizer = kusari_mn.create_multi_node_optimizer(
        kusari.optimizers.MomentumSGD(lr=0.01), comm, double_buffering=double_buffering
    )
    optimizer.setup(model)
    rng = np.random.RandomState(comm.rank)
    x = rng.rand(batch, 784).astype(np.float32)
    t = rng.randint(0, 10, batch).astype(np.int32)
    for _ in range(3):
        optimizer.update(model, x, t)
    best = float("inf")
    for _ in range(3):
        comm.mpi_comm.Barrier()
        start = time.perf_counter()
        for _ in range(iterations):
            optimizer.update(model, x, t)
        comm.mpi_comm.Barrier()
        best = min(best, time.perf_counter() - start)
    if comm.rank == 0:
        images = comm.size * batch * iterations / best
        print(
            json.dumps(
                {
                    "ranks": comm.size,
                    "communicator": communicator,
                    "images_per_s": images,
                    "ms_per_iteration": best / iterations * 1e3,
                }
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--batchsize", type=int, default=100)
    parser.add_argument("--communicator", default="flat")
    parser.add_argument(
        "--double-buffering",
        action="store_true",
        help="overlap each step's Allreduce with the next step (stale by one)",
    )
    parser.add_argument(
        "--allreduce-grad-dtype", default=None, help="e.g. float16 on the wire"
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker or under_mpi():
        worker(
            args.communicator,
            args.iterations,
            args.batchsize,
            args.double_buffering,
            args.allreduce_grad_dtype,
        )
        return
    runs = {}
    for label, n, name in (
        ("1 rank", 1, "flat"),
        ("2 ranks", 2, "flat"),
        ("2 ranks, no comm", 2, "dummy"),
    ):
        out = mpiexec(
            n,
            __file__,
            "--worker",
            "--communicator",
            name,
            "--iterations",
            str(args.iterations),
            "--batchsize",
            str(args.batchsize),
            *(["--double-buffering"] if args.double_buffering else []),
            *(
                ["--allreduce-grad-dtype", args.allreduce_grad_dtype]
                if args.allreduce_grad_dtype
                else []
            ),
        )
        runs[label] = json.loads(out.strip().splitlines()[-1])
    print(
        f"kusari_mn data-parallel MNIST MLP, batch {args.batchsize}/rank "
        f"(best of 3 windows of {args.iterations} iterations)"
    )
    for label, r in runs.items():
        print(
            f"{label:<18}{r['images_per_s']:>10.0f} images/s"
            f"{r['ms_per_iteration']:>10.1f} ms/iteration"
        )
    one, two, free = (runs[k]["images_per_s"] for k in runs)
    print(f"2 ranks / 1 rank:                 {two / one:.2f}x")
    print(f"2 ranks / 2 non-communicating:    {two / free:.2f}x")


if __name__ == "__main__":
    main()
