"""Deep Q-Network (Mnih et al., 2015) with ChainerRL's options.

The training step is ChainerRL's: act with the explorer, store the
transition, update from a sampled minibatch every ``update_interval`` steps
and refresh the target network every ``target_update_interval`` steps.
Terminal transitions (``done``/``terminated``) do not bootstrap; episodes cut
by a time limit (``reset``/``truncated``) do.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import kusari
from kusari_rl.action_value import DiscreteActionValue
from kusari_rl.agent import AttributeSavingMixin, BatchAgent
from kusari_rl.agents._dqn_learning import DQNLearningMixin
from kusari_rl.agents._dqn_recurrent import RecurrentQMixin
from kusari_rl.agents._eval_average import EvalAverageMixin
from kusari_rl.agents._recurrent import check_recurrent_model
from kusari_rl.agents._value_losses import (
    compute_value_loss,
    compute_weighted_value_loss,
)
from kusari_rl.explorer import Explorer
from kusari_rl.explorers import (
    ConstantEpsilonGreedy,
    ExponentialDecayEpsilonGreedy,
    Greedy,
    LinearDecayEpsilonGreedy,
)
from kusari_rl.misc.batch_states import batch_states as default_batch_states
from kusari_rl.q_functions.state_q_functions import FCQuadraticStateQFunction
from kusari_rl.replay_buffer import (
    AbstractEpisodicReplayBuffer,
    AbstractReplayBuffer,
    ReplayUpdater,
)

__all__ = ["DQN", "compute_value_loss", "compute_weighted_value_loss"]

# Explorers known not to look at ``action_value``: skip slicing it per env.
_AV_FREE_EXPLORERS = (
    Greedy,
    ConstantEpsilonGreedy,
    LinearDecayEpsilonGreedy,
    ExponentialDecayEpsilonGreedy,
)


def _identity(x: Any) -> Any:
    return x


class DQN(
    DQNLearningMixin,
    RecurrentQMixin,
    EvalAverageMixin,
    AttributeSavingMixin,
    BatchAgent,
):
    """Deep Q-Network.

    Args:
        q_function: Q-function returning an action value (e.g.
            :class:`~kusari_rl.q_functions.FCStateQFunctionWithDiscreteAction`).
        optimizer: Optimizer already set up with ``q_function``.
        replay_buffer: Replay buffer.
        gamma: Discount factor.
        explorer: Explorer used while training.
        gpu: GPU id to run on (None or negative: CPU).
        replay_start_size: No update before the buffer holds this many.
        minibatch_size: Minibatch size.
        update_interval: Update every this many steps.
        target_update_interval: Refresh the target network every this many
            steps.
        clip_delta: Huber loss (True) or squared loss.
        phi: Feature extractor applied to observations.
        target_update_method: ``'hard'`` (copy) or ``'soft'`` (Polyak).
        soft_update_tau: Tau of the soft update.
        n_times_update: Updates per update step.
        average_q_decay, average_loss_decay: Decay of the logged averages.
        batch_accumulator: ``'mean'`` or ``'sum'`` over the minibatch.
        episodic_update_len: With ``recurrent``, the length of the sequences
            sampled for an update (None: whole episodes).
        logger: Logger.
        batch_states: Function turning observations into a batch.
        recurrent: The Q-function implements
            :class:`~kusari_rl.links.StatelessRecurrent` (e.g. a
            :class:`~kusari_rl.links.StatelessRecurrentSequential` holding an
            ``NStepLSTM``): hidden states are carried across steps (one per
            environment, reset when its episode ends), stored with the
            transitions, and the update replays ``minibatch_size`` sequences
            sampled from an episodic replay buffer, starting each from its
            stored state.
        max_grad_norm: Clip the global gradient norm to this (None: no clip).
        eval_average_decay: Act greedily outside training (``act``, or in
            ``eval_mode()``) with a moving average of the Q-function's
            weights, moved with this decay after every update. None: the
            live Q-function, as in ChainerRL.
        obs_normalizer: Optional ``EmpiricalNormalization`` (not with
            ``recurrent``): updated with the observations acted on in
            training; every batch the Q-function sees is normalised with it,
            while the replay buffer keeps raw observations.

    Example:
        >>> import gymnasium as gym
        >>> import kusari
        >>> from kusari_rl import explorers, q_functions, replay_buffers
        >>> env = gym.make('CartPole-v1')
        >>> q = q_functions.FCStateQFunctionWithDiscreteAction(4, 2, 32, 2)
        >>> opt = kusari.optimizers.Adam(1e-3)
        >>> _ = opt.setup(q)
        >>> agent = DQN(q, opt, replay_buffers.ReplayBuffer(10**4), 0.99,
        ...             explorers.ConstantEpsilonGreedy(0.1, env.action_space.sample),
        ...             replay_start_size=100)
    """

    saved_attributes: Sequence[str] = (
        "model",
        "target_model",
        "optimizer",
        "eval_average_model",
        "obs_normalizer",
    )
    # Extra state a resumable snapshot keeps (see experiments.snapshot).
    snapshot_attributes: Sequence[str] = (
        "t",
        "average_q",
        "average_loss",
        "explorer",
        "last_state",
        "last_action",
        "batch_last_obs",
        "batch_last_action",
        "_pending_reward",
        "_driven_by_and_train",
        "train_recurrent_states",
        "train_prev_recurrent_states",
        "test_recurrent_states",
        "eval_average_updates",
    )

    def __init__(
        self,
        q_function: kusari.Link,
        optimizer: kusari.Optimizer,
        replay_buffer: AbstractReplayBuffer,
        gamma: float,
        explorer: Explorer,
        gpu: int | None = None,
        replay_start_size: int = 50000,
        minibatch_size: int = 32,
        update_interval: int = 1,
        target_update_interval: int = 10000,
        clip_delta: bool = True,
        phi: Callable[[Any], Any] = _identity,
        target_update_method: str = "hard",
        soft_update_tau: float = 1e-2,
        n_times_update: int = 1,
        average_q_decay: float = 0.999,
        average_loss_decay: float = 0.99,
        batch_accumulator: str = "mean",
        episodic_update_len: int | None = None,
        logger: logging.Logger | None = None,
        batch_states: Callable[..., Any] = default_batch_states,
        recurrent: bool = False,
        max_grad_norm: float | None = None,
        eval_average_decay: float | None = None,
        obs_normalizer: kusari.Link | None = None,
    ) -> None:
        name = type(self).__name__
        if recurrent:
            if obs_normalizer is not None:
                raise ValueError(
                    f"{name}: obs_normalizer is not supported with recurrent="
                    "True; normalise inside the recurrent model instead"
                )
            check_recurrent_model(name, q_function, "q_function")
            if not isinstance(replay_buffer, AbstractEpisodicReplayBuffer):
                raise TypeError(
                    f"{name}: recurrent=True samples sequences, so it needs an "
                    "episodic replay buffer (replay_buffers.EpisodicReplayBuffer), "
                    f"got {type(replay_buffer).__name__}"
                )
        if target_update_method not in ("hard", "soft"):
            raise ValueError(
                f"{name}: target_update_method must be 'hard' or 'soft', got "
                f"{target_update_method!r}"
            )
        if batch_accumulator not in ("mean", "sum"):
            raise ValueError(
                f"{name}: batch_accumulator must be 'mean' or 'sum', got "
                f"{batch_accumulator!r}"
            )
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"{name}: gamma must be in [0, 1], got {gamma}")
        if target_update_interval <= 0:
            raise ValueError(
                f"{name}: target_update_interval must be positive, got "
                f"{target_update_interval}"
            )
        self.model = q_function
        self.q_function = q_function  # ChainerRL's alias
        if gpu is not None and gpu >= 0:
            self.model.to_device(kusari.get_device(f"@cupy:{gpu}"))
            if obs_normalizer is not None:
                obs_normalizer.to_device(kusari.get_device(f"@cupy:{gpu}"))
        self.obs_normalizer = obs_normalizer
        self.device = self.model.device
        self.xp = self.model.xp
        self.replay_buffer = replay_buffer
        self.optimizer = optimizer
        self.gamma = gamma
        self.explorer = explorer
        self.gpu = gpu
        self.target_update_interval = target_update_interval
        self.clip_delta = clip_delta
        self.phi = phi
        # Declared for experiments' space checks (misc.check_agent_env): a
        # custom phi may turn any observation into an array.
        self.supported_observation_space = "array" if phi is _identity else "any"
        self.supported_action_space = (
            "continuous"
            if isinstance(q_function, FCQuadraticStateQFunction)
            else "discrete"
        )
        self.target_update_method = target_update_method
        self.soft_update_tau = soft_update_tau
        self.batch_accumulator = batch_accumulator
        self.logger = logger or logging.getLogger(__name__)
        self.batch_states = batch_states
        self.recurrent = recurrent
        self.max_grad_norm = max_grad_norm
        self.minibatch_size = minibatch_size
        self.replay_updater = ReplayUpdater(
            replay_buffer=replay_buffer,
            update_func=self.update_from_episodes if recurrent else self.update,
            batchsize=minibatch_size,
            episodic_update=recurrent,
            episodic_update_len=episodic_update_len,
            n_times_update=n_times_update,
            replay_start_size=replay_start_size,
            update_interval=update_interval,
        )
        self.t = 0
        self.last_state: Any = None
        self.last_action: Any = None
        self.batch_last_obs: list[Any] = []
        self.batch_last_action: list[Any] = []
        self.average_q = 0.0
        self.average_q_decay = average_q_decay
        self.average_loss = 0.0
        self.average_loss_decay = average_loss_decay
        self._pass_action_value = not isinstance(explorer, _AV_FREE_EXPLORERS)
        # Hidden states of a recurrent model (arrays; None: initial state).
        # ``train_prev_recurrent_states`` is the state before the last
        # training observation: the one stored with its transition.
        self.train_recurrent_states: Any = None
        self.train_prev_recurrent_states: Any = None
        self.test_recurrent_states: Any = None
        self.target_model: Any = None
        self.sync_target_network()
        self.target_q_function = self.target_model  # ChainerRL's alias
        self._init_eval_average(eval_average_decay)

    # ---- acting ------------------------------------------------------------

    def _evaluate_model(self, batch_obs: Sequence[Any], train: bool = False) -> Any:
        # A Q-function that computes its values without a graph
        # (``q_values_array``, e.g. FCDuelingQFunction) acts through it: the
        # same numbers, a fraction of the time per step.
        model = self.model if train else self._eval_model()
        fast = getattr(model, "q_values_array", None)
        if fast is None or self.recurrent:
            return super()._evaluate_model(batch_obs, train)
        with kusari.using_config("train", False), kusari.no_backprop_mode():
            xs = self.batch_states(batch_obs, self.device, self.phi)
            if self.obs_normalizer is not None:
                if train:
                    self.obs_normalizer.experience(xs)
                xs = self._normalize(xs)
            return DiscreteActionValue(fast(xs))

    def _greedy(self, batch_av: Any) -> tuple[np.ndarray, np.ndarray]:
        cpu = kusari.backend.CpuDevice()
        q = getattr(batch_av, "q_values", None)
        if q is not None:
            # Discrete values: argmax/max on the array directly, with no
            # extra graph nodes on the acting path.
            q = cpu.send(q.array)
            return q.argmax(axis=1), q.max(axis=1)
        return (
            cpu.send(batch_av.greedy_actions.array),
            cpu.send(batch_av.max.array),
        )

    def _update_average_q(self, q: float) -> None:
        self.average_q *= self.average_q_decay
        self.average_q += (1 - self.average_q_decay) * q

    def act(self, obs: Any) -> Any:
        av = self._evaluate_model([obs])
        greedy, maxq = self._greedy(av)
        self._update_average_q(float(maxq[0]))
        return greedy[0]

    def act_and_train(self, obs: Any, reward: float) -> Any:
        # Taken before the model advances past ``obs``.
        stored_rs = self._stored_recurrent_states(0)
        av = self._evaluate_model([obs], train=True)
        greedy, maxq = self._greedy(av)
        self._update_average_q(float(maxq[0]))
        greedy_action = greedy[0]
        action = self.explorer.select_action(
            self.t,
            lambda: greedy_action,
            action_value=av if self._pass_action_value else None,
        )
        self.t += 1
        if self.t % self.target_update_interval == 0:
            self.sync_target_network()
        if self.last_state is not None:
            self.replay_buffer.append(
                state=self.last_state,
                action=self.last_action,
                reward=reward,
                next_state=obs,
                next_action=action,
                is_state_terminal=False,
                **stored_rs,
            )
        self.last_state = obs
        self.last_action = action
        self.replay_updater.update_if_necessary(self.t)
        return action

    def stop_episode_and_train(
        self, obs: Any, reward: float, done: bool = False
    ) -> None:
        if self.last_state is None:
            raise RuntimeError(
                f"{type(self).__name__}.stop_episode_and_train called before any "
                "act_and_train in this episode"
            )
        self.replay_buffer.append(
            state=self.last_state,
            action=self.last_action,
            reward=reward,
            next_state=obs,
            next_action=self.last_action,
            is_state_terminal=bool(done),
            **self._stored_recurrent_states(0),
        )
        self._end_training_episode()

    def _end_training_episode(self) -> None:
        self.last_state = None
        self.last_action = None
        self.train_recurrent_states = None
        self.train_prev_recurrent_states = None
        self.replay_buffer.stop_current_episode()

    def stop_episode(self) -> None:
        # Inside eval_mode() an evaluation episode ends: only the evaluation
        # hidden state goes, and the training episode in progress (possibly
        # interrupted by this evaluation) must survive.
        self.test_recurrent_states = None
        if self.training:
            self._end_training_episode()

    def batch_act(self, batch_obs: Sequence[Any]) -> Any:
        av = self._evaluate_model(batch_obs)
        greedy, maxq = self._greedy(av)
        self._update_average_q(float(maxq.mean()))
        return greedy

    def batch_act_and_train(self, batch_obs: Sequence[Any]) -> Any:
        av = self._evaluate_model(batch_obs, train=True)
        greedy, maxq = self._greedy(av)
        self._update_average_q(float(maxq.mean()))
        n = len(batch_obs)
        select = self.explorer.select_action
        actions = [
            select(
                self.t,
                functools.partial(greedy.__getitem__, i),
                action_value=av[i : i + 1] if self._pass_action_value else None,
            )
            for i in range(n)
        ]
        self.batch_last_obs = list(batch_obs)
        self.batch_last_action = list(actions)
        return np.asarray(actions)

    def batch_observe(
        self,
        batch_obs: Sequence[Any],
        batch_reward: Sequence[float],
        batch_done: Sequence[bool],
        batch_reset: Sequence[bool],
    ) -> None:
        # Evaluation keeps no per-episode state but a recurrent model's.
        self._reset_ended_recurrent_states(batch_done, batch_reset, train=False)

    def batch_observe_and_train(
        self,
        batch_obs: Sequence[Any],
        batch_reward: Sequence[float],
        batch_done: Sequence[bool],
        batch_reset: Sequence[bool],
    ) -> None:
        for i in range(len(batch_obs)):
            self.t += 1
            if self.t % self.target_update_interval == 0:
                self.sync_target_network()
            if self.batch_last_obs[i] is not None:
                done = bool(batch_done[i])
                self.replay_buffer.append(
                    state=self.batch_last_obs[i],
                    action=self.batch_last_action[i],
                    reward=float(batch_reward[i]),
                    next_state=batch_obs[i],
                    next_action=None,
                    is_state_terminal=done,
                    env_id=i,
                    **self._stored_recurrent_states(i),
                )
                if done or batch_reset[i]:
                    self.batch_last_obs[i] = None
                    self.replay_buffer.stop_current_episode(env_id=i)
            self.replay_updater.update_if_necessary(self.t)
        self._reset_ended_recurrent_states(batch_done, batch_reset, train=True)

    def get_statistics(self) -> list[tuple[str, Any]]:
        return [
            ("average_q", self.average_q),
            ("average_loss", self.average_loss),
            ("n_updates", self.optimizer.t),
            ("rlen", len(self.replay_buffer)),
        ]
