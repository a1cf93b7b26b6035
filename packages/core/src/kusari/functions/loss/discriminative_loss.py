"""Discriminative margin-based clustering loss (De Brabandere et al., 2017)."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.functions.loss._helpers import as_array, sqrt
from kusari.variable import Variable


def _norm_fn(norm: int) -> Any:
    from kusari.functions.math.basic_math import absolute
    from kusari.functions.math.sum import sum as _sum

    if norm == 1:
        return lambda x, axis: _sum(absolute(x), axis=axis)
    if norm == 2:
        return lambda x, axis: sqrt(_sum(x * x, axis=axis))
    raise ValueError(
        f"For discriminative loss, norm can only be 1 or 2. Obtained the value : {norm}"
    )


class DiscriminativeMarginBasedClusteringLoss:
    """Callable form of :func:`discriminative_margin_based_clustering_loss`."""

    def __init__(
        self,
        delta_v: float = 0.5,
        delta_d: float = 1.5,
        max_embedding_dim: int = 10,
        norm: int = 1,
        alpha: float = 1.0,
        beta: float = 1.0,
        gamma: float = 0.001,
    ) -> None:
        if max_embedding_dim <= 0:
            raise ValueError("Max number of embeddings has to be positive!")
        self.delta_v = delta_v
        self.delta_d = delta_d
        self.max_embedding_dim = max_embedding_dim
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.norm = _norm_fn(norm)

    def __call__(
        self, embeddings: Any, labels: Any
    ) -> tuple[Variable, Variable, Variable]:
        from kusari.functions.activation.relu import relu
        from kusari.functions.array.get_item import get_item
        from kusari.functions.array.reshape import reshape
        from kusari.functions.math.sum import sum as _sum

        emb_arr = as_array(embeddings)
        if emb_arr.ndim != 4:
            raise ValueError(
                "discriminative_margin_based_clustering_loss: embeddings "
                f"must be (B, D, H, W), got shape {emb_arr.shape}"
            )
        n_batch, n_dim, height, width = emb_arr.shape
        n_cluster = self.max_embedding_dim
        if n_dim != n_cluster:
            raise ValueError(
                "discriminative_margin_based_clustering_loss: "
                f"max_embedding_dim ({n_cluster}) must equal "
                f"embeddings.shape[1] ({n_dim})"
            )
        lab = as_array(labels)
        if lab.shape != (n_batch, height, width):
            raise ValueError(
                "discriminative_margin_based_clustering_loss: labels must "
                f"have shape {(n_batch, height, width)}, got {lab.shape}"
            )
        xp = backend.get_array_module(emb_arr)
        dtype = emb_arr.dtype
        # masks: (C, B, 1, H, W), one per instance id 1..C (0 is background)
        ids = xp.arange(1, n_cluster + 1).reshape(n_cluster, 1, 1, 1, 1)
        ms = (lab[None, :, None] == ids).astype(dtype)
        emb = reshape(embeddings, (1, n_batch, n_dim, height, width))
        counts = xp.maximum(ms.sum(axis=(2, 3, 4)), 1)[:, :, None]  # (C, B, 1)
        means = _sum(emb * ms, axis=(3, 4)) / counts.astype(dtype)  # (C, B, D)

        l_reg = _sum(self.norm(means, (1, 2))) * (1.0 / (n_cluster * n_batch))

        pulled = (reshape(means, (n_cluster, n_batch, n_dim, 1, 1)) - emb) * ms
        l_var = relu(self.norm(pulled, 2) - self.delta_v) ** 2  # (C, B, H, W)
        pixels = xp.maximum(ms.sum(axis=(1, 2, 3, 4)), 1).astype(dtype)  # (C,)
        l_var = _sum(_sum(l_var, axis=(1, 2, 3)) / pixels) * (1.0 / n_cluster)

        ia, ib = numpy.triu_indices(n_cluster, k=1)  # get_item moves them
        n_pair = len(ia)
        if n_pair:
            gap = get_item(means, ia) - get_item(means, ib)  # (P, B, D)
            push = relu(2 * self.delta_d - self.norm(gap, 2)) ** 2
            l_dist = _sum(push) * (1.0 / (n_pair * n_batch))
        else:
            l_dist = Variable(xp.zeros((), dtype=dtype), requires_grad=False)
        return l_var * self.alpha, l_dist * self.beta, l_reg * self.gamma


def discriminative_margin_based_clustering_loss(
    embeddings: Any,
    labels: Any,
    delta_v: float,
    delta_d: float,
    max_embedding_dim: int,
    norm: int = 1,
    alpha: float = 1.0,
    beta: float = 1.0,
    gamma: float = 0.001,
) -> tuple[Variable, Variable, Variable]:
    """Discriminative margin-based clustering loss for instance segmentation.

    Pixel embeddings of one instance are pulled towards the instance's mean
    (variance term, beyond ``delta_v``), means of different instances are
    pushed at least ``2 * delta_d`` apart (distance term), and the means are
    kept small (regularisation term).

    Args:
        embeddings: Pixel embeddings, shape ``(B, D, H, W)``.
        labels: Integer instance ids, shape ``(B, H, W)``; ``1..D`` are
            instances, other values (e.g. ``0``, background) are ignored.
        delta_v: Distance below which the variance term is zero.
        delta_d: Half the distance above which the distance term is zero.
        max_embedding_dim: Number of instances; must equal ``D``.
        norm: ``1`` (L1) or ``2`` (L2) distance.
        alpha: Weight of the variance term.
        beta: Weight of the distance term.
        gamma: Weight of the regularisation term.

    Returns:
        ``(variance, distance, regularisation)`` scalar variables, already
        multiplied by ``alpha``, ``beta`` and ``gamma``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> emb = np.zeros((1, 2, 2, 2), np.float32)
        >>> labels = np.array([[[1, 1], [2, 2]]], np.int32)
        >>> var, dist, reg = F.discriminative_margin_based_clustering_loss(
        ...     emb, labels, 0.5, 1.5, 2)
        >>> float(var.array), float(dist.array), float(reg.array)
        (0.0, 9.0, 0.0)
    """
    loss = DiscriminativeMarginBasedClusteringLoss(
        delta_v, delta_d, max_embedding_dim, norm, alpha, beta, gamma
    )
    return loss(embeddings, labels)
