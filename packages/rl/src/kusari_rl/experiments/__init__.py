"""Training loops, evaluation and run directories (``chainerrl.experiments``)."""

from kusari_rl.experiments.evaluator import (
    AsyncEvaluator,
    Evaluator,
    batch_run_evaluation_episodes,
    eval_performance,
    run_evaluation_episodes,
    save_agent,
)
from kusari_rl.experiments.hooks import LinearInterpolationHook, StepHook
from kusari_rl.experiments.prepare_output_dir import prepare_output_dir
from kusari_rl.experiments.snapshot import load_snapshot, save_snapshot
from kusari_rl.experiments.train_agent import train_agent, train_agent_with_evaluation
from kusari_rl.experiments.train_agent_async import train_agent_async
from kusari_rl.experiments.train_agent_batch import (
    train_agent_batch,
    train_agent_batch_with_evaluation,
)
from kusari_rl.experiments.vector import make_vector_env

__all__ = [
    "AsyncEvaluator",
    "Evaluator",
    "LinearInterpolationHook",
    "StepHook",
    "batch_run_evaluation_episodes",
    "eval_performance",
    "load_snapshot",
    "make_vector_env",
    "prepare_output_dir",
    "run_evaluation_episodes",
    "save_agent",
    "save_snapshot",
    "train_agent",
    "train_agent_async",
    "train_agent_batch",
    "train_agent_batch_with_evaluation",
    "train_agent_with_evaluation",
]
