"""kvgold.run is safe to call from several threads at once: every vector
case runs in a pool of 4 threads, 3 times each in an interleaved order, and
every result (each output's bytes, or the error's status, tensor and
message) equals the single-threaded run's. The C call runs without the GIL
(ctypes releases it), so the library really runs concurrently; the
binding's per-thread workspace and shared call-plan caches are exercised
as a thread pool or pytest-xdist would."""
import concurrent.futures
import random

import numpy as np

import kvgold
from conftest import case_dirs, case_id

THREADS = 4
REPS = 3


def outcome(c):
    """What one run of case c gives: {name: bytes} or the error's fields."""
    try:
        out = kvgold.run(c.op, c.inputs, c.attrs, c.options)
    except kvgold.Error as e:
        return ("error", e.status, e.tensor, str(e))
    return ("ok", {n: (t.dtype, t.shape, np.asarray(t).tobytes())
                   for n, t in out.items()})


def test_every_case_from_a_thread_pool():
    cases = [kvgold.load_case(p) for p in case_dirs()]
    assert len(cases) > 200  # a wrong KVG_VECTORS_DIR must not pass
    alone = [outcome(c) for c in cases]
    assert sum(a[0] == "ok" for a in alone) > 100
    jobs = [i for i in range(len(cases)) for _ in range(REPS)]
    random.Random(23).shuffle(jobs)
    with concurrent.futures.ThreadPoolExecutor(THREADS) as pool:
        got = list(pool.map(lambda i: outcome(cases[i]), jobs))
    bad = [case_id(case_dirs()[i]) for i, g in zip(jobs, got)
           if g != alone[i]]
    assert not bad, "differ from the single-threaded run: %s" % bad[:10]
