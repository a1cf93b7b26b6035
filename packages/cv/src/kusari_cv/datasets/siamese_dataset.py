"""Pairs of examples drawn from two datasets (for siamese networks)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

import kusari


def _indices_by_label(labels: np.ndarray) -> dict[int, np.ndarray]:
    groups: dict[int, list[int]] = defaultdict(list)
    for i, label in enumerate(labels.tolist()):
        groups[label].append(i)
    return {label: np.array(idx) for label, idx in groups.items()}


class SiameseDataset(kusari.dataset.DatasetMixin):
    """Returns ``example_0 + example_1``, one random example of each dataset.

    With ``pos_ratio`` set, the base datasets are label datasets (``(img,
    label)`` examples) and a pair shares its label with probability
    ``pos_ratio``. Examples are random: reading the same index twice gives
    different pairs.

    Args:
        dataset_0: The first base dataset.
        dataset_1: The second base dataset.
        pos_ratio: Probability of a positive (same-label) pair, or None for
            independent uniform draws.
        length: The dataset's length (default: ``len(dataset_0)``).
        labels_0: int32 labels of ``dataset_0`` (read from the examples when
            omitted; only used with ``pos_ratio``).
        labels_1: int32 labels of ``dataset_1``.

    Example:
        >>> import numpy as np
        >>> base = [(np.float32(i), np.int32(i % 2)) for i in range(6)]
        >>> d = SiameseDataset(base, base, pos_ratio=1.0)
        >>> x0, l0, x1, l1 = d[0]
        >>> bool(l0 == l1)
        True
    """

    def __init__(
        self,
        dataset_0: Any,
        dataset_1: Any,
        pos_ratio: float | None = None,
        length: int | None = None,
        labels_0: np.ndarray | None = None,
        labels_1: np.ndarray | None = None,
    ) -> None:
        self._dataset_0 = dataset_0
        self._dataset_1 = dataset_1
        self._pos_ratio = pos_ratio
        self._length = len(dataset_0) if length is None else length
        if pos_ratio is None:
            return
        if not 0 <= pos_ratio <= 1:
            raise ValueError(
                f"SiameseDataset: pos_ratio must be in [0, 1], got {pos_ratio}"
            )
        same = dataset_0 is dataset_1
        if labels_0 is None and same and labels_1 is not None:
            labels_0 = labels_1
        if labels_0 is None:
            labels_0 = np.array([example[1] for example in dataset_0])
        if labels_1 is None:
            labels_1 = (
                labels_0 if same else np.array([example[1] for example in dataset_1])
            )
        for name, labels, dataset in (
            ("labels_0", labels_0, dataset_0),
            ("labels_1", labels_1, dataset_1),
        ):
            if not (
                labels.dtype == np.int32
                and labels.ndim == 1
                and len(labels) == len(dataset)
            ):
                raise ValueError(
                    f"SiameseDataset: {name} must be a 1-D int32 array with one "
                    f"label per example ({len(dataset)}), got dtype "
                    f"{labels.dtype} and shape {labels.shape}"
                )
        self._by_label_0 = _indices_by_label(labels_0)
        self._by_label_1 = _indices_by_label(labels_1)
        labels_in_1 = set(self._by_label_1)
        self._pos_labels = np.array(sorted(set(self._by_label_0) & labels_in_1))
        # A label of dataset_0 has a negative partner if dataset_1 holds any
        # other label.
        self._neg_labels = np.array(
            sorted(label for label in self._by_label_0 if labels_in_1 - {label})
        )
        if len(self._pos_labels) == 0 and pos_ratio > 0:
            raise ValueError(
                "SiameseDataset: the two datasets share no label, so no positive "
                "pair exists; set pos_ratio to None or 0"
            )
        if len(self._neg_labels) == 0 and pos_ratio < 1:
            raise ValueError(
                "SiameseDataset: every example has the same label, so no negative "
                "pair exists; set pos_ratio to None or 1"
            )

    def __len__(self) -> int:
        return self._length

    def get_example(self, i: int) -> tuple:
        if self._pos_ratio is None:
            idx_0 = np.random.randint(len(self._dataset_0))
            idx_1 = np.random.randint(len(self._dataset_1))
        elif np.random.random() < self._pos_ratio:
            label = np.random.choice(self._pos_labels)
            idx_0 = np.random.choice(self._by_label_0[label])
            idx_1 = np.random.choice(self._by_label_1[label])
        else:
            label_0 = np.random.choice(self._neg_labels)
            others = [label for label in self._by_label_1 if label != label_0]
            label_1 = others[np.random.randint(len(others))]
            idx_0 = np.random.choice(self._by_label_0[label_0])
            idx_1 = np.random.choice(self._by_label_1[label_1])
        return tuple(self._dataset_0[int(idx_0)]) + tuple(self._dataset_1[int(idx_1)])
