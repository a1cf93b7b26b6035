"""The α-β scaling model behind docs/mn-scaling.md's projection."""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

_PATH = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "scaling_model.py")


@pytest.fixture(scope="module")
def model():
    spec = importlib.util.spec_from_file_location("scaling_model", _PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["scaling_model"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    del sys.modules["scaling_model"]


def test_ring_allreduce_matches_the_formula(model):
    # 4 peers, 8 MB at 1 GB/s, 1 ms per message: 6 messages, 2 * 3/4 * 8 ms.
    assert model.ring_allreduce_s(8e6, 4, 1e9, 1e-3) == pytest.approx(0.006 + 0.012)
    assert model.ring_allreduce_s(8e6, 1, 1e9, 1e-3) == 0.0


def test_hierarchical_allreduce_adds_the_node_and_network_rings(model):
    c = model.Cluster(
        "c", per_node=4, inter_bandwidth=1e9, intra_bandwidth=1e10, latency=0.0
    )
    inside = model.ring_allreduce_s(1e8, 4, 1e10, 0.0)
    assert model.allreduce_s(1e8, 4, c) == pytest.approx(inside)
    assert model.allreduce_s(1e8, 32, c) == pytest.approx(
        inside + model.ring_allreduce_s(1e8, 8, 1e9, 0.0)
    )


def test_projection_is_below_ideal_and_grows_with_the_processes(model):
    rows = model.projection(0.16, 32, True, [model.ETH25, model.FDR])
    ideal = [e for _, e in rows["ideal (no communication)"]]
    for name, points in rows.items():
        speeds = [e for _, e in points]
        assert speeds == sorted(speeds), name
        assert all(s <= i * (1 + 1e-12) for s, i in zip(speeds, ideal)), name
    # Communication costs something without overlap on slow networks.
    assert rows[model.ETH25.name][-1][1] < 0.9 * ideal[-1]
    # One GPU's compute: 32 images per 0.16 s is 200 images/s.
    assert ideal[0] == pytest.approx(8 * 200 * 3600 / model.IMAGENET_TRAIN_IMAGES)


def test_plot_is_written(model, tmp_path):
    out = tmp_path / "scaling.png"
    model.main(["--out", str(out)])
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
