"""Learning curve of an Atari run (the README's Pong curve) as a PNG.

Reads the training episodes from the log that ``train_agent_with_evaluation``
writes at INFO level (``... step:<t> episode:<i> R:<return>``, one line per
episode, captured from the example's stderr) and, when there is one, the
evaluations from the run's ``scores.txt``; plots the returns against
emulator frames (4 per agent step: the DeepMind wrappers skip 4 frames).

    python train_rainbow.py --env ALE/Pong-v5 ... 2> train.log
    python packages/rl/benchmarks/plot_pong_curve.py train.log \\
        --scores results/<run>/scores.txt --out packages/rl/benchmarks/pong_curve.png
"""

from __future__ import annotations

import argparse
import csv
import re
from pathlib import Path

import numpy as np

FRAMES_PER_STEP = 4
_EPISODE = re.compile(r"step:(\d+) episode:(\d+) R:(-?[\d.]+)")


def read_episodes(log_path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """(agent step at the end of each training episode, its return)."""
    steps, returns = [], []
    with open(log_path) as f:
        for line in f:
            m = _EPISODE.search(line)
            if m:
                steps.append(int(m.group(1)))
                returns.append(float(m.group(3)))
    if not steps:
        raise ValueError(
            f"read_episodes: no 'step:<t> episode:<i> R:<return>' lines in "
            f"{log_path}; expected the INFO log of train_agent_with_evaluation"
        )
    return np.asarray(steps), np.asarray(returns)


def read_scores(scores_path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """(agent step, mean evaluation return) of each row of ``scores.txt``."""
    steps, means = [], []
    with open(scores_path) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            steps.append(int(row["steps"]))
            means.append(float(row["mean"]))
    return np.asarray(steps), np.asarray(means)


def moving_average(values: np.ndarray, window: int) -> np.ndarray:
    """Mean of each value and up to ``window - 1`` before it."""
    if window < 1:
        raise ValueError(f"moving_average: window must be >= 1, got {window}")
    csum = np.cumsum(np.insert(values.astype(np.float64), 0, 0.0))
    idx = np.arange(1, len(values) + 1)
    lo = np.maximum(idx - window, 0)
    return (csum[idx] - csum[lo]) / (idx - lo)


def plot(
    log_path: str | Path,
    out: str | Path,
    scores_path: str | Path | None = None,
    title: str = "Rainbow on ALE/Pong-v5",
    window: int = 5,
) -> str:
    """Write the PNG and return a one-line summary of the run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps, returns = read_episodes(log_path)
    frames = steps * FRAMES_PER_STEP
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    ax.plot(frames, returns, ".", color="0.6", label="training episode")
    ax.plot(
        frames,
        moving_average(returns, window),
        "-",
        color="C0",
        label=f"mean of last {window} episodes",
    )
    if scores_path is not None and Path(scores_path).exists():
        eval_steps, eval_means = read_scores(scores_path)
        if len(eval_steps):
            ax.plot(
                eval_steps * FRAMES_PER_STEP,
                eval_means,
                "o-",
                color="C3",
                label="evaluation (greedy)",
            )
    ax.set_xlabel("emulator frames")
    ax.set_ylabel("episode return")
    ax.set_ylim(-21.5, 21.5)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    last = returns[-window:]
    return (
        f"{len(returns)} episodes, {int(frames[-1])} frames; "
        f"first episode {returns[0]:g}, last {len(last)} mean {last.mean():.1f}, "
        f"best {returns.max():g}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", help="the run's INFO log (stderr of the example)")
    parser.add_argument("--scores", default=None, help="the run's scores.txt")
    parser.add_argument("--out", default="pong_curve.png")
    parser.add_argument("--title", default="Rainbow on ALE/Pong-v5")
    parser.add_argument("--window", type=int, default=5)
    args = parser.parse_args(argv)
    print(plot(args.log, args.out, args.scores, args.title, args.window))


if __name__ == "__main__":
    main()
