"""tools/bench/bench.py's results table (build/bench-out/results.md): the
C/memcpy cell of a copy shows the paired ratio tools/bench/targets.py
judges, with the ratio of the medians beside it; a computing op's shows
the ratio of the medians alone. Nothing here runs a benchmark."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "tools", "bench", "bench.py")


def load_bench():
    spec = importlib.util.spec_from_file_location("kvg_bench", BENCH)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(BENCH))
    spec.loader.exec_module(mod)
    return mod


def record(bench, copy_only, paired=None):
    op = sorted(bench.SHORT_OP)[0]  # any operator with shapes: the cell
    r = {"op": op, "label": "T 4", "tokens": 4,  # does not depend on it
         "op_ns": 1500.0, "memcpy_ns": 1000.0, "bytes_read": 64,
         "bytes_written": 4096, "numpy_s": 3e-6, "copy_only": copy_only,
         "verified": True, "ratio_range": (2.0, 2.0), "rounds": 1,
         "memcpy_places_ns": 1200.0}
    if paired is not None:
        r["memcpy_paired_ratio"] = paired
    return r


def memcpy_cell(bench, r):
    return bench.row(r)[bench.MAIN_COLS.index("C/memcpy")]


def test_a_copy_shows_the_judged_paired_ratio_first():
    bench = load_bench()
    cell = memcpy_cell(bench, record(bench, True, paired=1.23))
    assert cell == "1.23x paired (medians 1.50x)"


def test_without_pairs_the_ratio_of_the_medians():
    bench = load_bench()
    assert memcpy_cell(bench, record(bench, True)) == "1.50x"
    # a computing op is not judged against memcpy: no pairs shown
    assert memcpy_cell(bench, record(bench, False, paired=1.23)) == "1.50x"
