"""A lazily initialized link that got its weights on one rank only.

The last rank runs a forward pass before the first update, the others do
not: that rank alone sees its parameter set change. Deciding alone, it
broadcast while the others averaged, and the job hung in mismatched
collectives. Every rank must now raise the same error; after all ranks ran
the forward pass, an update synchronizes the weights. Prints one line per
rank and case.
"""

import time

import numpy as np

import kusari
import kusari.links as L
import kusari_mn

kusari_mn.global_except_hook.remove_hook()  # report, don't abort
comm = kusari_mn.create_communicator("flat")
r, n, last = comm.rank, comm.size, comm.size - 1

for double_buffering in (False, True):
    case = "double" if double_buffering else "plain"
    model = L.Linear(None, 2)
    opt = kusari_mn.create_multi_node_optimizer(
        kusari.optimizers.SGD(lr=0.1), comm, double_buffering=double_buffering
    )
    opt.setup(model)
    x = np.full((1, 3), r + 1.0, np.float32)
    if r == last:
        model(x)  # only this rank's W gets its shape and values
    start = time.perf_counter()
    try:
        opt.update()
    except ValueError as e:
        print(f"{case} RANK {r} ERROR in {time.perf_counter() - start:.2f}s: {e}")
    else:
        print(f"{case} RANK {r} NO ERROR")
    model.cleargrads()
    kusari.functions.sum(model(x)).backward()  # every rank initialized now
    opt.update()  # parameters changed everywhere: rank 0's weights for all
    w = comm.allgather(model.W.array)
    assert all(np.array_equal(w[0], wi) for wi in w), w
    print(f"{case} synced RANK {r}", flush=True)
