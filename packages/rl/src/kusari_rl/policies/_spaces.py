"""Turn a Gymnasium action space, where one is given, into the size a policy needs.

Policies take sizes (``n_actions``, ``action_size``) as in ChainerRL; passing
the environment's action space also works, and a space that the policy cannot
produce is refused with a message that names the space and the policy to use
instead.
"""

from __future__ import annotations

from typing import Any

import numpy
from gymnasium import spaces


def discrete_size(owner: str, n_actions: Any) -> int:
    """``n_actions`` as an int; accepts ``gymnasium.spaces.Discrete``."""
    if isinstance(n_actions, spaces.Discrete):
        return int(n_actions.n)
    if isinstance(n_actions, spaces.Space):
        raise TypeError(
            f"{owner} needs a Discrete action space, got {n_actions}; for a "
            "continuous Box space use a Gaussian policy (e.g. "
            "FCGaussianPolicyWithStateIndependentCovariance) or a deterministic "
            "one (FCDeterministicPolicy)"
        )
    return _positive_int(owner, "n_actions", n_actions)


def box_size(owner: str, action_size: Any) -> int:
    """``action_size`` as an int; accepts a 1-D ``gymnasium.spaces.Box``."""
    if isinstance(action_size, spaces.Box):
        if len(action_size.shape) != 1:
            raise ValueError(
                f"{owner} needs a 1-D Box action space, got {action_size}; "
                "wrap the environment to flatten its actions"
            )
        return int(action_size.shape[0])
    if isinstance(action_size, spaces.Space):
        fix = (
            "use SoftmaxPolicy / FCSoftmaxPolicy for a Discrete space"
            if isinstance(action_size, spaces.Discrete)
            else "wrap the environment so that its actions form a 1-D Box"
        )
        raise TypeError(
            f"{owner} needs a 1-D Box action space, got {action_size}; {fix}"
        )
    return _positive_int(owner, "action_size", action_size)


def _positive_int(owner: str, name: str, value: Any) -> int:
    if isinstance(value, (int, numpy.integer)) and not isinstance(value, bool):
        if value > 0:
            return int(value)
    raise ValueError(f"{owner}: {name} must be a positive int, got {value!r}")


def hidden_sizes(
    owner: str, n_hidden_layers: int, n_hidden_channels: int | None
) -> list[int]:
    """``[n_hidden_channels] * n_hidden_layers``, checking the pair makes sense."""
    if n_hidden_layers < 0:
        raise ValueError(
            f"{owner}: n_hidden_layers must be >= 0, got {n_hidden_layers}"
        )
    if n_hidden_layers == 0:
        return []
    if n_hidden_channels is None:
        raise ValueError(
            f"{owner}: n_hidden_channels is required when "
            f"n_hidden_layers={n_hidden_layers} > 0"
        )
    return [n_hidden_channels] * n_hidden_layers
