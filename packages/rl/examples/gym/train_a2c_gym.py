"""Train A2C on a Gymnasium environment (ChainerRL's ``train_a2c_gym.py``).

Discrete action spaces get a softmax policy, 1-D Box spaces a Gaussian
policy with a learned state-independent variance.

    python train_a2c_gym.py --env CartPole-v1 --steps 200000 --num-envs 8 --use-gae
    python train_a2c_gym.py --env CartPole-v1 --demo --load results/.../best
"""

from __future__ import annotations

import argparse
import functools
import logging
import sys

import gymnasium as gym
import numpy as np

import kusari
import kusari.functions as F
from kusari.optimizer_hooks import GradientClipping
from kusari_rl import experiments, misc, policies, v_functions
from kusari_rl.agents import A2C
from kusari_rl.agents.a2c import A2CSeparateModel


def make_env(env_id: str, seed: int, test: bool) -> gym.Env:
    env = gym.make(env_id)
    if isinstance(env.action_space, gym.spaces.Box):
        env = gym.wrappers.ClipAction(env)
    # Test episodes use different seeds from training episodes.
    env.reset(seed=seed + (2**31 if test else 0))
    return env


def make_model(obs_space: gym.Space, action_space: gym.Space) -> A2CSeparateModel:
    if not isinstance(obs_space, gym.spaces.Box) or len(obs_space.shape) != 1:
        sys.exit(
            f"train_a2c_gym.py needs a 1-D Box observation space, got {obs_space}; "
            "flatten the observations with gymnasium.wrappers.FlattenObservation"
        )
    obs_size = obs_space.shape[0]
    if isinstance(action_space, gym.spaces.Discrete):
        pi: kusari.Link = policies.FCSoftmaxPolicy(
            obs_size, action_space, 2, 64, nonlinearity=F.tanh, last_wscale=0.01
        )
    elif isinstance(action_space, gym.spaces.Box) and len(action_space.shape) == 1:
        pi = policies.FCGaussianPolicyWithStateIndependentCovariance(
            obs_size,
            action_space,
            2,
            64,
            nonlinearity=F.tanh,
            mean_wscale=0.01,
            var_type="diagonal",
            var_func=F.softplus,
            var_param_init=0.0,
        )
    else:
        sys.exit(
            f"train_a2c_gym.py supports Discrete and 1-D Box action spaces, got "
            f"{action_space}; wrap the environment to flatten its action space"
        )
    vf = v_functions.FCVFunction(obs_size, 2, 64, nonlinearity=F.tanh)
    return A2CSeparateModel(pi, vf)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", type=str, default="CartPole-v1")
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gpu", type=int, default=-1, help="GPU id (-1: CPU)")
    parser.add_argument("--outdir", type=str, default="results")
    parser.add_argument("--steps", type=int, default=10**6)
    parser.add_argument("--eval-interval", type=int, default=10000)
    parser.add_argument("--eval-n-runs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=7e-4)
    parser.add_argument("--update-steps", type=int, default=5)
    parser.add_argument("--rmsprop-epsilon", type=float, default=1e-5)
    parser.add_argument("--alpha", type=float, default=0.99)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    parser.add_argument("--weight-decay", type=float, default=0.0)
    parser.add_argument("--entropy-coeff", type=float, default=0.01)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--use-gae", action="store_true")
    parser.add_argument("--tau", type=float, default=0.95)
    parser.add_argument("--max-episode-len", type=int, default=None)
    parser.add_argument("--demo", action="store_true")
    parser.add_argument("--load", type=str, default="")
    parser.add_argument("--logger-level", type=int, default=logging.INFO)
    args = parser.parse_args(argv)

    logging.basicConfig(level=args.logger_level)
    misc.set_random_seed(args.seed, gpus=(args.gpu,))
    outdir = experiments.prepare_output_dir(args, args.outdir, argv=argv)

    sample_env = gym.make(args.env)
    model = make_model(sample_env.observation_space, sample_env.action_space)
    sample_env.close()
    opt = kusari.optimizers.RMSprop(
        lr=args.lr, eps=args.rmsprop_epsilon, alpha=args.alpha
    )
    opt.setup(model)
    opt.add_hook(GradientClipping(args.max_grad_norm))
    if args.weight_decay > 0:
        opt.add_hook(kusari.optimizer_hooks.WeightDecay(args.weight_decay))
    agent = A2C(
        model,
        opt,
        gamma=args.gamma,
        num_processes=args.num_envs,
        gpu=args.gpu,
        update_steps=args.update_steps,
        entropy_coeff=args.entropy_coeff,
        use_gae=args.use_gae,
        tau=args.tau,
        act_deterministically=True,
        phi=lambda x: np.asarray(x, dtype=np.float32),
    )
    if args.load:
        agent.load(args.load)

    eval_env = make_env(args.env, args.seed, test=True)
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
    env = experiments.make_vector_env(
        [
            functools.partial(make_env, args.env, args.seed + i, False)
            for i in range(args.num_envs)
        ]
    )
    experiments.train_agent_batch_with_evaluation(
        agent=agent,
        env=env,
        eval_env=eval_env,
        outdir=outdir,
        steps=args.steps,
        eval_n_steps=None,
        eval_n_episodes=args.eval_n_runs,
        eval_interval=args.eval_interval,
        max_episode_len=args.max_episode_len,
        log_interval=1000,
    )


if __name__ == "__main__":
    main()
