"""The Atari learning-curve plot (packages/rl/benchmarks/plot_pong_curve.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def plot_mod():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import plot_pong_curve

        yield plot_pong_curve
    finally:
        sys.path.remove(str(BENCHMARKS))


LOG = """\
INFO:kusari_rl.experiments.train_agent:outdir:r step:900 episode:0 R:-21.0
INFO:kusari_rl.experiments.train_agent:statistics:[('average_q', 0.1)]
INFO:kusari_rl.experiments.train_agent:outdir:r step:1800 episode:1 R:-19.0
something else
INFO:kusari_rl.experiments.train_agent:outdir:r step:2500 episode:2 R:-17.0
"""

SCORES = "steps\tepisodes\telapsed\tmean\tmedian\n2000\t2\t10.0\t-20.5\t-20.5\n"


def test_reads_episodes_and_scores(plot_mod, tmp_path):
    log = tmp_path / "train.log"
    log.write_text(LOG)
    steps, returns = plot_mod.read_episodes(log)
    np.testing.assert_array_equal(steps, [900, 1800, 2500])
    np.testing.assert_array_equal(returns, [-21.0, -19.0, -17.0])
    scores = tmp_path / "scores.txt"
    scores.write_text(SCORES)
    eval_steps, means = plot_mod.read_scores(scores)
    assert eval_steps.tolist() == [2000] and means.tolist() == [-20.5]


def test_moving_average_uses_up_to_window_values(plot_mod):
    got = plot_mod.moving_average(np.array([1.0, 3.0, 5.0, 7.0]), 2)
    np.testing.assert_allclose(got, [1.0, 2.0, 4.0, 6.0])
    with pytest.raises(ValueError, match="moving_average.*window"):
        plot_mod.moving_average(np.ones(3), 0)


def test_plot_writes_a_png_and_summarises_in_frames(plot_mod, tmp_path):
    log = tmp_path / "train.log"
    log.write_text(LOG)
    scores = tmp_path / "scores.txt"
    scores.write_text(SCORES)
    out = tmp_path / "curve.png"
    summary = plot_mod.plot(log, out, scores, window=2)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # 2500 agent steps are 10000 emulator frames (frame skip 4).
    assert "3 episodes, 10000 frames" in summary
    assert "last 2 mean -18.0" in summary and "best -17" in summary


def test_a_log_without_episodes_is_named_in_the_error(plot_mod, tmp_path):
    log = tmp_path / "empty.log"
    log.write_text("nothing here\n")
    with pytest.raises(ValueError, match="read_episodes.*empty.log"):
        plot_mod.read_episodes(log)
