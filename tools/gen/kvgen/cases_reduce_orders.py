"""Sum-of-squares vectors for every RmsNorm reduction order.

The fused operators round their results to fp16/bf16, which hides most
last-bit differences of the sum; these vectors compare kvgold's C orders
with kvgen/arith.py's directly, in binary32. For each row length n (one
64-lane chunk or less, partial chunks, powers of two, DeepSeek's 512 and
576, and lengths past 128 chunks, where the 950 order folds its partials)
the rows hold values of widely varied magnitude, so that the orders differ.

  vectors/reduce_orders/n<NNNN>/x.npy            fp32 [rows, n]
  vectors/reduce_orders/n<NNNN>/sum_<order>.npy  fp32 [rows]

Read by tests/test_reduce_orders.c (these are not operator cases: there is
no case.json).
"""
import os

import numpy as np

from . import arith, npyio

NAME = "reduce_orders"
ORDERS = ("pairwise", "sequential", "double", "a2", "npu950")
LENGTHS = (1, 7, 63, 64, 65, 100, 128, 129, 200, 256, 300, 512, 576, 1000,
           8200)


def rows_for(n, rng):
    """Log-uniform magnitudes over 2^-8 .. 2^12 with random signs, and one
    row with a few large spikes among values near 1."""
    rows = 16 if n <= 1000 else 4
    x = np.ldexp(rng.uniform(1.0, 2.0, size=(rows, n)),
                 rng.randint(-8, 12, size=(rows, n)))
    x *= np.where(rng.randint(0, 2, size=x.shape) == 0, -1.0, 1.0)
    x[-1] = rng.uniform(0.5, 1.2, size=n)
    x[-1, rng.randint(0, n, size=max(1, n // 100))] = 4096.0
    return x.astype(np.float32)


def generate(root):
    rng = np.random.RandomState(20240917)
    for n in LENGTHS:
        d = os.path.join(root, "n%04d" % n)
        os.makedirs(d)
        x = rows_for(n, rng)
        npyio.save(os.path.join(d, "x.npy"), x)
        for order in ORDERS:
            npyio.save(os.path.join(d, "sum_%s.npy" % order),
                       arith.sum_squares(x, order).astype(np.float32))
