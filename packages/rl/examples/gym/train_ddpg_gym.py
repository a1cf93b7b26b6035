"""DDPG on a continuous-control Gymnasium env (Pendulum by default).

    python train_ddpg_gym.py                      # Pendulum-v1, 30k steps
    python train_ddpg_gym.py --steps 200 --replay-start-size 100  # smoke test
    python train_ddpg_gym.py --demo --load results/<run>/best

The command line follows ChainerRL's ``train_ddpg_gym.py`` (``--env --steps
--seed --gpu --outdir --demo --load``, soft or hard target updates, OU or
Gaussian exploration noise).
"""

from __future__ import annotations

import argparse
import logging
import sys

import gymnasium as gym
import numpy as np

import kusari
from kusari_rl import experiments, explorers, misc, replay_buffers, wrappers
from kusari_rl.agents import DDPG
from kusari_rl.agents.ddpg import DDPGModel
from kusari_rl.policies import FCDeterministicPolicy
from kusari_rl.q_functions import FCBNLateActionSAQFunction, FCSAQFunction


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="Pendulum-v1", help="Gymnasium env id")
    parser.add_argument("--outdir", default="results", help="where runs are written")
    parser.add_argument("--seed", type=int, default=0, help="random seed [0, 2**32)")
    parser.add_argument(
        "--gpu",
        "--device",
        type=int,
        default=-1,
        dest="gpu",
        help="GPU id; negative for CPU",
    )
    parser.add_argument("--steps", type=int, default=30_000)
    parser.add_argument("--eval-n-runs", type=int, default=10)
    parser.add_argument("--eval-interval", type=int, default=1000)
    parser.add_argument("--replay-start-size", type=int, default=1000)
    parser.add_argument("--minibatch-size", type=int, default=128)
    parser.add_argument("--n-hidden-channels", type=int, default=64)
    parser.add_argument("--n-hidden-layers", type=int, default=2)
    parser.add_argument("--actor-lr", type=float, default=1e-3)
    parser.add_argument("--critic-lr", type=float, default=1e-3)
    parser.add_argument("--gamma", type=float, default=0.98)
    parser.add_argument(
        "--target-update-method", choices=["hard", "soft"], default="soft"
    )
    parser.add_argument("--target-update-interval", type=int, default=1)
    parser.add_argument("--soft-update-tau", type=float, default=5e-3)
    parser.add_argument(
        "--noise",
        choices=["gaussian", "ou"],
        default="gaussian",
        help="exploration noise added to training actions",
    )
    parser.add_argument("--noise-scale", type=float, default=0.1)
    parser.add_argument(
        "--use-bn",
        action="store_true",
        help="batch-normalised critic (DDPG paper's architecture)",
    )
    parser.add_argument("--demo", action="store_true", help="evaluate only")
    parser.add_argument("--load", default="", help="directory of a saved agent")
    parser.add_argument("--log-level", type=int, default=logging.INFO)
    return parser.parse_args(argv)


def make_env(env_id: str, seed: int) -> gym.Env:
    env = wrappers.CastObservationToFloat32(gym.make(env_id))
    env = wrappers.NormalizeActionSpace(env)
    env.reset(seed=seed)
    env.action_space.seed(seed)
    return env


def make_agent(args: argparse.Namespace, env: gym.Env) -> DDPG:
    obs_size = env.observation_space.shape[0]
    action_space = env.action_space
    action_size = action_space.shape[0]
    hidden = args.n_hidden_channels
    q_cls = FCBNLateActionSAQFunction if args.use_bn else FCSAQFunction
    q_func = q_cls(obs_size, action_size, hidden, args.n_hidden_layers)
    policy = FCDeterministicPolicy(
        obs_size,
        n_hidden_layers=args.n_hidden_layers,
        n_hidden_channels=hidden,
        action_size=action_size,
        min_action=action_space.low,
        max_action=action_space.high,
    )
    model = DDPGModel(policy=policy, q_func=q_func)
    actor_opt = kusari.optimizers.Adam(alpha=args.actor_lr)
    actor_opt.setup(model["policy"])
    critic_opt = kusari.optimizers.Adam(alpha=args.critic_lr)
    critic_opt.setup(model["q_function"])
    if args.noise == "ou":
        explorer = explorers.AdditiveOU(sigma=args.noise_scale * np.ones(action_size))
    else:
        explorer = explorers.AdditiveGaussian(
            scale=args.noise_scale, low=action_space.low, high=action_space.high
        )
    return DDPG(
        model,
        actor_opt,
        critic_opt,
        replay_buffers.ReplayBuffer(10**6),
        gamma=args.gamma,
        explorer=explorer,
        gpu=args.gpu,
        replay_start_size=args.replay_start_size,
        minibatch_size=args.minibatch_size,
        target_update_method=args.target_update_method,
        target_update_interval=args.target_update_interval,
        soft_update_tau=args.soft_update_tau,
        burnin_action_func=action_space.sample,
    )


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    logging.basicConfig(level=args.log_level)
    misc.set_random_seed(args.seed, gpus=(args.gpu,))
    args.outdir = experiments.prepare_output_dir(args, args.outdir, argv=argv)
    env = make_env(args.env, args.seed)
    eval_env = make_env(args.env, 2**31 - 1 - args.seed)
    agent = make_agent(args, env)
    if args.load:
        agent.load(args.load)
    if args.demo:
        stats = experiments.eval_performance(
            env=eval_env, agent=agent, n_steps=None, n_episodes=args.eval_n_runs
        )
        print(
            f"n_runs: {args.eval_n_runs} mean: {stats['mean']} "
            f"median: {stats['median']} stdev: {stats['stdev']}"
        )
        return
    experiments.train_agent_with_evaluation(
        agent=agent,
        env=env,
        eval_env=eval_env,
        steps=args.steps,
        eval_n_steps=None,
        eval_n_episodes=args.eval_n_runs,
        eval_interval=args.eval_interval,
        outdir=args.outdir,
    )


if __name__ == "__main__":
    main(sys.argv[1:])
