#!/usr/bin/env python
"""Project ResNet-50 data-parallel training speed from 8 to 1,024 processes.

The α-β model of docs/mn-scaling.md: a step is the local forward/backward
(``T_c``, independent of the number of processes ``p``) plus a hierarchical
ring Allreduce of the gradients (reduce inside a node, ring over the nodes,
broadcast inside the node), optionally hidden behind the next step's
compute by double buffering. Prints a table of epochs/hour and writes a
plot next to ChainerMN's published ImageNet result (90 epochs in 15 minutes
on 1,024 GPUs).

    python scaling_model.py [--compute-s 0.16] [--out scaling.png]
    python scaling_model.py --measure-cpu   # T_c of a kusari CPU step here
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time

IMAGENET_TRAIN_IMAGES = 1_281_167
RESNET50_PARAMS = 25_557_032
# Akiba, Suzuki, Fukuda (2017), "Extremely Large Minibatch SGD: Training
# ResNet-50 on ImageNet in 15 Minutes": ChainerMN, 1,024 P100 GPUs, 90 epochs.
CHAINERMN_POINT = (1024, 90 / 0.25)


@dataclasses.dataclass(frozen=True)
class Cluster:
    """What the model needs to know about the machines.

    Attributes:
        name: Label for tables and the plot.
        per_node: Processes (GPUs) per node.
        inter_bandwidth: Bytes/s one node can send over the network.
        intra_bandwidth: Bytes/s between processes of one node.
        latency: Seconds per message (α), software included.
    """

    name: str
    per_node: int
    inter_bandwidth: float
    intra_bandwidth: float
    latency: float


def ring_allreduce_s(nbytes: float, p: int, bandwidth: float, latency: float) -> float:
    """Time of a ring Allreduce of ``nbytes`` over ``p`` peers (α-β model).

    Reduce-scatter then allgather: ``2 (p - 1)`` messages of ``nbytes / p``
    from every peer.
    """
    if p <= 1:
        return 0.0
    return 2 * (p - 1) * latency + 2 * (p - 1) / p * nbytes / bandwidth


def allreduce_s(nbytes: float, p: int, cluster: Cluster) -> float:
    """Hierarchical Allreduce: inside the node, over the nodes, back inside."""
    k = min(p, cluster.per_node)
    nodes = max(1, p // k)
    # Reduce to one process per node and broadcast back at the end: together
    # about the bytes of one ring Allreduce among the node's k processes.
    inside = ring_allreduce_s(nbytes, k, cluster.intra_bandwidth, cluster.latency)
    across = ring_allreduce_s(nbytes, nodes, cluster.inter_bandwidth, cluster.latency)
    return inside + across


def epochs_per_hour(
    p: int,
    batch_per_process: int,
    compute_s: float,
    nbytes: float,
    cluster: Cluster,
    overlap: bool = False,
) -> float:
    """Epochs of ImageNet per hour on ``p`` processes."""
    comm = allreduce_s(nbytes, p, cluster)
    step = max(compute_s, comm) if overlap else compute_s + comm
    images_per_s = p * batch_per_process / step
    return images_per_s * 3600 / IMAGENET_TRAIN_IMAGES


# ChainerMN's cluster in the paper: 4 P100 per node, InfiniBand FDR
# (56 Gb/s); PCIe within the node. Latency: a few microseconds per hop,
# plus software, taken as 10 us.
FDR = Cluster("InfiniBand FDR 56 Gb/s, 4 GPUs/node", 4, 7.0e9, 10.0e9, 10e-6)
ETH25 = Cluster("Ethernet 25 Gb/s, 8 GPUs/node", 8, 3.1e9, 10.0e9, 30e-6)
HDR = Cluster("InfiniBand HDR 200 Gb/s, 8 GPUs/node", 8, 25.0e9, 100.0e9, 5e-6)


def measure_cpu_step() -> float:
    """Seconds per kusari ResNet-50 training step (batch 16, 224²) here."""
    bench = os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "core", "benchmarks"
    )
    sys.path.insert(0, os.path.abspath(bench))
    import _workloads_kusari  # type: ignore[import-not-found]

    step = _workloads_kusari.WORKLOADS["resnet50"](False)
    step()  # first call: allocation and lazy initialisation
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - start)
    return best


def projection(
    compute_s: float, batch: int, half: bool, clusters: list[Cluster]
) -> dict[str, list[tuple[int, float]]]:
    """Epochs/hour for p = 8 ... 1,024 on each cluster, and the ideal."""
    nbytes = RESNET50_PARAMS * (2 if half else 4)
    ps = [8 * 2**i for i in range(8)]
    rows = {
        "ideal (no communication)": [
            (p, p * batch / compute_s * 3600 / IMAGENET_TRAIN_IMAGES) for p in ps
        ]
    }
    for cluster in clusters:
        rows[cluster.name] = [
            (p, epochs_per_hour(p, batch, compute_s, nbytes, cluster)) for p in ps
        ]
        rows[cluster.name + ", double buffering"] = [
            (p, epochs_per_hour(p, batch, compute_s, nbytes, cluster, overlap=True))
            for p in ps
        ]
    return rows


def plot(rows: dict[str, list[tuple[int, float]]], out: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    for name, points in rows.items():
        if "double buffering" in name:
            continue  # equal to the ideal line whenever T_c > the Allreduce
        style = "k--" if name.startswith("ideal") else "-o"
        ax.plot([p for p, _ in points], [e for _, e in points], style, ms=3, label=name)
    ax.plot(*CHAINERMN_POINT, "r*", ms=14, label="ChainerMN, published (1,024 P100)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("GPUs (processes)")
    ax.set_ylabel("ImageNet epochs / hour")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    tmp = out + ".tmp.png"
    fig.savefig(tmp)
    os.replace(tmp, out)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--compute-s",
        type=float,
        default=0.16,
        help="forward+backward seconds per step on one GPU (default: a P100 at "
        "batch 32, about 200 images/s, fp32)",
    )
    parser.add_argument("--batch", type=int, default=32, help="images per process")
    parser.add_argument("--fp32-wire", action="store_true", help="float32 gradients")
    parser.add_argument("--measure-cpu", action="store_true")
    parser.add_argument("--out", default=None, help="write the plot here (PNG)")
    args = parser.parse_args(argv)
    if args.measure_cpu:
        seconds = measure_cpu_step()
        print(f"kusari ResNet-50 step, batch 16, 224x224, this CPU: {seconds:.2f} s")
        return
    half = not args.fp32_wire
    rows = projection(args.compute_s, args.batch, half, [ETH25, FDR, HDR])
    wire = "float16" if half else "float32"
    print(
        f"ResNet-50, batch {args.batch}/GPU, T_c {args.compute_s * 1e3:.0f} ms, "
        f"{wire} gradients: ImageNet epochs/hour"
    )
    names = list(rows)
    print("| GPUs | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for i, (p, _) in enumerate(rows[names[0]]):
        print(f"| {p} | " + " | ".join(f"{rows[n][i][1]:.0f}" for n in names) + " |")
    p, e = CHAINERMN_POINT
    print(f"ChainerMN published: {e:.0f} epochs/hour on {p} GPUs")
    if args.out:
        plot(rows, args.out, f"ResNet-50 data parallel, model ({wire} gradients)")
        print("plot:", args.out)


if __name__ == "__main__":
    main()
