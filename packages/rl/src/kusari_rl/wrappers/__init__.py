"""Gymnasium wrappers (``chainerrl.wrappers``)."""

from kusari_rl.wrappers import atari_wrappers
from kusari_rl.wrappers.simple import (
    CastObservation,
    CastObservationToFloat32,
    ClipAction,
    NormalizeActionSpace,
    RandomizeAction,
    ScaleReward,
)

__all__ = [
    "CastObservation",
    "CastObservationToFloat32",
    "ClipAction",
    "NormalizeActionSpace",
    "RandomizeAction",
    "ScaleReward",
    "atari_wrappers",
]
