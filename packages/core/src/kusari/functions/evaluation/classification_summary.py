"""Per-class precision, recall, F-beta score and support."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.evaluation.accuracy import check_scores_and_labels
from kusari.utils import type_check
from kusari.variable import Variable


class ClassificationSummary(FunctionNode):
    """Outputs ``(precision, recall, fbeta, support)``, each of shape ``(label_num,)``.

    Precision, recall and F-beta are float64 (NaN where undefined, as in
    Chainer); support is an integer count.
    """

    def __init__(self, label_num: int | None, beta: float, ignore_label: int) -> None:
        if label_num is not None and (
            not isinstance(label_num, (int, numpy.integer)) or label_num <= 0
        ):
            raise ValueError(
                f"classification_summary: label_num must be a positive int or None, "
                f"got {label_num!r}"
            )
        self.label_num = label_num
        self.beta = beta
        self.ignore_label = ignore_label

    def check_type_forward(self, in_types: Any) -> None:
        check_scores_and_labels(in_types)
        type_check.expect(in_types[1].dtype.kind == "i")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, t = inputs
        xp = backend.get_array_module(y)
        # Any signed integer labels (as in Chainer 7); widened so that the
        # extra bin ``n`` below cannot overflow an int8 or int16 array.
        t = t.ravel().astype(numpy.int64, copy=False)
        ignored = t == self.ignore_label
        if self.label_num is None:
            n = max(int(t.max()) + 1, 0) if t.size else 0
        else:
            n = int(self.label_num)
        bad = ~ignored & ((t < 0) | (t >= n))
        if bool(bad.any()):
            raise ValueError(
                f"classification_summary: labels must be in [0, {n}) or equal "
                f"ignore_label ({self.ignore_label}); got {int(t[bad][0])}"
            )
        # Ignored samples go to an extra bin ``n`` that is cut off below.
        pred = xp.where(ignored, n, y.argmax(axis=1).ravel())
        true = xp.where(ignored, n, t)
        support = xp.bincount(true, minlength=n + 1)[:n]
        relevant = xp.bincount(pred, minlength=n + 1)[:n]
        tp = xp.bincount(xp.where(pred == true, true, n), minlength=n + 1)[:n]
        with numpy.errstate(divide="ignore", invalid="ignore"):
            precision = tp / relevant
            recall = tp / support
            b2 = self.beta * self.beta
            fbeta = (1 + b2) * precision * recall / (b2 * precision + recall)
        return (
            xp.asarray(precision),
            xp.asarray(recall),
            xp.asarray(fbeta, dtype=precision.dtype),
            support,
        )


def classification_summary(
    y: Any,
    t: Any,
    label_num: int | None = None,
    beta: float = 1.0,
    ignore_label: int = -1,
) -> tuple[Variable, ...]:
    """Per-class precision, recall, F-beta score and support.

    Args:
        y: Scores of shape ``(N, C, d1, ...)``; the prediction is the arg-max
            along axis 1.
        t: Signed integer labels of shape ``(N, d1, ...)``.
        label_num: Number of classes; ``None`` uses ``max(t) + 1``. Every
            label must be in ``[0, label_num)`` or equal ``ignore_label``.
        beta: Weight of recall in the F-beta score.
        ignore_label: Samples with this label are left out.

    Returns:
        Four Variables of shape ``(label_num,)``: precision, recall, F-beta
        score (float64, NaN where undefined) and support (the number of
        samples of each true label).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]], np.float32)
        >>> p, r, f, s = F.classification_summary(y, np.array([0, 1, 1], np.int32))
        >>> p.array, r.array, s.array
        (array([0.5, 1. ]), array([1. , 0.5]), array([1, 2]))
    """
    return ClassificationSummary(label_num, beta, ignore_label).apply((y, t))


def precision(
    y: Any, t: Any, label_num: int | None = None, ignore_label: int = -1
) -> tuple[Variable, Variable]:
    """Per-class precision and support; see :func:`classification_summary`.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> y = np.array([[0.9, 0.1], [0.6, 0.4]], np.float32)
        >>> F.precision(y, np.array([0, 1], np.int32))[0].array
        array([0.5, nan])
    """
    ret = ClassificationSummary(label_num, 1.0, ignore_label).apply((y, t))
    return ret[0], ret[3]


def recall(
    y: Any, t: Any, label_num: int | None = None, ignore_label: int = -1
) -> tuple[Variable, Variable]:
    """Per-class recall and support; see :func:`classification_summary`.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> y = np.array([[0.9, 0.1], [0.6, 0.4]], np.float32)
        >>> F.recall(y, np.array([0, 1], np.int32))[0].array
        array([1., 0.])
    """
    ret = ClassificationSummary(label_num, 1.0, ignore_label).apply((y, t))
    return ret[1], ret[3]


def fbeta_score(
    y: Any,
    t: Any,
    label_num: int | None = None,
    beta: float = 1.0,
    ignore_label: int = -1,
) -> tuple[Variable, Variable]:
    """Per-class F-beta score and support; see :func:`classification_summary`."""
    ret = ClassificationSummary(label_num, beta, ignore_label).apply((y, t))
    return ret[2], ret[3]


def f1_score(
    y: Any, t: Any, label_num: int | None = None, ignore_label: int = -1
) -> tuple[Variable, Variable]:
    """Per-class F1 score and support; see :func:`classification_summary`.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]], np.float32)
        >>> F.f1_score(y, np.array([0, 1, 1], np.int32))[0].array
        array([0.66667, 0.66667])
    """
    ret = ClassificationSummary(label_num, 1.0, ignore_label).apply((y, t))
    return ret[2], ret[3]
