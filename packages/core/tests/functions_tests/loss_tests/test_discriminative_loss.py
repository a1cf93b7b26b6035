import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op

B, C, H, W = 2, 3, 3, 3
DELTA_V, DELTA_D = 0.2, 0.6


def _norm(x, axis, norm):
    return np.abs(x).sum(axis=axis) if norm == 1 else np.sqrt((x * x).sum(axis=axis))


def _ref(emb, labels, norm, alpha, beta, gamma):
    """Loop-form reference: cluster by cluster, image by image."""
    means = np.zeros((C, B, C))
    l_var = 0.0
    for c in range(C):
        total = 0.0
        pixels = 0
        for b in range(B):
            mask = labels[b] == c + 1
            n = mask.sum()
            if n:
                means[c, b] = emb[b][:, mask].mean(axis=1)
                d = _norm(emb[b][:, mask] - means[c, b][:, None], 0, norm)
                total += (np.maximum(d - DELTA_V, 0) ** 2).sum()
                pixels += n
        l_var += total / max(pixels, 1)
    l_var /= C
    l_dist = 0.0
    count = 0
    for a in range(C):
        for c in range(a + 1, C):
            d = _norm(means[a] - means[c], 1, norm)
            l_dist += (np.maximum(2 * DELTA_D - d, 0) ** 2).sum()
            count += 1
    l_dist /= max(count * B, 1)
    l_reg = sum(_norm(means[c], (0, 1), norm) for c in range(C)) / (C * B)
    return (
        np.asarray(alpha * l_var),
        np.asarray(beta * l_dist),
        np.asarray(gamma * l_reg),
    )


def _labels(rng, dtype):
    # ids 0 (background) .. 3; instance 3 is absent from image 1
    return np.array(
        [[[1, 1, 2], [0, 2, 2], [3, 3, 0]], [[1, 0, 2], [1, 2, 2], [0, 1, 1]]], np.int32
    )


@pytest.mark.parametrize("norm", [1, 2])
def test_discriminative_loss(norm, float_dtype, device):
    alpha, beta, gamma = 1.0, 0.5, 0.1

    def op(emb, labels):
        return F.discriminative_margin_based_clustering_loss(
            emb,
            labels,
            DELTA_V,
            DELTA_D,
            C,
            norm=norm,
            alpha=alpha,
            beta=beta,
            gamma=gamma,
        )

    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        op,
        lambda e, lab: _ref(e, lab, norm, alpha, beta, gamma),
        [(B, C, H, W), _labels],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_discriminative_loss_single_cluster():
    emb = np.random.default_rng(0).standard_normal((1, 1, 2, 2)).astype(np.float32)
    var, dist, reg = F.discriminative_margin_based_clustering_loss(
        emb, np.ones((1, 2, 2), np.int32), 0.5, 1.5, 1
    )
    assert float(dist.array) == 0.0
    assert var.shape == reg.shape == ()


def test_discriminative_loss_bad_norm():
    with pytest.raises(ValueError, match="norm can only be 1 or 2"):
        F.discriminative_margin_based_clustering_loss(
            np.zeros((1, 2, 2, 2), np.float32),
            np.zeros((1, 2, 2), np.int32),
            0.5,
            1.5,
            2,
            norm=3,
        )


def test_discriminative_loss_bad_max_embedding_dim():
    with pytest.raises(ValueError, match="positive"):
        F.discriminative_margin_based_clustering_loss(
            np.zeros((1, 2, 2, 2), np.float32),
            np.zeros((1, 2, 2), np.int32),
            0.5,
            1.5,
            0,
        )
    with pytest.raises(ValueError, match="max_embedding_dim"):
        F.discriminative_margin_based_clustering_loss(
            np.zeros((1, 2, 2, 2), np.float32),
            np.zeros((1, 2, 2), np.int32),
            0.5,
            1.5,
            3,
        )
