"""Agent interfaces (``chainerrl.agent``).

Two calling conventions are supported by every agent of this package:

* ChainerRL's: ``act_and_train(obs, reward)`` / ``stop_episode_and_train(obs,
  reward, done)`` while learning, ``act(obs)`` / ``stop_episode()`` to
  evaluate (and the ``batch_*`` versions for vectorised environments).
* PFRL's: ``act(obs)`` then ``observe(obs, reward, done, reset)``, with the
  mode chosen by ``agent.training`` and the ``with agent.eval_mode():``
  context manager.

``act`` is the one name the two share. It learns (explores and remembers the
observation for the next ``observe``) only while ``agent.training`` is true
*and* the agent is not being driven through ChainerRL's ``*_and_train``
methods; so ChainerRL code that calls ``act`` for evaluation after
``act_and_train`` still gets the greedy action, as in ChainerRL.

Subclasses implement ChainerRL's methods only (``act`` being the greedy
one); the PFRL convention is derived from them by this base class.
"""

from __future__ import annotations

import contextlib
import functools
import os
from abc import ABCMeta, abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any

import kusari
from kusari import serializers

__all__ = [
    "Agent",
    "AsyncAgent",
    "AttributeSavingMixin",
    "BatchAgent",
    "load_npz_no_strict",
]


class Agent(metaclass=ABCMeta):
    """Abstract agent.

    Subclasses implement ChainerRL's methods. ``training`` (PFRL's flag) is
    true by default; :meth:`eval_mode` switches it off for a block.
    """

    training: bool = True
    # Set once ChainerRL's *_and_train methods are used, so that a later plain
    # ``act`` means "greedy action for evaluation" (ChainerRL's meaning).
    _driven_by_and_train: bool = False

    @abstractmethod
    def act_and_train(self, obs: Any, reward: float) -> Any:
        """Select an action for training, learning from ``reward``.

        Args:
            obs: Current observation.
            reward: Reward received for the previous action.

        Returns:
            The action to take.
        """

    @abstractmethod
    def act(self, obs: Any) -> Any:
        """Select an action (greedy for evaluation in ChainerRL's convention)."""

    @abstractmethod
    def stop_episode_and_train(
        self, obs: Any, reward: float, done: bool = False
    ) -> None:
        """Observe the last transition of an episode and learn from it.

        Args:
            obs: Last observation.
            reward: Last reward.
            done: True only if ``obs`` is a true terminal state (Gymnasium's
                ``terminated``); a time-limit cut is ``done=False``.
        """

    @abstractmethod
    def stop_episode(self) -> None:
        """Forget the current episode (evaluation episodes end with this)."""

    @abstractmethod
    def save(self, dirname: str) -> None:
        """Save the agent's internal state to the directory ``dirname``."""

    @abstractmethod
    def load(self, dirname: str) -> None:
        """Load the state saved by :meth:`save` from ``dirname``."""

    @abstractmethod
    def get_statistics(self) -> list[tuple[str, Any]]:
        """Return ``[(name, value), ...]`` of statistics to log."""

    # ---- PFRL's convention -------------------------------------------------

    # Subclasses implement ChainerRL's methods only; PFRL's convention is
    # derived from them here. ``__init_subclass__`` wraps the subclass's own
    # methods so that (a) the ``*_and_train`` methods mark the agent as driven
    # the ChainerRL way and (b) ``act``/``batch_act``/``batch_observe`` learn
    # while ``training`` is true and the agent is driven the PFRL way.
    _pending_reward: float = 0.0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in _AND_TRAIN_METHODS:
            if name in cls.__dict__:
                setattr(cls, name, _marking_and_train(cls.__dict__[name]))
        for name, learning_name in _PFRL_DISPATCH.items():
            if name in cls.__dict__:
                setattr(cls, name, _dispatching(cls.__dict__[name], learning_name))

    def observe(self, obs: Any, reward: float, done: bool, reset: bool) -> None:
        """Observe the result of the last :meth:`act` (PFRL's convention).

        Args:
            obs: Observation after the action.
            reward: Reward of the action.
            done: True if ``obs`` is terminal (Gymnasium's ``terminated``).
            reset: True if the episode is cut here without being terminal
                (Gymnasium's ``truncated``); the agent ends the episode but
                still bootstraps from ``obs``.
        """
        if self.training:
            if done or reset:
                self._pending_reward = 0.0
                marked = self._driven_by_and_train
                self.stop_episode_and_train(obs, reward, done)
                self._driven_by_and_train = marked
            else:
                # The transition is completed by the next act(obs), which
                # passes this reward on to act_and_train.
                self._pending_reward = reward
        elif done or reset:
            self.stop_episode()

    @contextlib.contextmanager
    def eval_mode(self) -> Iterator[None]:
        """Context manager that sets ``training = False`` for its block."""
        orig = self.training
        self.training = False
        try:
            yield
        finally:
            self.training = orig

    def _learning_act(self) -> bool:
        """Whether a plain ``act`` call should explore and learn (PFRL mode)."""
        return self.training and not self._driven_by_and_train


_AND_TRAIN_METHODS = (
    "act_and_train",
    "stop_episode_and_train",
    "batch_act_and_train",
    "batch_observe_and_train",
)
_PFRL_DISPATCH = {
    "act": "act_and_train",
    "batch_act": "batch_act_and_train",
    "batch_observe": "batch_observe_and_train",
}


def _marking_and_train(method: Any) -> Any:
    if getattr(method, "_kusari_rl_marking", False):
        return method

    @functools.wraps(method)
    def wrapper(self: Agent, *args: Any, **kwargs: Any) -> Any:
        self._driven_by_and_train = True
        return method(self, *args, **kwargs)

    wrapper._kusari_rl_marking = True  # type: ignore[attr-defined]
    return wrapper


def _dispatching(method: Any, learning_name: str) -> Any:
    if getattr(method, "_kusari_rl_dispatching", False):
        return method

    @functools.wraps(method)
    def wrapper(self: Agent, *args: Any, **kwargs: Any) -> Any:
        if not (self.training and not self._driven_by_and_train):
            return method(self, *args, **kwargs)
        if learning_name == "act_and_train":
            args = (*args, self._pending_reward)
            self._pending_reward = 0.0
        result = getattr(self, learning_name)(*args, **kwargs)
        # Calling the *_and_train method marked the agent; PFRL mode stays on.
        self._driven_by_and_train = False
        return result

    wrapper._kusari_rl_dispatching = True  # type: ignore[attr-defined]
    return wrapper


class BatchAgent(Agent):
    """Agent that acts in several environments at once (vectorised envs)."""

    @abstractmethod
    def batch_act_and_train(self, batch_obs: Sequence[Any]) -> Sequence[Any]:
        """Select one training action per environment."""

    @abstractmethod
    def batch_observe_and_train(
        self,
        batch_obs: Sequence[Any],
        batch_reward: Sequence[float],
        batch_done: Sequence[bool],
        batch_reset: Sequence[bool],
    ) -> None:
        """Observe one transition per environment and learn.

        ``batch_done[i]`` is a true terminal (``terminated``); ``batch_reset[i]``
        ends the episode without termination (``truncated``).
        """

    @abstractmethod
    def batch_act(self, batch_obs: Sequence[Any]) -> Sequence[Any]:
        """Select one evaluation action per environment."""

    @abstractmethod
    def batch_observe(
        self,
        batch_obs: Sequence[Any],
        batch_reward: Sequence[float],
        batch_done: Sequence[bool],
        batch_reset: Sequence[bool],
    ) -> None:
        """Observe one evaluation transition per environment (no learning)."""


class AttributeSavingMixin:
    """Save and load the attributes named in ``saved_attributes``.

    Each attribute that supports ``serialize`` (links, optimizers) is written
    to ``<dirname>/<name>.npz``; an attribute that is itself an
    ``AttributeSavingMixin`` is saved recursively to ``<dirname>/<name>/``.
    ``None`` attributes are skipped.
    """

    saved_attributes: Sequence[str] = ()

    def save(self, dirname: str) -> None:
        self._save_attributes(dirname, [])

    def _save_attributes(self, dirname: str, ancestors: list[Any]) -> None:
        os.makedirs(dirname, exist_ok=True)
        ancestors.append(self)
        for name in self.saved_attributes:
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, AttributeSavingMixin):
                if any(value is a for a in ancestors):
                    raise ValueError(
                        f"{type(self).__name__}.save: attribute {name!r} refers "
                        "back to an object being saved (a cycle)"
                    )
                value._save_attributes(os.path.join(dirname, name), ancestors)
            else:
                serializers.save_npz(os.path.join(dirname, f"{name}.npz"), value)
        ancestors.pop()

    def load(self, dirname: str) -> None:
        self._load_attributes(dirname, [])

    def _load_attributes(self, dirname: str, ancestors: list[Any]) -> None:
        ancestors.append(self)
        for name in self.saved_attributes:
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, AttributeSavingMixin):
                if any(value is a for a in ancestors):
                    raise ValueError(
                        f"{type(self).__name__}.load: attribute {name!r} refers "
                        "back to an object being loaded (a cycle)"
                    )
                value._load_attributes(os.path.join(dirname, name), ancestors)
            else:
                path = os.path.join(dirname, f"{name}.npz")
                if not os.path.exists(path):
                    raise FileNotFoundError(
                        f"{type(self).__name__}.load: {path} does not exist; "
                        "was the agent saved with agent.save(dirname)?"
                    )
                # An optimizer saved before its first update has no per-parameter
                # state (Adam's m, v) in the file; Chainer's strict load then
                # fails although the state is simply created at the next update.
                strict = not isinstance(value, kusari.Optimizer)
                serializers.load_npz(path, value, strict=strict)
        ancestors.pop()


def load_npz_no_strict(filename: str, obj: Any) -> None:
    """Load ``obj`` from an NPZ file, ignoring keys missing from the file."""
    serializers.load_npz(filename, obj, strict=False)


class AsyncAgent(Agent):
    """Agent trained asynchronously by several processes (A3C-style).

    Subclasses expose ``process_idx`` (set by the training loop) and
    ``shared_attributes``: names of links/optimizers whose parameters live
    in shared memory.
    """

    process_idx: int | None = None

    @property
    @abstractmethod
    def shared_attributes(self) -> tuple[str, ...]:
        """Names of attributes shared between processes."""
