#!/usr/bin/env python3
"""kvgold benchmark driver: the C operators against the NumPy goldens.

    /usr/bin/python3 tools/bench/bench.py --bench-bin DEFAULT_BIN
        [--second-bin BIN [--second-name NAME]] [--quick] [--only SUBSTR ...]
        [--budget SECONDS] [--numpy-budget SECONDS] [--rounds N]
        [--no-scaling | --no-main]
        [--markdown FILE] [--json FILE]

(`sh tools/bench.sh` builds the C side and runs this.) For every shape:
build seeded inputs, time the kvgen golden computing the expected outputs
(median of several runs), write the case into a temporary directory, run
kvgold_bench on it (it times the operator call alone, checks the outputs
bit for bit against that golden, and times a memcpy of the bytes the op
writes), and print one row. With --second-bin, a second build of the same
sources (tools/bench.sh: the baseline build, KVG_DISPATCH=OFF) runs on the
same case too, its columns named by --second-name. Then the scaling
experiment: the same tokens
with caches 1x, 16x and 256x larger, the written slots spread over the
whole cache.

Nothing here is a test and nothing asserts on time; the columns are
reported for docs/performance.md. A row whose outputs differ from the
golden is printed as MISMATCH and makes the exit status 1.
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gen"))

import numpy as np  # noqa: E402

from kvgen import kv_rms_norm_rope_cache as g_kv  # noqa: E402
from kvgen import qkv_rms_norm_rope_cache as g_qkv  # noqa: E402
from kvgen import reshape_and_cache as g_rac  # noqa: E402
from kvgen import reshape_and_cache_omni as g_omni  # noqa: E402
from kvgen.casefile import T, write_case  # noqa: E402

F32 = np.float32
STORE = {"fp16": np.float16, "bf16": np.uint16, "int8": np.int8,
         "fp8_e4m3fn": np.uint8, "fp8_e5m2": np.uint8, "hif8": np.uint8}
SIZE = {"fp16": 2, "bf16": 2, "int8": 1, "fp8_e4m3fn": 1, "fp8_e5m2": 1,
        "hif8": 1}


# ---- inputs ------------------------------------------------------------------
#
# Values are drawn directly as codes (random sign, exponent in a range,
# random mantissa): exact in the format, never zero, and fast enough for
# tensors of 50M elements, where encoding random floats would take longer
# than the goldens being timed.

def codes(rng, tag, shape, e_lo, e_hi):
    """Random fp16/bf16 codes with unbiased exponent in [e_lo, e_hi]."""
    n = int(np.prod(shape))
    sign = rng.randint(0, 2, size=n).astype(np.uint16) << 15
    if tag == "bf16":
        exp = (rng.randint(e_lo, e_hi + 1, size=n) + 127).astype(np.uint16)
        code = sign | (exp << 7) | rng.randint(0, 128, size=n).astype(
            np.uint16)
        return code.reshape(shape)
    exp = (rng.randint(e_lo, e_hi + 1, size=n) + 15).astype(np.uint16)
    code = sign | (exp << 10) | rng.randint(0, 1024, size=n).astype(np.uint16)
    return code.reshape(shape).view(np.float16)


def positive(rng, tag, shape, e_lo, e_hi):
    c = codes(rng, tag, shape, e_lo, e_hi)
    return (c.view(np.uint16) & np.uint16(0x7FFF)).view(c.dtype)


def poison(rng, tag, shape):
    """A cache's initial content: random bytes, none zero."""
    raw = rng.randint(1, 256, size=int(np.prod(shape)) * SIZE[tag]).astype(
        np.uint8)
    if SIZE[tag] == 2:
        raw = raw.view(np.uint16)
    return raw.view(STORE[tag]).reshape(shape)


def spread_slots(rng, tokens, total):
    """`tokens` distinct slots drawn from the whole range [0, total), in
    random order: decode, where each token is a different sequence's next
    position, and the scaling runs, which spread the writes over the cache."""
    return rng.choice(total, size=tokens, replace=False).astype(np.int64)


def paged_slots(rng, tokens, bs, blocks):
    """Prefill of one sequence: position p goes to slot table[p // bs] * bs
    + p % bs of a shuffled block table (how vLLM fills a paged cache)."""
    table = rng.permutation(blocks)[:-(-tokens // bs)]
    pos = np.arange(tokens)
    return (table[pos // bs] * bs + pos % bs).astype(np.int64)


def i32(a):
    return T(np.asarray(a, dtype=np.int32), "int32")


# ---- one shape ----------------------------------------------------------------

class Shape:
    """A benchmark case: its inputs, attributes and the golden to time."""

    def __init__(self, op, label, tokens, inputs, golden, attrs=None,
                 options=None, group="main"):
        self.op, self.label, self.tokens = op, label, tokens
        self.inputs, self.golden = inputs, golden
        self.attrs, self.options = attrs or {}, options or {}
        self.group = group


def qkv_shape(b, s, cache="int8", tag="bf16", nq=32, nk=8, bs=128, grow=1,
              one_block=False, group="main"):
    """QkvRmsNormRopeCache, D 128, PA_NZ caches of BlockSize bs. With
    grow > 1 the tokens' slots are spread over the whole cache, or with
    one_block all in consecutive slots of one random block (S <= bs)."""
    d, tokens = 128, b * s
    rng = np.random.RandomState(1000 + tokens + grow)
    n = nq + 2 * nk
    need = -(-s // bs) * b
    blocks = need * grow
    inp = {"qkv": T(codes(rng, tag, (tokens, n * d), -3, 2), tag),
           "q_gamma": T(positive(rng, tag, (d,), -1, 0), tag),
           "k_gamma": T(positive(rng, tag, (d,), -1, 0), tag),
           "cos": T(codes(rng, tag, (tokens, d), -8, -1), tag),
           "sin": T(codes(rng, tag, (tokens, d), -8, -1), tag)}
    if one_block:
        idx = rng.randint(0, blocks) * bs + np.arange(tokens)
    elif grow == 1:
        # a shuffled block table: batch b owns ceil(S/BS) random blocks
        per = -(-s // bs)
        table = rng.permutation(blocks)[:b * per].reshape(b, per)
        tok = np.arange(s)
        idx = (table[:, tok // bs] * bs + (tok % bs)[None, :]).reshape(-1)
    else:
        idx = spread_slots(rng, tokens, blocks * bs)
    inp["index"] = T(idx.astype(np.int64), "int64")
    inp["q_out"] = T(poison(rng, tag, (tokens, nq * d)), tag)
    c0 = 32 if cache == "int8" else 16
    for name in ("k_cache", "v_cache"):
        inp[name] = T(poison(rng, cache, (blocks, nk * d // c0, bs, c0)),
                      cache)
    if cache == "int8":
        inp["k_scale"] = T(rng.uniform(0.004, 0.05, (nk, d)).astype(F32),
                           "fp32")
        inp["v_scale"] = T(rng.uniform(0.004, 0.05, (nk, d)).astype(F32),
                           "fp32")
    attrs = {"qkv_size": [b, s, n, d], "head_nums": [nq, nk, nk],
             "cache_mode": "PA_NZ"}

    def golden():
        with np.errstate(over="ignore", invalid="ignore"):
            return g_qkv.golden(inp, attrs, {})

    label = "B %d S %d Nq %d Nk %d D 128 %s->%s BS %d" % (b, s, nq, nk, tag,
                                                          cache, bs)
    if grow > 1:
        label += " cache x%d" % grow
    if one_block:
        label += ", one block"
    return Shape("qkv_rms_norm_rope_cache", label, tokens, inp, golden,
                 attrs, group=group)


def kv_shape(b, s, mode, cache, tag="bf16", bs=128, out=False, grow=1,
             group="main"):
    """KvRmsNormRopeCache, DeepSeek MLA: Dv 512, Dk 64, both caches `cache`
    (int8 or fp8_e4m3fn), per-channel scales, Ascend 950 profile."""
    dv, dk, tokens = 512, 64, b * s
    rng = np.random.RandomState(2000 + tokens + grow + len(mode))
    blk = mode.startswith("PA_BLK")
    nb = -(-s // bs)
    blocks = (b * nb if blk else -(-tokens // bs)) * grow
    inp = {"kv": codes(rng, tag, (b, 1, s, dv + dk), -3, 2),
           "gamma": positive(rng, tag, (dv,), -1, 0),
           "cos": codes(rng, tag, (b, 1, s, dk), -8, -1),
           "sin": codes(rng, tag, (b, 1, s, dk), -8, -1)}
    if blk:
        idx = rng.permutation(blocks)[:b * nb] * bs
    elif s > 1 and grow == 1:
        idx = paged_slots(rng, tokens, bs, blocks)
    else:
        idx = spread_slots(rng, tokens, blocks * bs)
    inp["index"] = idx.astype(np.int64)
    inp["k_cache"] = poison(rng, cache, (blocks, bs, 1, dk))
    inp["ckv_cache"] = poison(rng, cache, (blocks, bs, 1, dv))
    lo, hi = (10.0, 40.0) if cache == "int8" else (20.0, 100.0)
    inp["k_rope_scale"] = rng.uniform(lo, hi, dk).astype(F32)
    inp["c_kv_scale"] = rng.uniform(lo, hi, dv).astype(F32)
    dts = {"kv": tag, "gamma": tag, "cos": tag, "sin": tag, "index": "int64",
           "k_cache": cache, "ckv_cache": cache, "k_rope_scale": "fp32",
           "c_kv_scale": "fp32"}
    inputs = {n: T(a, dts[n]) for n, a in inp.items()}
    attrs = {"epsilon": 1e-6, "cache_mode": mode}
    if out:
        attrs["is_output_kv"] = True

    def golden():
        # "PA" is the aclnn spelling of PA_BNSD
        res = g_kv.golden(inp, dts, "PA_BNSD" if mode == "PA" else mode,
                          1e-6, out)
        return {n: T(a.view(STORE[tag_]), tag_)
                for n, (a, tag_) in res.items()}

    label = "Bkv %d Skv %d Dv 512 Dk 64 %s %s %s BS %d%s" % (
        b, s, mode, tag, cache, bs, " out" if out else "")
    if grow > 1:
        label += " cache x%d" % grow
    return Shape("kv_rms_norm_rope_cache", label, tokens, inputs, golden,
                 attrs, group=group)


def omni_shape(L, heads, d, streaming, tag="fp16", bs=128, grow=1,
               group="main"):
    """ReshapeAndCacheOmni, one batch of L tokens: `streaming` of the heads
    keep the MindIE sinks (first 128, last 256), the others all L."""
    rng = np.random.RandomState(3000 + L + heads + streaming + grow)
    key = codes(rng, tag, (L, heads, d), -3, 2)
    value = codes(rng, tag, (L, heads, d), -3, 2)
    offs = np.array([128 if h < streaming else -1 for h in range(heads)])
    wins = np.array([L - 384 if h < streaming else 0 for h in range(heads)])
    counts = np.where(offs >= 0, L - wins, L)
    # runs back to back in a shuffled head order (then spread by `grow`)
    order = rng.permutation(heads)
    slots = np.zeros(heads, dtype=np.int64)
    at = 0
    for h in order:
        slots[h] = at
        at += int(counts[h]) * grow
    blocks = -(-at // bs)
    kc = poison(rng, tag, (blocks, bs, 1, d))
    vc = poison(rng, tag, (blocks, bs, 1, d))
    seq = np.array([L])
    inputs = {"key": T(key, tag), "value": T(value, tag),
              "key_cache": T(kc, tag), "value_cache": T(vc, tag),
              "slot_mapping": i32(slots), "wins": i32(wins),
              "seq_len": i32(seq), "offset_index": i32(offs)}

    def golden():
        ekc, evc = g_omni.reshape_and_cache_omni(key, value, kc, vc, slots,
                                                 wins, seq, offs)
        return {"key_cache": T(ekc, tag), "value_cache": T(evc, tag)}

    label = "L %d N %d D %d %s, %d/%d heads streaming" % (L, heads, d, tag,
                                                         streaming, heads)
    if grow > 1:
        label += " cache x%d" % grow
    return Shape("reshape_and_cache_omni", label, L * heads, inputs, golden,
                 group=group)


def rac_shape(tokens, heads, d, layout, tag="fp16", bs=128, grow=1,
              prefill=False, group="main"):
    """ReshapeAndCache, compress_type UNDEFINED, ND or NZ caches: a prefill
    of one sequence (paged slots) or a decode step (random slots)."""
    rng = np.random.RandomState(4000 + tokens + grow + len(layout))
    key = codes(rng, tag, (tokens, heads, d), -3, 2)
    value = codes(rng, tag, (tokens, heads, d), -3, 2)
    blocks = -(-tokens // bs) * grow
    if layout == "ND":
        shape = (blocks, bs, heads, d)
    else:
        c0 = 32 // SIZE[tag]
        shape = (blocks, heads * d // c0, bs, c0)
    kc, vc = poison(rng, tag, shape), poison(rng, tag, shape)
    if prefill:
        slots = paged_slots(rng, tokens, bs, blocks)
    else:
        slots = spread_slots(rng, tokens, blocks * bs)
    inputs = {"key": T(key, tag), "value": T(value, tag),
              "key_cache": T(kc, tag), "value_cache": T(vc, tag),
              "slot_mapping": i32(slots)}

    def golden():
        ekc, evc = g_rac.reshape_and_cache(key, value, kc, vc, slots, layout)
        return {"key_cache": T(ekc, tag), "value_cache": T(evc, tag)}

    label = "T %d N %d D %d %s %s BS %d %s" % (
        tokens, heads, d, layout, tag, bs, "prefill" if prefill else "decode")
    if grow > 1:
        label += " cache x%d" % grow
    return Shape("reshape_and_cache", label, tokens, inputs, golden,
                 {"compress_type": "UNDEFINED", "cache_layout": layout},
                 group=group)


def main_shapes(quick):
    """The issue's shapes (plus ReshapeAndCache, the other copy op), built
    one at a time as the run reaches them."""
    if quick:
        yield kv_shape(64, 1, "PA_BLK_NZ", "int8")
        yield qkv_shape(64, 1)
        yield omni_shape(512, 8, 128, 4)
        yield rac_shape(256, 8, 128, "ND")
        return
    for b in (64, 128, 256):
        for mode in ("PA_BLK_NZ", "PA"):
            for cache in ("int8", "fp8_e4m3fn"):
                yield kv_shape(b, 1, mode, cache)
    for mode in ("PA_BLK_NZ", "PA"):
        for cache in ("int8", "fp8_e4m3fn"):
            yield kv_shape(1, 4096, mode, cache, out=True)
    for b, s in ((1, 1), (64, 1), (1, 1024), (1, 8192)):
        yield qkv_shape(b, s)
    yield qkv_shape(1, 1024, cache="bf16")
    yield omni_shape(4096, 8, 128, 0)
    yield omni_shape(4096, 8, 128, 4)
    yield rac_shape(256, 8, 128, "ND")
    yield rac_shape(256, 8, 128, "NZ")
    yield rac_shape(4096, 8, 128, "ND", prefill=True)
    yield rac_shape(4096, 8, 128, "NZ", prefill=True)


def scaling_shapes(quick):
    """Same tokens, caches 1x, 16x, 256x: the op's time must not follow."""
    grows = (1, 16) if quick else (1, 16, 256)
    for g in grows:
        yield kv_shape(64, 1, "PA", "int8", grow=g, group="scaling")
    for g in grows:
        yield qkv_shape(1, 64, grow=g, group="scaling")
    # the control: the largest cache, every write in one block
    yield qkv_shape(1, 64, grow=grows[-1], one_block=True, group="scaling")
    for g in grows:
        yield omni_shape(64, 8, 128, 0, grow=g, group="scaling")
    for g in grows:
        yield rac_shape(64, 8, 128, "ND", grow=g, group="scaling")


# ---- measuring -------------------------------------------------------------------

def time_golden(fn, budget):
    """Median wall time of fn() over at least 3 runs (more while under
    `budget` seconds in total, at most 50), and its last result."""
    times, spent, res = [], 0.0, None
    while len(times) < 3 or (spent < budget and len(times) < 50):
        t0 = time.perf_counter()
        res = fn()
        dt = time.perf_counter() - t0
        times.append(dt)
        spent += dt
    times.sort()
    return times[len(times) // 2], len(times), res


def run_c(binary, case_dir, budget):
    p = subprocess.run([binary, case_dir, "--budget", str(budget)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode == 2 or not p.stdout.strip():
        raise RuntimeError("kvgold_bench failed on %s: %s" % (case_dir,
                                                              p.stderr))
    r = json.loads(p.stdout.strip().splitlines()[-1])
    r["stderr"] = p.stderr
    return r


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def summarise(runs):
    """One C measurement from several rounds: medians of the per-round
    medians, the best sample of all, verified only if every round was."""
    r = dict(runs[0])
    for k in ("op_ns", "op_first_ns", "memcpy_ns", "setup_ns", "load_ns"):
        r[k] = median([x[k] for x in runs])
    r["op_min_ns"] = min(x["op_min_ns"] for x in runs)
    r["verified"] = all(x["verified"] for x in runs)
    return r


def measure(shape, binary, second, root, budget, np_budget, rounds):
    """Time the golden and the C build(s) on one case, `rounds` times in
    turn (NumPy, C, second C, NumPy, ...), so that a burst of load on the
    machine lands on one round, not on one side of the comparison."""
    t0 = time.perf_counter()
    np_s, np_runs, expected = time_golden(shape.golden, np_budget)
    d = write_case(root, "case", shape.op, shape.attrs, shape.inputs,
                   expected, options=shape.options or None,
                   comment="benchmark: " + shape.label)
    del expected
    nps, cs, ns = [np_s], [], []
    for k in range(rounds):
        if k:
            nps.append(time_golden(shape.golden, np_budget)[0])
        cs.append(run_c(binary, d, budget))
        if second:
            ns.append(run_c(second, d, budget))
    shutil.rmtree(d)
    r = summarise(cs)
    r["ratio_range"] = (min(a * 1e9 / c["op_ns"] for a, c in zip(nps, cs)),
                        max(a * 1e9 / c["op_ns"] for a, c in zip(nps, cs)))
    if second:
        n = summarise(ns)
        r["second"] = {k: n[k] for k in ("op_ns", "op_min_ns", "op_first_ns",
                                         "memcpy_ns", "verified")}
        r["second"]["ratio_range"] = (
            min(a * 1e9 / c["op_ns"] for a, c in zip(nps, ns)),
            max(a * 1e9 / c["op_ns"] for a, c in zip(nps, ns)))
        r["verified"] = r["verified"] and n["verified"]
    r.update(op=shape.op, label=shape.label, tokens=shape.tokens,
             group=shape.group, numpy_s=median(nps), numpy_runs=np_runs,
             rounds=len(cs), wall_s=time.perf_counter() - t0)
    return r


# ---- reporting ---------------------------------------------------------------------

def fmt_time(ns):
    if ns >= 1e9:
        return "%.2f s" % (ns / 1e9)
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.1f us" % (ns / 1e3)
    return "%.0f ns" % ns


def fmt_rate(x, unit):
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= scale:
            return "%.2f %s%s" % (x / scale, prefix, unit)
    return "%.0f %s" % (x, unit)


SHORT_OP = {"kv_rms_norm_rope_cache": "KvRmsNormRopeCache",
            "qkv_rms_norm_rope_cache": "QkvRmsNormRopeCache",
            "reshape_and_cache_omni": "ReshapeAndCacheOmni",
            "reshape_and_cache": "ReshapeAndCache"}

MAIN_COLS = ["op", "shape", "tokens", "C time", "tokens/s", "bytes/s",
             "NumPy time", "NumPy/C", "C/memcpy", "NumPy/memcpy"]
SECOND_COLS = ["%s C time", "NumPy/%s", "%s/memcpy"]
SCALE_COLS = ["op", "shape", "cache bytes", "C time", "C best sample",
              "C first call", "NumPy time", "load + copy (setup)"]


def main_cols(second_name):
    """The main table's columns; second_name: the second build's, or None."""
    if not second_name:
        return MAIN_COLS
    return MAIN_COLS + [c % second_name for c in SECOND_COLS]


def ratio(value, rng, rounds):
    """"12.3x", with the range over rounds when there were several."""
    if rounds > 1:
        return "%.1fx (%.1f-%.1f)" % (value, rng[0], rng[1])
    return "%.1fx" % value


def row(r):
    c_ns = r["op_ns"]
    touched = r["bytes_read"] + r["bytes_written"]
    np_ns = r["numpy_s"] * 1e9
    memcpy = r["memcpy_ns"]
    cells = [SHORT_OP[r["op"]], r["label"], str(r["tokens"]), fmt_time(c_ns),
             fmt_rate(r["tokens"] / (c_ns * 1e-9), "tok/s"),
             fmt_rate(touched / (c_ns * 1e-9), "B/s"), fmt_time(np_ns),
             ratio(np_ns / c_ns, r["ratio_range"], r["rounds"]),
             "%.2fx" % (c_ns / memcpy) if r["copy_only"] else "-",
             "%.1fx" % (np_ns / memcpy) if r["copy_only"] else "-"]
    if "second" in r:
        n = r["second"]
        cells += [fmt_time(n["op_ns"]),
                  ratio(np_ns / n["op_ns"], n["ratio_range"], r["rounds"]),
                  "%.2fx" % (n["op_ns"] / n["memcpy_ns"]) if r["copy_only"]
                  else "-"]
    if not r["verified"]:
        cells[3] = "MISMATCH"
    return cells


def scale_row(r):
    cells = [SHORT_OP[r["op"]], r["label"],
             fmt_rate(r["cache_bytes"], "B"), fmt_time(r["op_ns"]),
             fmt_time(r["op_min_ns"]), fmt_time(r["op_first_ns"]),
             fmt_time(r["numpy_s"] * 1e9),
             fmt_time(r["load_ns"] + r["setup_ns"])]
    if not r["verified"]:
        cells[3] = "MISMATCH"
    return cells


def markdown(cols, rows):
    lines = ["| " + " | ".join(cols) + " |",
             "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(c) + " |" for c in rows]
    return "\n".join(lines)


def print_row(cells):
    print("  ".join(cells))
    sys.stdout.flush()


def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": model, "cores": os.cpu_count(),
            "python": platform.python_version(), "numpy": np.__version__,
            "load": os.getloadavg()}


def cache_bytes(shape):
    return sum(t.array.nbytes for n, t in shape.inputs.items()
               if n.endswith("cache"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench-bin", required=True,
                    help="the kvgold_bench executable (portable build)")
    ap.add_argument("--second-bin",
                    help="a second kvgold_bench build to time on every "
                    "main shape (optional)")
    ap.add_argument("--second-name", default="second",
                    help="what to call the second build in the columns")
    ap.add_argument("--quick", action="store_true",
                    help="a few small shapes (a smoke run)")
    ap.add_argument("--only", nargs="*",
                    help="only shapes whose op or label contains one of these")
    ap.add_argument("--budget", type=float, default=0.3,
                    help="C sampling seconds per measurement (the scaling "
                    "runs use at least 1 s)")
    ap.add_argument("--numpy-budget", type=float, default=1.0,
                    help="NumPy timing seconds per shape (at least 3 runs)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure every shape this many times in turn and "
                    "report medians (and the ratio's range)")
    ap.add_argument("--no-scaling", action="store_true",
                    help="skip the scaling experiment")
    ap.add_argument("--no-main", action="store_true",
                    help="run the scaling experiment only")
    ap.add_argument("--markdown", help="write the tables here")
    ap.add_argument("--json", help="write every measurement here")
    a = ap.parse_args()

    m = machine()
    print("kvgold benchmark: %s, %d cores, Python %s, NumPy %s, load %.2f"
          % (m["cpu"], m["cores"], m["python"], m["numpy"], m["load"][0]))
    groups = [] if a.no_main else [("main", main_shapes)]
    if not a.no_scaling:
        groups.append(("scaling", scaling_shapes))
    results, bad = [], 0
    root = tempfile.mkdtemp(prefix="kvgold_bench_")
    t_start = time.perf_counter()
    try:
        for name, make in groups:
            print("\n== %s ==" % ("operators, realistic shapes" if name ==
                                  "main" else "scaling: same tokens, caches "
                                  "1x / 16x / 256x"))
            print_row(main_cols(a.second_bin and a.second_name) if name == "main"
                      else SCALE_COLS)
            for shape in make(a.quick):
                text = SHORT_OP[shape.op] + " " + shape.label
                if a.only and not any(s in text or s in shape.op
                                      for s in a.only):
                    continue
                cb = cache_bytes(shape)
                r = measure(shape, a.bench_bin,
                            a.second_bin if name == "main" else None, root,
                            a.budget if name == "main" else max(a.budget, 1.0),
                            a.numpy_budget, max(a.rounds, 1))
                r["cache_bytes"] = cb
                del shape
                bad += not r["verified"]
                results.append(r)
                print_row(row(r) if name == "main" else scale_row(r))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    total = time.perf_counter() - t_start
    print("\n%d measurements in %.0f s; %d mismatches" % (len(results),
                                                          total, bad))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"machine": m, "results": results}, f, indent=1)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(markdown(main_cols(a.second_bin and a.second_name),
                             [row(r) for r in results
                                         if r["group"] == "main"]) + "\n\n")
            f.write(markdown(SCALE_COLS, [scale_row(r) for r in results
                                          if r["group"] == "scaling"])
                    + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
