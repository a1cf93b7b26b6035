"""Train PPO on a Gymnasium environment (ChainerRL's ``train_ppo_gym.py``).

Discrete action spaces get a softmax policy, 1-D Box spaces a Gaussian
policy with a learned state-independent variance.

    python train_ppo_gym.py --env CartPole-v1 --steps 100000 --num-envs 8
    # rl-baselines3-zoo's CartPole-v1 PPO (what benchmarks/ compares with SB3):
    python train_ppo_gym.py --env CartPole-v1 --steps 100000 --num-envs 8 \
        --update-interval 256 --batchsize 256 --epochs 20 --lr 1e-3 \
        --gamma 0.98 --lambd 0.8 --value-func-coef 0.5 --max-grad-norm 0.5 \
        --linear-decay --orthogonal-init
    python train_ppo_gym.py --env Pendulum-v1 --steps 1000000
    python train_ppo_gym.py --env CartPole-v1 --demo --load results/.../best
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
from kusari_rl import experiments, misc, policies, v_functions
from kusari_rl.agents import PPO
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
            f"train_ppo_gym.py needs a 1-D Box observation space, got {obs_space}; "
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
            f"train_ppo_gym.py supports Discrete and 1-D Box action spaces, got "
            f"{action_space}; wrap the environment to flatten its action space"
        )
    vf = v_functions.FCVFunction(obs_size, 2, 64, nonlinearity=F.tanh)
    return A2CSeparateModel(pi, vf)


def decay_hooks(args: argparse.Namespace) -> list[experiments.StepHook]:
    """Hooks taking the learning rate and clip range linearly to 0."""

    def set_lr(env: object, agent: PPO, value: float) -> None:
        agent.optimizer.alpha = value

    def set_clip_eps(env: object, agent: PPO, value: float) -> None:
        agent.clip_eps = value

    return [
        experiments.LinearInterpolationHook(args.steps, args.lr, 0.0, set_lr),
        experiments.LinearInterpolationHook(
            args.steps, args.clip_eps, 0.0, set_clip_eps
        ),
    ]


def orthogonal_init(link: kusari.Link, output_gain: float) -> None:
    """Orthogonal weights (gain sqrt(2), ``output_gain`` for the output layer)
    and zero biases; parameters that are neither (a log-variance) stay."""
    for name, param in link.namedparams():
        if name.endswith("/b"):
            param.array[...] = 0.0
        elif name.endswith("/W"):
            gain = output_gain if "/output/" in name else 2**0.5
            kusari.initializers.Orthogonal(scale=gain)(param.array)


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
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--update-interval", type=int, default=2048)
    parser.add_argument("--batchsize", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--entropy-coef", type=float, default=0.0)
    parser.add_argument("--clip-eps-vf", type=float, default=None)
    parser.add_argument("--clip-eps", type=float, default=0.2)
    parser.add_argument("--value-func-coef", type=float, default=1.0)
    parser.add_argument(
        "--max-grad-norm", type=float, default=None, help="clip the gradient norm"
    )
    parser.add_argument(
        "--linear-decay",
        action="store_true",
        help="decay the learning rate and the clip range linearly to 0 over --steps",
    )
    parser.add_argument(
        "--orthogonal-init",
        action="store_true",
        help="orthogonal weights (gain sqrt(2), 0.01 for the policy output), "
        "zero biases, as Stable-Baselines3 initialises its actor-critic",
    )
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--lambd", type=float, default=0.95)
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
    if args.orthogonal_init:
        orthogonal_init(model.pi, 0.01)
        orthogonal_init(model.v, 1.0)
    opt = kusari.optimizers.Adam(alpha=args.lr, eps=1e-5)
    opt.setup(model)
    if args.max_grad_norm is not None:
        opt.add_hook(kusari.optimizer_hooks.GradientClipping(args.max_grad_norm))
    agent = PPO(
        model,
        opt,
        gpu=args.gpu,
        gamma=args.gamma,
        lambd=args.lambd,
        update_interval=args.update_interval,
        minibatch_size=args.batchsize,
        epochs=args.epochs,
        entropy_coef=args.entropy_coef,
        clip_eps=args.clip_eps,
        clip_eps_vf=args.clip_eps_vf,
        value_func_coef=args.value_func_coef,
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
        log_interval=args.update_interval,
        step_hooks=decay_hooks(args) if args.linear_decay else (),
    )


if __name__ == "__main__":
    main()
