"""SSD's training loss: smooth L1 on offsets, softmax with hard negatives."""

from __future__ import annotations

from typing import Any

import numpy

import kusari
import kusari.functions as F
from kusari import backend
from kusari_cv._typing import Array


def _hard_negative(loss: Array, positive: Array, k: float) -> Array:
    # Rank the negatives of each image by loss (positives rank as loss 0) and
    # keep the top ``k * n_positive`` of them.
    xp = backend.get_array_module(loss)
    rank = (loss * (positive - 1)).argsort(axis=1).argsort(axis=1)
    n_keep = positive.sum(axis=1) * k
    return rank < xp.asarray(n_keep)[:, None]


def multibox_loss(
    mb_locs: Any,
    mb_confs: Any,
    gt_mb_locs: Any,
    gt_mb_labels: Any,
    k: float,
    comm: Any = None,
) -> tuple[kusari.Variable, kusari.Variable]:
    """Localization and confidence losses of SSD.

    The localization loss is the Huber loss (delta 1) of the positive default
    boxes. The confidence loss is the softmax cross entropy of the positives
    and of the ``k`` times as many negatives with the highest loss in each
    image (hard negative mining). Both are divided by the number of
    positives.

    Args:
        mb_locs: ``(B, K, 4)`` predicted offsets.
        mb_confs: ``(B, K, n_class)`` predicted class logits.
        gt_mb_locs: ``(B, K, 4)`` target offsets.
        gt_mb_labels: ``(B, K)`` int target labels (0 is background).
        k: Ratio of hard negatives to positives.
        comm: A kusari_mn communicator; when given, the number of positives
            is summed over all processes.

    Returns:
        ``(loc_loss, conf_loss)`` scalar Variables.
    """
    mb_locs = kusari.as_variable(mb_locs)
    mb_confs = kusari.as_variable(mb_confs)
    gt_labels = backend.get_array_module(gt_mb_labels).asarray(
        getattr(gt_mb_labels, "array", gt_mb_labels)
    )
    gt_locs = getattr(gt_mb_locs, "array", gt_mb_locs)
    if mb_locs.ndim != 3 or mb_confs.ndim != 3 or gt_labels.ndim != 2:
        raise ValueError(
            "multibox_loss: expected mb_locs (B, K, 4), mb_confs (B, K, n_class) "
            f"and gt_mb_labels (B, K), got shapes {mb_locs.shape}, "
            f"{mb_confs.shape} and {gt_labels.shape}"
        )
    xp = backend.get_array_module(gt_labels)
    dtype = mb_locs.dtype
    positive = gt_labels > 0
    n_positive = float(positive.sum())
    if comm is not None:
        n_positive = float(comm.allreduce_obj(n_positive)) / comm.size
    if n_positive == 0:
        zero = kusari.Variable(xp.zeros((), dtype=dtype))
        return zero, zero

    loc_loss = F.huber_loss(mb_locs, gt_locs, 1, reduce="no")
    loc_loss = F.sum(loc_loss, axis=-1) * positive.astype(dtype)
    loc_loss = F.sum(loc_loss) / n_positive

    B, K, n_class = mb_confs.shape
    conf_loss = F.softmax_cross_entropy(
        F.reshape(mb_confs, (B * K, n_class)),
        gt_labels.reshape(-1).astype(numpy.int32),
        reduce="no",
    )
    conf_loss = F.reshape(conf_loss, (B, K))
    hard_negative = _hard_negative(conf_loss.array, positive.astype(numpy.int64), k)
    conf_loss = conf_loss * xp.logical_or(positive, hard_negative).astype(dtype)
    conf_loss = F.sum(conf_loss) / n_positive
    return loc_loss, conf_loss
