"""AlexNet-style color augmentation along the principal components."""

from __future__ import annotations

import numpy as np

from kusari_cv._typing import Array
from kusari_cv.transforms.image._check import check_chw

# ImageNet's RGB principal components (as published with fb.resnet.torch):
# column i of the matrix is the eigenvector of eigenvalue i, rows are R, G, B.
_EIGEN_VALUE = np.array((0.2175, 0.0188, 0.0045))
_EIGEN_VECTOR = np.array(
    (
        (0.4009, -0.814, 0.4203),
        (0.7192, -0.0045, -0.6948),
        (-0.5675, -0.5808, -0.5836),
    )
)


def pca_lighting(
    img: Array,
    sigma: float,
    eigen_value: Array | None = None,
    eigen_vector: Array | None = None,
) -> Array:
    """Add ``eigen_vector @ (eigen_value * alpha)`` to every pixel,
    ``alpha ~ N(0, sigma)`` (one draw per call, NumPy's global random state).

    Args:
        img: A ``(3, H, W)`` image.
        sigma: The standard deviation of ``alpha``; AlexNet uses 10% of the
            intensity range (25.5 for ``[0, 255]``). ``<= 0`` returns ``img``.
        eigen_value: ``(3,)`` eigenvalues; ImageNet's by default.
        eigen_vector: ``(3, 3)`` eigenvectors as columns; ImageNet's by
            default.

    Returns:
        The augmented image (a new array).
    """
    check_chw("pca_lighting", img)
    if img.shape[0] != 3:
        raise ValueError(
            f"pca_lighting: img must have 3 channels, got shape {img.shape}"
        )
    if sigma <= 0:
        return img
    value = _EIGEN_VALUE if eigen_value is None else np.asarray(eigen_value)
    vector = _EIGEN_VECTOR if eigen_vector is None else np.asarray(eigen_vector)
    alpha = np.random.normal(0, sigma, size=3)
    shift = vector.dot(value * alpha).reshape(-1, 1, 1)
    return (img + shift).astype(img.dtype, copy=False)
