"""Gradient layouts that differ between ranks: every rank errs, none hangs.

The last rank's bias gradient is None with ``zero_fill=False``, so only that
rank's layout changes. Before the fix, that rank gathered the layouts while
the others entered the gradient Allreduce, and the job hung. Checked for
``multi_node_mean_grad`` itself, twice in a row (the second time no rank's
layout changes locally, yet it still differs), for the double-buffering
optimizer, and then that a correct call works again. Prints one line per
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


def set_grads(model, drop):
    for p in model.params():
        p.grad = np.full(p.shape, r + 1.0, np.float32)
    if drop:
        model.b.grad = None


def attempt(case, fn):
    start = time.perf_counter()
    try:
        fn()
    except ValueError as e:
        seconds = time.perf_counter() - start
        print(f"{case} RANK {r} ERROR in {seconds:.2f}s: {e}", flush=True)
    else:
        print(f"{case} RANK {r} NO ERROR", flush=True)


model = L.Linear(3, 2)
set_grads(model, drop=False)
comm.multi_node_mean_grad(model, zero_fill=False)  # agreed layout, 2 arrays
for case in ("first", "again"):
    set_grads(model, drop=r == last)
    attempt(case, lambda: comm.multi_node_mean_grad(model, zero_fill=False))
set_grads(model, drop=False)
comm.multi_node_mean_grad(model, zero_fill=False)
assert np.allclose(model.W.grad, (n + 1) / 2), model.W.grad
print(f"recovered RANK {r} mean {float(model.W.grad[0, 0])}", flush=True)

model = L.Linear(3, 2)
opt = kusari_mn.create_multi_node_optimizer(
    kusari.optimizers.SGD(lr=0.1), comm, double_buffering=True, zero_fill=False
)
opt.setup(model)
for _ in range(2):
    set_grads(model, drop=False)
    opt.update()
set_grads(model, drop=r == last)
attempt("double_buffering", opt.update)
opt.wait()
print(f"done RANK {r}", flush=True)
