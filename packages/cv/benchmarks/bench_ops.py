"""Box operations on the CPU: kusari-cv vs torchvision.ops.

* ``non_maximum_suppression`` on ``--n-nms`` (10,000) boxes with random
  scores, IoU threshold 0.5, for two box layouts: spread out (most boxes
  survive) and crowded around a few objects (most are suppressed), against
  ``torchvision.ops.nms``;
* ``bbox_iou`` of ``--n-iou`` x ``--n-iou`` (2,000 x 2,000) boxes against
  ``torchvision.ops.box_iou``.

Both sides get the same float32 boxes (torchvision's in ``(x1, y1, x2, y2)``
order) and the results are checked to agree before timing. Times are the
best of ``--repeat`` runs of process CPU time, one thread each
(``OMP_NUM_THREADS``, default 1). Without torchvision (it must match the
installed torch; e.g. ``pip install torch==2.14.1 torchvision==0.29.1``) only
the kusari-cv column is printed.

Run: ``python bench_ops.py [--n-nms 10000] [--n-iou 2000] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import functools
import os
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", os.environ["OMP_NUM_THREADS"])

import numpy as np

from kusari_cv.utils import bbox_iou, non_maximum_suppression


def _best(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def _spread(rng: np.random.Generator, n: int) -> np.ndarray:
    tl = rng.uniform(0, 1000, (n, 2))
    return np.concatenate((tl, tl + rng.uniform(10, 100, (n, 2))), axis=1)


def _crowded(rng: np.random.Generator, n: int) -> np.ndarray:
    # Region proposals: jittered copies of 30 objects.
    objects = _spread(rng, 30)
    boxes = objects[rng.integers(0, 30, n)]
    size = boxes[:, 2:] - boxes[:, :2]
    return boxes + rng.normal(0, 0.1, (n, 4)) * np.tile(size, 2)


def _torchvision() -> Any:
    try:
        import torch
        import torchvision.ops
    except Exception as e:  # missing, or built for another torch
        print(f"torchvision not available ({type(e).__name__}: {e}); kusari-cv only\n")
        return None
    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    return torch, torchvision.ops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-nms", type=int, default=10_000)
    parser.add_argument("--n-iou", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    tv = _torchvision()
    rows = []

    for layout, make in (("spread", _spread), ("crowded", _crowded)):
        bbox = make(rng, args.n_nms).astype(np.float32)
        score = rng.uniform(size=args.n_nms).astype(np.float32)
        ours = _best(
            functools.partial(non_maximum_suppression, bbox, 0.5, score), args.repeat
        )
        kept = non_maximum_suppression(bbox, 0.5, score)
        theirs = None
        if tv is not None:
            torch, ops = tv
            boxes = torch.from_numpy(bbox[:, [1, 0, 3, 2]].copy())
            scores = torch.from_numpy(score)
            ref = ops.nms(boxes, scores, 0.5).numpy()
            # torchvision suppresses IoU > 0.5, kusari-cv IoU >= 0.5; random
            # boxes never hit 0.5 exactly.
            assert np.array_equal(np.sort(ref), np.sort(kept)), "NMS results differ"
            theirs = _best(functools.partial(ops.nms, boxes, scores, 0.5), args.repeat)
        rows.append(
            (f"nms {args.n_nms} boxes, {layout} ({len(kept)} kept)", ours, theirs)
        )

    a = _spread(rng, args.n_iou).astype(np.float32)
    b = _spread(rng, args.n_iou).astype(np.float32)
    ours = _best(lambda: bbox_iou(a, b), args.repeat)
    theirs = None
    if tv is not None:
        torch, ops = tv
        ta = torch.from_numpy(a[:, [1, 0, 3, 2]].copy())
        tb = torch.from_numpy(b[:, [1, 0, 3, 2]].copy())
        np.testing.assert_allclose(
            bbox_iou(a, b), ops.box_iou(ta, tb).numpy(), atol=1e-6
        )
        theirs = _best(lambda: ops.box_iou(ta, tb), args.repeat)
    rows.append((f"bbox_iou {args.n_iou} x {args.n_iou}", ours, theirs))

    print(f"{'operation':<44}{'kusari-cv':>12}{'torchvision':>14}{'ratio':>8}")
    for name, ours, theirs in rows:
        tv_col = f"{theirs * 1e3:11.2f}ms" if theirs is not None else f"{'-':>13}"
        ratio = f"{ours / theirs:7.2f}x" if theirs else f"{'-':>8}"
        print(f"{name:<44}{ours * 1e3:10.2f}ms{tv_col:>14}{ratio}")


if __name__ == "__main__":
    main()
