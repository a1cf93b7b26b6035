#!/usr/bin/env python
"""Data-parallel MNIST MLP (784-1000-1000-10, batch 100 per rank) throughput.

Four jobs: 1 rank; 2 ranks averaging gradients ('flat'); the same with
double buffering; 2 ranks that do not communicate ('dummy': same gradient
buffer, no Allreduce), which is what this machine allows two ranks at most.
Each job times three windows of iterations and keeps the best; the four
jobs are repeated ``--rounds`` times, interleaved, and the best round of
each is reported with the worst (how noisy the machine was), and the
ratios to 1 rank and to the non-communicating ceiling. Synthetic data, so
nothing is downloaded.

``--compare-destinations`` adds a job of 2 ranks whose backward hands out
new gradient arrays, as before the multi-node optimizer wrote them into its
buffer (``grad_destinations``), to compare in the same run.

``--paired N`` adds one more job: the 2-rank cases (averaging, not
communicating, new gradient arrays) in one 2-rank job, N windows of each
in rotating order, and the averaging pair's throughput as a share of the
non-communicating pair's, window by window: on a shared machine, the
measure that load swings between jobs do not decide.

``--profile`` instead splits every step of 1 rank, 2 non-communicating
ranks and 2 averaging ranks into forward + backward, the exchange and the
update, and the exchange into the wait for the last rank, time blocked on
a peer and moving bytes in the ring's ``Sendrecv``, its adds and scaling,
the allgather and the call's Python (see ``_profile.py``). ``--yield`` sets
whether waiting ranks spin or yield their core, for every job (``auto``:
yield where the load says the cores are taken; see ``_launch.py``).

    python bench_data_parallel.py [--iterations 20] [--rounds 3] [--profile]
        [--compare-destinations] [--paired 30] [--yield auto]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _launch import mpiexec, under_mpi, yield_policy
from _profile import profile_steps


def _setup(
    communicator: str,
    batch: int,
    double_buffering: bool = False,
    grad_dtype: str | None = None,
    destinations: bool = True,
) -> tuple[Any, Any, Any, Any, Any]:
    """A communicator, the MLP, its multi-node optimizer (after 3 updates)
    and this rank's batch."""
    import kusari
    import kusari.functions as F
    import kusari.links as L
    import kusari_mn

    comm = kusari_mn.create_communicator(communicator, allreduce_grad_dtype=grad_dtype)

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
    # (the multi-node optimizer's own switch, there to compare)
    object.__setattr__(optimizer, "_use_destinations", destinations)
    rng = np.random.RandomState(comm.rank)
    x = rng.rand(batch, 784).astype(np.float32)
    t = rng.randint(0, 10, batch).astype(np.int32)
    for _ in range(3):
        optimizer.update(model, x, t)
    return comm, optimizer, model, x, t


def worker(
    communicator: str,
    iterations: int,
    batch: int,
    double_buffering: bool = False,
    grad_dtype: str | None = None,
    profile: bool = False,
    destinations: bool = True,
) -> None:
    comm, optimizer, model, x, t = _setup(
        communicator, batch, double_buffering, grad_dtype, destinations
    )
    if profile:
        profile_steps(comm, optimizer, model, x, t, iterations)
        return
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


#: The jobs of ``--paired``, one 2-rank job: label, communicator, destinations.
PAIRED = (
    ("2 ranks", "flat", True),
    ("2 ranks, no comm", "dummy", True),
    ("2 ranks, new grad arrays", "flat", False),
)


def paired_worker(iterations: int, batch: int, windows: int) -> None:
    """The 2-rank jobs of :data:`PAIRED` in one job, windows of
    ``iterations`` steps of each in rotating order (a Barrier around each
    window, so a window lasts as long as its slower rank): the share of the
    ceiling paired window by window, which a slow spell of a shared machine
    moves much less than it moves separate jobs' bests."""
    setups = {label: _setup(name, batch, False, None, d) for label, name, d in PAIRED}
    mpi = next(iter(setups.values()))[0].mpi_comm
    times: dict[str, list[float]] = {label: [] for label in setups}
    labels = list(setups)
    for w in range(windows):
        for label in labels[w % len(labels) :] + labels[: w % len(labels)]:
            _, optimizer, model, x, t = setups[label]
            optimizer.update(model, x, t)  # its own arrays back in cache
            mpi.Barrier()
            start = time.perf_counter()
            for _ in range(iterations):
                optimizer.update(model, x, t)
            mpi.Barrier()
            times[label].append((time.perf_counter() - start) / iterations)
    if mpi.rank != 0:
        return
    free = np.array(times["2 ranks, no comm"])
    print(
        json.dumps(
            {
                label: {
                    "best_ms": float(min(ts) * 1e3),
                    "median_ms": float(np.median(ts) * 1e3),
                    # throughput as a share of the ceiling's, window by window
                    "of_ceiling": float(np.median(free / np.array(ts))),
                }
                for label, ts in times.items()
            }
        )
    )


def _run_profile(args: argparse.Namespace) -> None:
    yields, note = yield_policy(2)
    print(
        f"where a step goes (medians over {args.iterations} iterations, mean of "
        f"the ranks, ms; {args.rounds} rounds); {note}"
    )
    jobs = [(1, "flat", True), (2, "dummy", True), (2, "flat", True)]
    if args.compare_destinations:
        jobs.append((2, "flat", False))
    for round_ in range(args.rounds):
        for n, name, dests in jobs:
            out = mpiexec(
                n,
                __file__,
                "--worker",
                "--profile",
                "--communicator",
                name,
                "--iterations",
                str(args.iterations),
                "--batchsize",
                str(args.batchsize),
                *([] if dests else ["--no-destinations"]),
                yield_when_idle=yields,
            )
            data = json.loads(out.strip().splitlines()[-1])
            parts = ", ".join(f"{k} {v:.2f}" for k, v in data["parts_ms"].items())
            how = "" if dests else ", new grad arrays"
            print(f"  round {round_}, {n} rank(s) {name}{how}: {parts}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--batchsize", type=int, default=100)
    parser.add_argument("--communicator", default="flat")
    parser.add_argument(
        "--double-buffering",
        action="store_true",
        help="only the double-buffered 2-rank job (and 1 rank, the ceiling)",
    )
    parser.add_argument(
        "--allreduce-grad-dtype", default=None, help="e.g. float16 on the wire"
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="interleaved repeats of every job"
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="split each step into compute, waiting, exchange and update",
    )
    parser.add_argument(
        "--compare-destinations",
        action="store_true",
        help="add 2 ranks with backward handing out new gradient arrays",
    )
    parser.add_argument(
        "--paired",
        type=int,
        default=0,
        metavar="WINDOWS",
        help="also the 2-rank jobs interleaved in one job, WINDOWS windows each",
    )
    parser.add_argument(
        "--yield",
        dest="yield_",
        choices=("auto", "on", "off"),
        default="auto",
        help="whether waiting ranks yield their core (auto: by the load)",
    )
    parser.add_argument("--paired-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--no-destinations", action="store_true", help=argparse.SUPPRESS
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.paired_worker:
        paired_worker(args.iterations, args.batchsize, args.paired)
        return
    if args.worker or under_mpi():
        worker(
            args.communicator,
            args.iterations,
            args.batchsize,
            args.double_buffering,
            args.allreduce_grad_dtype,
            args.profile,
            not args.no_destinations,
        )
        return
    preset = {"on": "1", "off": "0"}.get(args.yield_)
    if preset is not None:
        os.environ["OMPI_MCA_mpi_yield_when_idle"] = preset
    if args.profile:
        _run_profile(args)
        return
    configs = [
        ("1 rank", 1, "flat", False, True),
        ("2 ranks", 2, "flat", False, True),
        ("2 ranks, double buffering", 2, "flat", True, True),
        ("2 ranks, no comm", 2, "dummy", False, True),
    ]
    if args.compare_destinations:
        configs.append(("2 ranks, new grad arrays", 2, "flat", False, False))
    if args.double_buffering:
        configs = [c for c in configs if c[3] or c[1] == 1 or c[2] == "dummy"]
    runs: dict[str, list[dict[str, float]]] = {c[0]: [] for c in configs}
    # one waiting policy for every job of the run (see _launch.yield_policy)
    yields, note = yield_policy(2)
    for round_ in range(args.rounds):
        # the jobs of one round run back to back, in rotating order, so that
        # a busy spell on the shared machine does not hit one of them only
        k = round_ % len(configs)
        for label, n, name, double_buffering, dests in configs[k:] + configs[:k]:
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
                *(["--double-buffering"] if double_buffering else []),
                *([] if dests else ["--no-destinations"]),
                *(
                    ["--allreduce-grad-dtype", args.allreduce_grad_dtype]
                    if args.allreduce_grad_dtype
                    else []
                ),
                yield_when_idle=yields,
            )
            runs[label].append(json.loads(out.strip().splitlines()[-1]))
    print(
        f"kusari_mn data-parallel MNIST MLP, batch {args.batchsize}/rank, "
        f"{args.rounds} interleaved rounds (each job: best of 3 windows of "
        f"{args.iterations} iterations); best and worst round\n{note} at the "
        f"start, {os.getloadavg()[0]:.1f} at the end"
    )
    best = {}
    for label, rs in runs.items():
        speeds = [r["images_per_s"] for r in rs]
        best[label] = max(speeds)
        print(
            f"{label:<28}{max(speeds):>9.0f} images/s (worst {min(speeds):.0f})"
            f"{min(r['ms_per_iteration'] for r in rs):>9.1f} ms/iteration"
        )
    one, free = best["1 rank"], best["2 ranks, no comm"]
    print(f"ceiling, 2 non-communicating / 1 rank:  {free / one:.2f}x")
    for label in best:
        if label in ("1 rank", "2 ranks, no comm"):
            continue
        two = best[label]
        print(
            f"{label + ':':<28} {two / one:.2f}x of 1 rank, "
            f"{two / free:.0%} of the ceiling"
        )
    if args.paired:
        out = mpiexec(
            2,
            __file__,
            "--paired-worker",
            "--paired",
            str(args.paired),
            "--iterations",
            str(args.iterations),
            "--batchsize",
            str(args.batchsize),
            yield_when_idle=yields,
        )
        data = json.loads(out.strip().splitlines()[-1])
        print(
            f"the 2-rank jobs in one job, {args.paired} windows of "
            f"{args.iterations} iterations each, interleaved (load "
            f"{os.getloadavg()[0]:.1f} after); ms/iteration best (median), "
            "throughput / the ceiling's, median over windows:"
        )
        for label, r in data.items():
            print(
                f"  {label:<26}{r['best_ms']:>7.1f} ({r['median_ms']:.1f}) ms   "
                f"{r['of_ceiling']:.1%} of the ceiling"
            )


if __name__ == "__main__":
    main()
