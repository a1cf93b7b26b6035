"""COCO segmentation formats: polygons and run-length encodings (RLE).

COCO stores an object's mask either as polygons (``[[x0, y0, x1, y1, ...],
...]`` in pixel coordinates, where pixel ``(x, y)`` covers ``[x, x+1) x [y,
y+1)``) or as an RLE dict ``{'size': [H, W], 'counts': ...}``. RLE counts run
over the image in column-major order and start with a run of zeros; they are
either a list of ints or COCO's compressed string (6-bit characters from
``'0'``, 5 payload bits each, deltas against the count two places back).

These functions need no pycocotools.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def polygons_to_mask(
    polygons: Sequence[Sequence[float]], height: int, width: int
) -> np.ndarray:
    """Rasterize COCO polygons into an ``(H, W)`` bool mask.

    A pixel is inside when its center lies inside a polygon (even-odd rule);
    the parts of one object are merged.

    Example:
        >>> polygons_to_mask([[1, 1, 4, 1, 4, 3, 1, 3]], 4, 5).astype(int)
        array([[0, 0, 0, 0, 0],
               [0, 1, 1, 1, 0],
               [0, 1, 1, 1, 0],
               [0, 0, 0, 0, 0]])
    """
    mask = np.zeros((height, width), dtype=bool)
    centers = np.arange(height, dtype=np.float64) + 0.5
    for polygon in polygons:
        xy = np.asarray(polygon, dtype=np.float64)
        if xy.ndim != 1 or len(xy) % 2 or len(xy) < 6:
            raise ValueError(
                "polygons_to_mask: a polygon must be a flat list of at least "
                f"three (x, y) pairs, got {len(xy)} numbers"
            )
        xy = xy.reshape(-1, 2)
        x0, y0 = xy[:, 0], xy[:, 1]
        x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
        # Edge e crosses the row through center c when c is in [lo, hi): the
        # half-open rule counts a vertex once, so every row has an even count.
        lo, hi = np.minimum(y0, y1), np.maximum(y0, y1)
        cy = centers[:, None]
        crosses = (lo <= cy) & (cy < hi)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = x0 + (cy - y0) * (x1 - x0) / (y1 - y0)
        x = np.where(crosses, x, np.inf)
        x.sort(axis=1)
        pairs = 2 * (x.shape[1] // 2)
        starts, ends = x[:, 0:pairs:2], x[:, 1:pairs:2]
        valid = np.isfinite(ends)
        rows = np.broadcast_to(np.arange(height)[:, None], starts.shape)[valid]
        # Pixel columns whose centers j + 0.5 fall in [start, end).
        first = np.clip(np.ceil(starts[valid] - 0.5), 0, width).astype(np.int64)
        last = np.clip(np.ceil(ends[valid] - 0.5), 0, width).astype(np.int64)
        diff = np.zeros((height, width + 1), dtype=np.int64)
        np.add.at(diff, (rows, first), 1)
        np.add.at(diff, (rows, last), -1)
        mask |= np.cumsum(diff, axis=1)[:, :width] > 0
    return mask


def decode_rle_string(counts: str | bytes) -> list[int]:
    """Decode COCO's compressed RLE string into a list of run lengths.

    Example:
        >>> decode_rle_string(encode_rle_string([3, 2, 10, 1]))
        [3, 2, 10, 1]
    """
    data = counts.encode("ascii") if isinstance(counts, str) else bytes(counts)
    out: list[int] = []
    p = 0
    while p < len(data):
        value, shift = 0, 0
        while True:
            if p >= len(data):
                raise ValueError("decode_rle_string: the string ends mid-number")
            c = data[p] - 48
            p += 1
            value |= (c & 0x1F) << shift
            shift += 5
            if not c & 0x20:  # last character of this number
                if c & 0x10:  # negative: sign-extend
                    value -= 1 << shift
                break
        if len(out) > 2:
            value += out[-2]
        out.append(value)
    return out


def encode_rle_string(counts: Sequence[int]) -> str:
    """Encode run lengths as COCO's compressed RLE string."""
    chars = []
    for i, count in enumerate(counts):
        value = int(count) - (int(counts[i - 2]) if i > 2 else 0)
        while True:
            c = value & 0x1F
            value >>= 5  # arithmetic shift keeps the sign
            more = value != -1 if c & 0x10 else value != 0
            chars.append(chr(48 + (c | (0x20 if more else 0))))
            if not more:
                break
    return "".join(chars)


def rle_to_mask(rle: dict[str, Any]) -> np.ndarray:
    """Decode an RLE dict (list or string counts) into an ``(H, W)`` bool mask.

    Example:
        >>> rle_to_mask({'size': [2, 3], 'counts': [1, 2, 3]}).astype(int)
        array([[0, 1, 0],
               [1, 0, 0]])
    """
    height, width = (int(v) for v in rle["size"])
    counts = rle["counts"]
    if isinstance(counts, (str, bytes)):
        counts = decode_rle_string(counts)
    counts = np.asarray(counts, dtype=np.int64)
    if (counts < 0).any() or counts.sum() != height * width:
        raise ValueError(
            f"rle_to_mask: run lengths must be >= 0 and sum to H * W = "
            f"{height * width}, got a sum of {int(counts.sum())}"
        )
    values = np.arange(len(counts)) % 2 == 1  # runs alternate 0, 1, 0, ...
    flat = np.repeat(values, counts)
    return flat.reshape(width, height).T.copy()


def mask_to_rle(mask: np.ndarray, compress: bool = False) -> dict[str, Any]:
    """Encode an ``(H, W)`` mask as an RLE dict (counts as list or string).

    Example:
        >>> import numpy as np
        >>> mask_to_rle(np.array([[0, 1, 0], [1, 0, 0]], dtype=bool))
        {'size': [2, 3], 'counts': [1, 2, 3]}
    """
    mask = np.asarray(mask)
    if mask.ndim != 2:
        raise ValueError(
            f"mask_to_rle: expected an (H, W) mask, got shape {mask.shape}"
        )
    flat = mask.T.reshape(-1).astype(bool)
    # Run boundaries against a virtual 0 before the first pixel, so a mask
    # that starts with a 1 gets the leading zero-length run COCO expects.
    padded = np.concatenate([[False], flat]).astype(np.int8)
    change = np.flatnonzero(np.diff(padded))
    counts = np.diff(np.concatenate([[0], change, [flat.size]])).tolist()
    out: dict[str, Any] = {"size": [int(mask.shape[0]), int(mask.shape[1])]}
    out["counts"] = encode_rle_string(counts) if compress else counts
    return out


def segmentation_to_mask(segmentation: Any, height: int, width: int) -> np.ndarray:
    """Turn any COCO ``segmentation`` field into an ``(H, W)`` bool mask."""
    if isinstance(segmentation, list):
        return polygons_to_mask(segmentation, height, width)
    if isinstance(segmentation, dict) and "counts" in segmentation:
        return rle_to_mask(segmentation)
    raise ValueError(
        "segmentation_to_mask: expected a list of polygons or an RLE dict, got "
        f"{type(segmentation).__name__}"
    )
