"""NumPy references for the n_step_* tests (plain per-time-step loops)."""

import numpy as np


def sigmoid(x):
    return 0.5 * np.tanh(0.5 * x) + 0.5


def cell(mode, x, h, c, w, b):
    if mode == "lstm":
        i = sigmoid(x @ w[0].T + h @ w[4].T + b[0] + b[4])
        f = sigmoid(x @ w[1].T + h @ w[5].T + b[1] + b[5])
        a = np.tanh(x @ w[2].T + h @ w[6].T + b[2] + b[6])
        o = sigmoid(x @ w[3].T + h @ w[7].T + b[3] + b[7])
        c = f * c + i * a
        return o * np.tanh(c), c
    if mode == "gru":
        r = sigmoid(x @ w[0].T + h @ w[3].T + b[0] + b[3])
        z = sigmoid(x @ w[1].T + h @ w[4].T + b[1] + b[4])
        n = np.tanh(x @ w[2].T + b[2] + r * (h @ w[5].T + b[5]))
        return (1 - z) * n + z * h, None
    pre = x @ w[0].T + h @ w[1].T + b[0] + b[1]
    return (np.maximum(pre, 0) if mode == "rnn_relu" else np.tanh(pre)), None


def one_direction(mode, xs, h, c, w, b, reverse):
    h = h.copy()
    c = None if c is None else c.copy()
    ys = [None] * len(xs)
    steps = range(len(xs))
    for t in reversed(steps) if reverse else steps:
        n = len(xs[t])
        hn, cn = cell(mode, xs[t], h[:n], None if c is None else c[:n], w, b)
        h[:n] = hn
        if c is not None:
            c[:n] = cn
        ys[t] = hn
    return h, c, ys


def n_step(mode, n_layers, hx, cx, ws, bs, xs, bi):
    d = 2 if bi else 1
    hy, cy = [], []
    for layer in range(n_layers):
        outs = []
        for k in range(d):
            idx = layer * d + k
            h, c, ys = one_direction(
                mode,
                xs,
                hx[idx],
                None if cx is None else cx[idx],
                ws[idx],
                bs[idx],
                reverse=k == 1,
            )
            hy.append(h)
            cy.append(c)
            outs.append(ys)
        xs = outs[0] if d == 1 else [np.concatenate(p, axis=1) for p in zip(*outs)]
    return np.stack(hy), (None if cx is None else np.stack(cy)), xs


def flat_shapes(n_w, cell, n_layers, bi, in_size, hidden, batches):
    """Shapes of (hx[, cx], xs..., ws..., bs...) flattened for check_op."""
    d = 2 if bi else 1
    shapes = [(n_layers * d, batches[0], hidden)] * (2 if cell else 1)
    shapes += [(b, in_size) for b in batches]
    for layer in range(n_layers):
        for _ in range(d):
            w_in = in_size if layer == 0 else hidden * d
            shapes += [(hidden, w_in)] * (n_w // 2) + [(hidden, hidden)] * (n_w // 2)
    for _ in range(n_layers * d):
        shapes += [(hidden,)] * n_w
    return shapes


def unflatten(args, n_w, cell, n_layers, bi, n_steps):
    d = 2 if bi else 1
    hx = args[0]
    cx = args[1] if cell else None
    k = 2 if cell else 1
    xs = list(args[k : k + n_steps])
    rest = args[k + n_steps :]
    n = n_layers * d
    ws = [list(rest[j * n_w : (j + 1) * n_w]) for j in range(n)]
    bs = [list(rest[n * n_w + j * n_w : n * n_w + (j + 1) * n_w]) for j in range(n)]
    return hx, cx, xs, ws, bs
