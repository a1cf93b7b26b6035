"""mixup: convex combinations of two labelled examples."""

from __future__ import annotations

from typing import Any

import numpy as np

import kusari


class MixUpSoftLabelDataset(kusari.dataset.DatasetMixin):
    """Mixes pairs of labelled images into soft-labelled examples (mixup).

    Example ``i`` takes ``img_0, label_0, img_1, label_1 = dataset[i]`` (a
    :class:`SiameseDataset` is the usual base), draws ``r ~ U(0, 1)`` and
    returns ``r * img_0 + (1 - r) * img_1`` with a ``(n_class,)`` float32
    label holding ``r`` at ``label_0`` and ``1 - r`` at ``label_1``.

    Reference: H. Zhang, M. Cisse, Y. N. Dauphin, D. Lopez-Paz, "mixup:
    Beyond Empirical Risk Minimization", ICLR 2018.

    Args:
        dataset: Returns ``img_0, label_0, img_1, label_1`` (same image
            shapes).
        n_class: The number of classes.
    """

    def __init__(self, dataset: Any, n_class: int) -> None:
        self._dataset = dataset
        self._n_class = n_class

    def __len__(self) -> int:
        return len(self._dataset)

    def get_example(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        example = self._dataset[i]
        if len(example) != 4:
            raise ValueError(
                "MixUpSoftLabelDataset: the base dataset must return (img_0, "
                f"label_0, img_1, label_1), got {len(example)} values"
            )
        img_0, label_0, img_1, label_1 = example
        ratio = np.random.random()
        img = ratio * img_0 + (1 - ratio) * img_1
        if isinstance(img_0, np.ndarray):
            img = img.astype(img_0.dtype, copy=False)
        label = np.zeros(self._n_class, dtype=np.float32)
        label[label_0] += ratio
        label[label_1] += 1 - ratio
        return img, label
