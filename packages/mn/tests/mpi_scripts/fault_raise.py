"""Rank ``--rank`` raises at iteration ``--at`` while the others keep training.

Without the global except hook the other ranks would wait forever in the
next Allreduce; with it the whole job must end quickly with a non-zero code.
"""

import argparse
import os

import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
import kusari_mn

parser = argparse.ArgumentParser()
parser.add_argument("--rank", type=int, default=1)
parser.add_argument("--at", type=int, default=3)
parser.add_argument("--pid-dir", default=None)
args = parser.parse_args()

comm = kusari_mn.create_communicator("naive")
model = L.Linear(4, 2)
opt = kusari_mn.create_multi_node_optimizer(kusari.optimizers.SGD(), comm)
opt.setup(model)
x = np.ones((2, 4), np.float32)
if args.pid_dir:  # files, since output of an aborted job may be cut short
    with open(os.path.join(args.pid_dir, f"rank{comm.rank}.pid"), "w") as f:
        f.write(str(os.getpid()))
comm.mpi_comm.Barrier()
for iteration in range(1000):
    if comm.rank == args.rank and iteration == args.at:
        raise RuntimeError(f"deliberate failure at iteration {iteration}")
    opt.update(lambda: F.sum(model(x)))
print("FINISHED-WITHOUT-FAILURE", flush=True)
