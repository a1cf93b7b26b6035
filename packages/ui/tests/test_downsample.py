"""Min/max bucket downsampling."""

from __future__ import annotations

import json
import math
import random

from kusari_ui import downsample


def _series(values: list[float]) -> downsample.State:
    state = downsample.new_state()
    for i, v in enumerate(values):
        downsample.add_point(state, [i, None, i + 1, None, v])
    return state


def test_small_series_is_kept_exactly() -> None:
    values = [math.sin(i) for i in range(900)]
    pts = downsample.points(_series(values))
    assert [p[4] for p in pts] == values


def test_large_series_is_bounded_and_keeps_extremes() -> None:
    rng = random.Random(0)
    values = [rng.gauss(0, 1) for _ in range(200_000)]
    values[123_456] = 50.0  # a spike must survive downsampling
    values[7] = -50.0
    pts = downsample.points(_series(values))
    assert len(pts) <= 2 * downsample.MAX_BUCKETS + 2
    assert pts[0][0] == 0 and pts[-1][0] == len(values) - 1
    ys = [p[4] for p in pts]
    assert max(ys) == 50.0 and min(ys) == -50.0
    idx = [p[0] for p in pts]
    assert idx == sorted(idx)


def test_incremental_equals_one_shot() -> None:
    values = [float((i * 7919) % 1000) for i in range(30_000)]
    one = _series(values)
    inc = downsample.new_state()
    for start in range(0, len(values), 997):
        for i in range(start, min(start + 997, len(values))):
            downsample.add_point(inc, [i, None, i + 1, None, values[i]])
        inc = json.loads(json.dumps(inc))  # as stored between crawls
    assert downsample.points(inc) == downsample.points(one)
