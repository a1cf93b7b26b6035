"""Deep Deterministic Policy Gradient (Lillicrap et al., 2016).

See https://arxiv.org/abs/1509.02971.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from logging import Logger, getLogger
from typing import Any

import kusari
import kusari.functions as F
from kusari_rl.agents._replay_actor_critic import ReplayActorCritic
from kusari_rl.misc.copy_param import copy_param, soft_copy_param
from kusari_rl.replay_buffer import batch_experiences

__all__ = ["DDPG", "DDPGModel"]


class DDPGModel(kusari.Chain):
    """The policy and the Q-function of DDPG, held as one chain.

    Args:
        policy: Link mapping a batch of states to a (deterministic)
            distribution over actions.
        q_func: Link mapping ``(state, action)`` batches to ``(batch, 1)``
            Q-values.
    """

    def __init__(self, policy: kusari.Link, q_func: kusari.Link) -> None:
        super().__init__()
        with self.init_scope():
            self.policy = policy
            self.q_function = q_func


class DDPG(ReplayActorCritic):
    """Deep Deterministic Policy Gradient.

    The critic regresses ``r + discount * (1 - terminal) * Q'(s', mu'(s'))``
    with target networks ``Q'``, ``mu'``; the actor ascends ``Q(s, mu(s))``.

    Args:
        model: A :class:`DDPGModel`.
        actor_optimizer: Optimizer set up with ``model['policy']``.
        critic_optimizer: Optimizer set up with ``model['q_function']``.
        replay_buffer: Replay buffer.
        gamma: Discount factor.
        explorer: Explorer adding noise to the actions while training.
        gpu: GPU id to move the model to (None or negative: CPU).
        replay_start_size: Updates start once the buffer holds this many
            transitions.
        minibatch_size: Transitions per update.
        update_interval: Steps between updates.
        target_update_interval: Steps between target network syncs.
        phi: Feature extractor applied to observations.
        target_update_method: ``'hard'`` (copy) or ``'soft'`` (Polyak).
        soft_update_tau: ``tau`` of the soft update.
        n_times_update: Updates per update step.
        average_q_decay: Decay of the running mean of Q.
        average_loss_decay: Decay of the running means of the losses.
        episodic_update: Must be False; recurrent (episodic) DDPG is not
            provided.
        episodic_update_len: Unused (kept for ChainerRL's signature).
        logger: Logger.
        batch_states: Function making a batch of observations.
        burnin_action_func: If given, called for the actions taken before
            the first policy update (e.g. ``action_space.sample``).

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> import kusari_rl
        >>> from kusari_rl.agents.ddpg import DDPG, DDPGModel
        >>> from kusari_rl.policies import FCDeterministicPolicy
        >>> from kusari_rl.q_functions import FCSAQFunction
        >>> model = DDPGModel(
        ...     policy=FCDeterministicPolicy(3, n_hidden_layers=1,
        ...         n_hidden_channels=8, action_size=1,
        ...         min_action=np.array([-2.0], np.float32),
        ...         max_action=np.array([2.0], np.float32)),
        ...     q_func=FCSAQFunction(3, 1, n_hidden_channels=8, n_hidden_layers=1))
        >>> opt_a = kusari.optimizers.Adam().setup(model['policy'])
        >>> opt_c = kusari.optimizers.Adam().setup(model['q_function'])
        >>> agent = DDPG(model, opt_a, opt_c,
        ...              kusari_rl.replay_buffers.ReplayBuffer(1000), gamma=0.99,
        ...              explorer=kusari_rl.explorers.AdditiveGaussian(0.1))
        >>> agent.act(np.zeros(3, np.float32)).shape
        (1,)
    """

    saved_attributes = ("model", "target_model", "actor_optimizer", "critic_optimizer")
    snapshot_attributes: Sequence[str] = (
        *ReplayActorCritic.snapshot_attributes,
        "average_q",
        "average_actor_loss",
        "average_critic_loss",
    )

    def __init__(
        self,
        model: DDPGModel,
        actor_optimizer: Any,
        critic_optimizer: Any,
        replay_buffer: Any,
        gamma: float,
        explorer: Any,
        gpu: int | None = None,
        replay_start_size: int = 50000,
        minibatch_size: int = 32,
        update_interval: int = 1,
        target_update_interval: int = 10000,
        phi: Callable[[Any], Any] = lambda x: x,
        target_update_method: str = "hard",
        soft_update_tau: float = 1e-2,
        n_times_update: int = 1,
        average_q_decay: float = 0.999,
        average_loss_decay: float = 0.99,
        episodic_update: bool = False,
        episodic_update_len: int | None = None,
        logger: Logger | None = None,
        batch_states: Callable[..., Any] | None = None,
        burnin_action_func: Callable[[], Any] | None = None,
    ) -> None:
        if episodic_update:
            raise ValueError(
                "DDPG: episodic_update=True (recurrent DDPG) is not supported; "
                "use episodic_update=False with a feed-forward model"
            )
        if target_update_method not in ("hard", "soft"):
            raise ValueError(
                "DDPG: target_update_method must be 'hard' or 'soft', got "
                f"{target_update_method!r}"
            )
        self.model = model
        if gpu is not None and gpu >= 0:
            self.model.to_device(gpu)
        self.xp = self.model.xp
        self.gpu = gpu
        self.gamma = gamma
        self.explorer = explorer
        self.actor_optimizer = actor_optimizer
        self.critic_optimizer = critic_optimizer
        self.target_update_interval = target_update_interval
        self.target_update_method = target_update_method
        self.soft_update_tau = soft_update_tau
        self.average_q_decay = average_q_decay
        self.average_loss_decay = average_loss_decay
        self.average_q = 0.0
        self.average_actor_loss = 0.0
        self.average_critic_loss = 0.0
        self._setup_acting(
            replay_buffer=replay_buffer,
            minibatch_size=minibatch_size,
            replay_start_size=replay_start_size,
            update_interval=update_interval,
            n_times_update=n_times_update,
            phi=phi,
            batch_states=batch_states,
            burnin_action_func=burnin_action_func,
            logger=logger or getLogger(__name__),
        )
        self.target_model = copy.deepcopy(self.model)

    @property
    def policy(self) -> Any:
        return self.model["policy"]

    @property
    def q_function(self) -> Any:
        return self.model["q_function"]

    @property
    def target_policy(self) -> Any:
        return self.target_model["policy"]

    @property
    def target_q_function(self) -> Any:
        return self.target_model["q_function"]

    def sync_target_network(self) -> None:
        """Move the target networks towards the online ones."""
        if self.target_update_method == "hard":
            copy_param(self.target_model, self.model)
        else:
            soft_copy_param(self.target_model, self.model, self.soft_update_tau)

    def _after_step(self) -> None:
        if self.t % self.target_update_interval == 0:
            self.sync_target_network()

    def _n_policy_updates(self) -> int:
        return int(self.actor_optimizer.t)

    def compute_critic_loss(self, batch: dict[str, Any]) -> Any:
        """Mean squared TD error of the critic on a minibatch."""
        state = batch["state"]
        next_state = batch["next_state"]
        with kusari.no_backprop_mode(), kusari.using_config("train", False):
            next_action = self.target_policy(next_state).sample()
            next_q = F.flatten(self.target_q_function(next_state, next_action)).array
            target_q = (
                batch["reward"]
                + batch["discount"] * (1.0 - batch["is_state_terminal"]) * next_q
            )
        predict_q = F.flatten(self.q_function(state, batch["action"]))
        loss = F.mean_squared_error(predict_q, target_q.astype(predict_q.dtype))
        d = self.average_loss_decay
        self.average_critic_loss = d * self.average_critic_loss + (1 - d) * float(
            loss.array
        )
        return loss

    def compute_actor_loss(self, batch: dict[str, Any]) -> Any:
        """``-mean(Q(s, mu(s)))`` on a minibatch."""
        state = batch["state"]
        q = self.q_function(state, self.policy(state).sample())
        loss = -F.mean(q)
        d = self.average_q_decay
        self.average_q = d * self.average_q + (1 - d) * float(q.array.mean())
        d = self.average_loss_decay
        self.average_actor_loss = d * self.average_actor_loss + (1 - d) * float(
            loss.array
        )
        return loss

    def update(self, experiences: Any, errors_out: Any = None) -> None:
        """One critic and one actor update from sampled transitions."""
        batch = batch_experiences(experiences, self.xp, self.phi, self.gamma)
        self.critic_optimizer.update(lambda: self.compute_critic_loss(batch))
        self.actor_optimizer.update(lambda: self.compute_actor_loss(batch))

    def get_statistics(self) -> list[tuple[str, Any]]:
        return [
            ("average_q", self.average_q),
            ("average_actor_loss", self.average_actor_loss),
            ("average_critic_loss", self.average_critic_loss),
        ]
