"""``bench_data_parallel.py --profile``: where each training step's time goes."""

from __future__ import annotations

import json
import os
import time
from typing import Any

import numpy as np


class _Timed:
    """Stands in for the ring's MPI communicator and NumPy while a step is
    profiled: records ``(kind, start, stop)`` of every ``Sendrecv``,
    ``Allgatherv`` and ``Allreduce`` call and every ``add``, ``multiply``
    and ``axpby`` (the ring's sums and its 1/size scaling); everything else
    passes through."""

    def __init__(self, inner: Any, events: list[tuple[str, float, float]]) -> None:
        self._inner = inner
        self._events = events

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        kind = _TIMED.get(name)
        if kind is None:
            return attr
        events, clock = self._events, time.perf_counter

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = clock()
            out = attr(*args, **kwargs)
            events.append((kind, t0, clock()))
            return out

        return timed


#: What :class:`_Timed` records, by the name of the call.
_TIMED = {
    "Sendrecv": "sendrecv",
    "Allgatherv": "allgather",
    "Allreduce": "allreduce",
    "add": "add",
    "multiply": "scale",
    # the ring's last add and its scaling in one pass (counted as adds)
    "axpby": "add",
}


def profile_steps(
    comm: Any, optimizer: Any, model: Any, x: Any, t: Any, iterations: int
) -> None:
    """Where a step's time goes, per iteration, on every rank.

    The step is the plain MultiNodeOptimizer.update split into its parts:
    forward + backward, the gradient averaging, the wrapped optimizer's
    update. ``time.perf_counter`` is CLOCK_MONOTONIC, one clock for every
    process of the machine, so the ranks' timestamps compare directly. The
    averaging is split into: waiting for the last rank to arrive (skew);
    inside the ring's ``Sendrecv`` calls, the time until both neighbours
    had entered the same call (blocked on a peer) and the rest (moving the
    bytes); the ring's adds and its 1/size scaling; the ``Allgatherv``
    (or, for buffers below the ring's size, the ``Allreduce``); and what
    is left, the call's Python and bookkeeping. Recording costs about a
    microsecond per call timed (a few dozen per step).
    """
    from kusari_mn.communicators import _ring
    from kusari_mn.optimizers import _backward

    actual = optimizer.actual_optimizer
    events: list[tuple[str, float, float]] = []
    per_step: list[tuple[float, float, float, float, list[Any]]] = []
    mpi_comm = getattr(comm, "mpi_comm", None)
    if mpi_comm is not None:
        comm.mpi_comm = _Timed(mpi_comm, events)
    numpy_module, blas_module = _ring.numpy, _ring.blas
    _ring.numpy = _Timed(numpy_module, events)  # type: ignore[assignment]
    _ring.blas = _Timed(blas_module, events)  # type: ignore[assignment]
    try:
        for _ in range(iterations):
            events.clear()
            t0 = time.perf_counter()
            # as MultiNodeOptimizer.update: backward into the averaging's buffer
            _backward(actual, model, (x, t), {}, optimizer._destination_buffer())
            t1 = time.perf_counter()
            synced = optimizer._mean_grad_or_resync(actual.target)
            t2 = time.perf_counter()
            if not synced:
                actual.update()
            t3 = time.perf_counter()
            per_step.append((t0, t1, t2, t3, list(events)))
    finally:
        _ring.numpy, _ring.blas = numpy_module, blas_module
        if mpi_comm is not None:
            comm.mpi_comm = mpi_comm
    everyone = comm.allgather_obj(per_step)  # [rank][iteration]
    if comm.rank != 0:
        return
    size = len(everyone)
    parts: dict[str, list[list[float]]] = {k: [] for k in _PARTS}
    for r in range(size):
        rows: dict[str, list[float]] = {k: [] for k in _PARTS}
        neighbours = {(r - 1) % size, (r + 1) % size} - {r}
        for i in range(iterations):
            t0, t1, t2, t3, evs = everyone[r][i]
            last_arrival = max(everyone[q][i][1] for q in range(size))
            mine = [e for e in evs if e[0] == "sendrecv"]
            theirs = [
                [e for e in everyone[q][i][4] if e[0] == "sendrecv"] for q in neighbours
            ]
            blocked = moving = 0.0
            for k, (_, start, stop) in enumerate(mine):
                both_in = max([start] + [th[k][1] for th in theirs if k < len(th)])
                blocked += both_in - start
                moving += stop - both_in
            spent = dict.fromkeys(("add", "scale", "allgather", "allreduce"), 0.0)
            for kind, start, stop in evs:
                if kind in spent:
                    spent[kind] += stop - start
            rows["forward+backward"].append(t1 - t0)
            rows["wait for the last rank"].append(last_arrival - t1)
            rows["sendrecv blocked"].append(blocked)
            rows["sendrecv moving"].append(moving)
            rows["add"].append(spent["add"])
            rows["scale"].append(spent["scale"])
            rows["allgather/allreduce"].append(spent["allgather"] + spent["allreduce"])
            # (the wait for the last rank is spent inside the first blocking
            # call, so it is part of "sendrecv blocked" or the allreduce)
            rows["python"].append((t2 - t1) - sum(e[2] - e[1] for e in evs))
            rows["exchange"].append(t2 - t1)
            rows["update"].append(t3 - t2)
            rows["step"].append(t3 - t0)
        for k, v in rows.items():
            parts[k].append(v)
    print(
        json.dumps(
            {
                "ranks": size,
                "communicator": type(comm).__name__,
                "load": os.getloadavg()[0],
                # medians over iterations, then the mean over ranks, in ms
                "parts_ms": {
                    k: float(np.median(np.array(v), axis=1).mean() * 1e3)
                    for k, v in parts.items()
                },
            }
        )
    )


#: The rows of ``--profile``: ``exchange`` is the whole averaging call, the
#: rows from ``sendrecv blocked`` to ``python`` split it; ``wait for the
#: last rank`` (the skew) is spent inside the first blocking call.
_PARTS = (
    "forward+backward",
    "wait for the last rank",
    "sendrecv blocked",
    "sendrecv moving",
    "add",
    "scale",
    "allgather/allreduce",
    "python",
    "exchange",
    "update",
    "step",
)
