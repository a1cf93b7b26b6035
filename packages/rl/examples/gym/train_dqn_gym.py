"""Train DQN (NAF for Box actions) on Gymnasium (ChainerRL's ``train_dqn_gym.py``).

Discrete action spaces get a fully connected Q-function and epsilon-greedy
exploration; 1-D Box action spaces get NAF (a quadratic Q-function) with
Ornstein-Uhlenbeck noise.

    python train_dqn_gym.py --env CartPole-v1 --steps 50000
    # rl-baselines3-zoo's CartPole-v1 DQN (what benchmarks/ compares with SB3):
    python train_dqn_gym.py --env CartPole-v1 --steps 50000 --lr 2.3e-3 \
        --adam-eps 1e-8 --reward-scale-factor 1 --n-hidden-channels 256 \
        --minibatch-size 64 --update-interval 256 --n-times-update 128 \
        --target-update-interval 10 --final-exploration-steps 8000 \
        --end-epsilon 0.04 --max-grad-norm 10
    python train_dqn_gym.py --env CartPole-v1 --num-envs 4 --prioritized-replay
    python train_dqn_gym.py --env Pendulum-v1 --steps 200000
    python train_dqn_gym.py --env CartPole-v1 --demo --load results/.../best
"""

from __future__ import annotations

import argparse
import functools
import logging
import sys

import gymnasium as gym
import numpy as np

import kusari
from kusari_rl import experiments, explorers, links, misc, q_functions, replay_buffers
from kusari_rl.agents import DQN, DoubleDQN
from kusari_rl.wrappers import ScaleReward


def make_env(env_id: str, seed: int, test: bool, reward_scale: float) -> gym.Env:
    env = gym.make(env_id)
    if not test and reward_scale != 1.0:
        env = ScaleReward(env, reward_scale)
    # Test episodes use different seeds from training episodes.
    env.reset(seed=seed + (2**31 if test else 0))
    env.action_space.seed(seed)
    return env


def make_q_function(
    args: argparse.Namespace, obs_space: gym.Space, action_space: gym.Space
) -> kusari.Link:
    if not isinstance(obs_space, gym.spaces.Box) or len(obs_space.shape) != 1:
        sys.exit(
            f"train_dqn_gym.py needs a 1-D Box observation space, got {obs_space}; "
            "flatten the observations with gymnasium.wrappers.FlattenObservation"
        )
    obs_size = obs_space.shape[0]
    if isinstance(action_space, gym.spaces.Discrete):
        return q_functions.FCStateQFunctionWithDiscreteAction(
            obs_size, int(action_space.n), args.n_hidden_channels, args.n_hidden_layers
        )
    if isinstance(action_space, gym.spaces.Box) and len(action_space.shape) == 1:
        return q_functions.FCQuadraticStateQFunction(
            obs_size,
            action_space.shape[0],
            args.n_hidden_channels,
            args.n_hidden_layers,
            action_space=action_space,
        )
    sys.exit(
        f"train_dqn_gym.py supports Discrete and 1-D Box action spaces, got "
        f"{action_space}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", type=str, default="CartPole-v1")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gpu", type=int, default=-1, help="GPU id (-1: CPU)")
    parser.add_argument(
        "--device",
        type=str,
        default=None,
        help="kusari device spec, e.g. @cupy:0 (overrides --gpu)",
    )
    parser.add_argument("--outdir", type=str, default="results")
    parser.add_argument("--num-envs", type=int, default=1)
    parser.add_argument("--final-exploration-steps", type=int, default=10**4)
    parser.add_argument("--start-epsilon", type=float, default=1.0)
    parser.add_argument("--end-epsilon", type=float, default=0.1)
    parser.add_argument("--noisy-net-sigma", type=float, default=None)
    parser.add_argument("--demo", action="store_true")
    parser.add_argument("--load", type=str, default=None)
    parser.add_argument("--steps", type=int, default=10**5)
    parser.add_argument("--prioritized-replay", action="store_true")
    parser.add_argument("--replay-start-size", type=int, default=1000)
    parser.add_argument("--target-update-interval", type=int, default=10**2)
    parser.add_argument("--target-update-method", type=str, default="hard")
    parser.add_argument("--soft-update-tau", type=float, default=1e-2)
    parser.add_argument("--update-interval", type=int, default=1)
    parser.add_argument(
        "--n-times-update", type=int, default=1, help="updates per update interval"
    )
    parser.add_argument(
        "--max-grad-norm", type=float, default=None, help="clip the gradient norm"
    )
    parser.add_argument("--adam-eps", type=float, default=1e-2)
    parser.add_argument("--eval-n-runs", type=int, default=100)
    parser.add_argument("--eval-interval", type=int, default=10**4)
    parser.add_argument("--n-hidden-channels", type=int, default=100)
    parser.add_argument("--n-hidden-layers", type=int, default=2)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--minibatch-size", type=int, default=None)
    parser.add_argument("--reward-scale-factor", type=float, default=1e-3)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--double", action="store_true", help="use DoubleDQN")
    parser.add_argument("--max-episode-len", type=int, default=None)
    parser.add_argument("--snapshot-interval", type=int, default=None)
    parser.add_argument(
        "--resume",
        type=str,
        default=None,
        help="snapshot directory to resume a run from",
    )
    parser.add_argument("--logger-level", type=int, default=logging.INFO)
    args = parser.parse_args(argv)

    logging.basicConfig(level=args.logger_level)
    misc.set_random_seed(args.seed, gpus=(args.gpu,))
    outdir = experiments.prepare_output_dir(args, args.outdir, argv=argv)

    sample_env = gym.make(args.env)
    obs_space, action_space = sample_env.observation_space, sample_env.action_space
    sample_env.close()
    q_func = make_q_function(args, obs_space, action_space)
    discrete = isinstance(action_space, gym.spaces.Discrete)
    if args.noisy_net_sigma is not None:
        links.to_factorized_noisy(q_func, sigma_scale=args.noisy_net_sigma)
        explorer: explorers.Explorer = explorers.Greedy()
    elif discrete:
        explorer = explorers.LinearDecayEpsilonGreedy(
            args.start_epsilon,
            args.end_epsilon,
            args.final_exploration_steps,
            action_space.sample,
        )
    else:
        explorer = explorers.AdditiveOU()
    opt = kusari.optimizers.Adam(alpha=args.lr, eps=args.adam_eps)
    opt.setup(q_func)
    rbuf_capacity = 5 * 10**5
    if args.minibatch_size is None:
        args.minibatch_size = 32 if discrete else 64
    if args.prioritized_replay:
        betasteps = (args.steps - args.replay_start_size) // args.update_interval
        rbuf: replay_buffers.ReplayBuffer = replay_buffers.PrioritizedReplayBuffer(
            rbuf_capacity, betasteps=max(betasteps, 1)
        )
    else:
        rbuf = replay_buffers.ReplayBuffer(rbuf_capacity)
    if args.device is not None:
        q_func.to_device(args.device)
    cls = DoubleDQN if args.double else DQN
    agent = cls(
        q_func,
        opt,
        rbuf,
        gpu=args.gpu if args.device is None else None,
        gamma=args.gamma,
        explorer=explorer,
        replay_start_size=args.replay_start_size,
        target_update_interval=args.target_update_interval,
        update_interval=args.update_interval,
        minibatch_size=args.minibatch_size,
        target_update_method=args.target_update_method,
        soft_update_tau=args.soft_update_tau,
        n_times_update=args.n_times_update,
        max_grad_norm=args.max_grad_norm,
        phi=lambda x: np.asarray(x, dtype=np.float32),
    )
    if args.load:
        agent.load(args.load)

    eval_env = make_env(args.env, args.seed, test=True, reward_scale=1.0)
    if args.demo:
        stats = experiments.eval_performance(
            env=eval_env,
            agent=agent,
            n_steps=None,
            n_episodes=args.eval_n_runs,
            max_episode_len=args.max_episode_len,
        )
        print(
            f"n_runs: {args.eval_n_runs} mean: {stats['mean']} "
            f"median: {stats['median']} stdev: {stats['stdev']}"
        )
        return
    if args.num_envs == 1:
        env = make_env(
            args.env, args.seed, test=False, reward_scale=args.reward_scale_factor
        )
        experiments.train_agent_with_evaluation(
            agent=agent,
            env=env,
            steps=args.steps,
            eval_n_steps=None,
            eval_n_episodes=args.eval_n_runs,
            eval_interval=args.eval_interval,
            outdir=outdir,
            eval_env=eval_env,
            train_max_episode_len=args.max_episode_len,
            snapshot_interval=args.snapshot_interval,
            resume=args.resume,
        )
    else:
        venv = experiments.make_vector_env(
            [
                functools.partial(
                    make_env, args.env, args.seed + i, False, args.reward_scale_factor
                )
                for i in range(args.num_envs)
            ]
        )
        experiments.train_agent_batch_with_evaluation(
            agent=agent,
            env=venv,
            steps=args.steps,
            eval_n_steps=None,
            eval_n_episodes=args.eval_n_runs,
            eval_interval=args.eval_interval,
            outdir=outdir,
            eval_env=eval_env,
            max_episode_len=args.max_episode_len,
            log_interval=1000,
            snapshot_interval=args.snapshot_interval,
            resume=args.resume,
        )


if __name__ == "__main__":
    main()
