"""Data-parallel training with per-rank snapshots that autoload on restart.

``--kill-at N`` SIGKILLs rank ``--kill-rank`` right after iteration N (in
the middle of an epoch). Rank 0 writes the final parameters to
``<out>/final.npz``; a run that was killed and restarted must end with the
same bytes as an uninterrupted one.
"""

import argparse
import os
import signal

import numpy as np

import kusari
import kusari.links as L
import kusari_mn
from kusari import training
from kusari.training import extensions

parser = argparse.ArgumentParser()
parser.add_argument("--out", required=True)
parser.add_argument("--kill-at", type=int, default=-1)
parser.add_argument("--kill-rank", type=int, default=1)
parser.add_argument("--epoch", type=int, default=3)
parser.add_argument(
    "--resume-with", choices=["snapshot", "checkpointer"], default="snapshot"
)
args = parser.parse_args()

comm = kusari_mn.create_communicator("naive")
rng = np.random.RandomState(0)
x = rng.randn(80, 5).astype(np.float32)
t = (x.sum(axis=1) > 0).astype(np.int32)
train = kusari.datasets.TupleDataset(x, t) if comm.rank == 0 else None
train = kusari_mn.scatter_dataset(train, comm, shuffle=True, seed=0)

np.random.seed(comm.rank)  # rank 0's weights win through bcast_data
model = L.Classifier(L.Linear(5, 2))
optimizer = kusari_mn.create_multi_node_optimizer(
    kusari.optimizers.MomentumSGD(lr=0.05), comm
)
optimizer.setup(model)
# No shuffling in the iterator: its order for the next epoch would come from
# the global random state, which a restart does not restore.
it = kusari.iterators.SerialIterator(train, 4, shuffle=False)
updater = training.StandardUpdater(it, optimizer)
trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)
if args.resume_with == "snapshot":
    snapshot = extensions.snapshot(
        filename="snapshot_iter_{.updater.iteration}", autoload=True
    )
    trainer.extend(
        kusari_mn.extensions.multi_node_snapshot(comm, snapshot, [0]),
        trigger=(4, "iteration"),
    )
else:
    checkpointer = kusari_mn.create_multi_node_checkpointer(
        "ckpt", comm, cp_interval=2, gc_interval=2
    )
    checkpointer.maybe_load(trainer, optimizer)
    trainer.extend(checkpointer, trigger=(4, "iteration"))
first_seen = []


@training.make_extension(trigger=(1, "iteration"))
def maybe_die(trainer):
    if not first_seen:
        first_seen.append(trainer.updater.iteration)
        print(f"START {comm.rank} iteration {trainer.updater.iteration}", flush=True)
    if trainer.updater.iteration == args.kill_at and comm.rank == args.kill_rank:
        os.kill(os.getpid(), signal.SIGKILL)


trainer.extend(maybe_die)
trainer.run()
if comm.rank == 0:
    kusari.serializers.save_npz(os.path.join(args.out, "final.npz"), model)
print(f"DONE {comm.rank} iteration {trainer.updater.iteration}", flush=True)
