"""Policies (``chainerrl.policies``): links that map observations to distributions."""

from kusari_rl.policies.deterministic_policy import (
    ContinuousDeterministicPolicy,
    FCBNDeterministicPolicy,
    FCDeterministicPolicy,
)
from kusari_rl.policies.gaussian_policy import (
    FCGaussianPolicy,
    FCGaussianPolicyWithFixedCovariance,
    FCGaussianPolicyWithStateIndependentCovariance,
    GaussianHeadWithDiagonalCovariance,
    GaussianHeadWithFixedCovariance,
    GaussianHeadWithStateIndependentCovariance,
    LinearGaussianPolicyWithDiagonalCovariance,
    LinearGaussianPolicyWithSphericalCovariance,
    SquashedDiagonalGaussianHead,
)
from kusari_rl.policies.mellowmax_policy import MellowmaxPolicy
from kusari_rl.policies.softmax_policy import FCSoftmaxPolicy, SoftmaxPolicy

__all__ = [
    "ContinuousDeterministicPolicy",
    "FCBNDeterministicPolicy",
    "FCDeterministicPolicy",
    "FCGaussianPolicy",
    "FCGaussianPolicyWithFixedCovariance",
    "FCGaussianPolicyWithStateIndependentCovariance",
    "GaussianHeadWithDiagonalCovariance",
    "GaussianHeadWithFixedCovariance",
    "GaussianHeadWithStateIndependentCovariance",
    "LinearGaussianPolicyWithDiagonalCovariance",
    "LinearGaussianPolicyWithSphericalCovariance",
    "MellowmaxPolicy",
    "SoftmaxPolicy",
    "SquashedDiagonalGaussianHead",
]
