"""Incremental min/max-bucket downsampling of metric series.

A series keeps at most ``MAX_BUCKETS`` buckets of ``B`` consecutive points;
each bucket stores its minimum and maximum point. When a new bucket would
exceed the limit, neighbouring buckets are merged pairwise and ``B`` doubles.
Merging min/max buckets is exact, so the state after ingesting a run in many
small batches equals the state after one big batch, and a chart never needs
the raw entries: at most ``2 * MAX_BUCKETS + 2`` points per series.

A point is ``[index, epoch, iteration, elapsed_time, value]`` where
``index`` is the entry's position in the log.

Example:
    >>> s = new_state()
    >>> for i in range(10):
    ...     add_point(s, [i, None, i + 1, None, float(i % 3)])
    >>> len(points(s))
    10
"""

from __future__ import annotations

from typing import Any

MAX_BUCKETS = 512

Point = list[Any]
State = dict[str, Any]


def new_state() -> State:
    """An empty series state."""
    return {"B": 1, "n": 0, "b": []}


def _merge(a: list[Point], b: list[Point]) -> list[Point]:
    lo = a[0] if a[0][4] <= b[0][4] else b[0]
    hi = a[1] if a[1][4] >= b[1][4] else b[1]
    return [lo, hi]


def add_point(state: State, point: Point) -> None:
    """Append one point (its value must be a finite number)."""
    buckets: list[list[Point]] = state["b"]
    size: int = state["B"]
    k = state["n"] // size
    if k == len(buckets):
        if len(buckets) == MAX_BUCKETS:
            buckets[:] = [
                _merge(buckets[i], buckets[i + 1]) for i in range(0, len(buckets), 2)
            ]
            size *= 2
            state["B"] = size
        buckets.append([point, point])
    else:
        bucket = buckets[k]
        if point[4] < bucket[0][4]:
            bucket[0] = point
        if point[4] > bucket[1][4]:
            bucket[1] = point
    state["n"] += 1
    # The first and latest points are always drawn, whatever the buckets say:
    # a live chart must end at the newest value.
    state.setdefault("f", point)
    state["l"] = point


def points(state: State) -> list[Point]:
    """The downsampled points of a series, in log order.

    Example:
        >>> s = new_state(); add_point(s, [0, 1, 1, 0.5, 2.0]); points(s)
        [[0, 1, 1, 0.5, 2.0]]
    """
    out: list[Point] = []
    for lo, hi in state["b"]:
        if lo[0] == hi[0]:
            out.append(lo)
        elif lo[0] < hi[0]:
            out.extend((lo, hi))
        else:
            out.extend((hi, lo))
    first, last = state.get("f"), state.get("l")
    if first is not None and out and first[0] < out[0][0]:
        out.insert(0, first)
    if last is not None and out and last[0] > out[-1][0]:
        out.append(last)
    return out
