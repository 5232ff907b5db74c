#!/usr/bin/python3
"""Big dumps for the big-dump benchmark (tools/bench/bigdump.sh runs this).

    /usr/bin/python3 tools/bench/bigdump.py case --out CASE --input-bytes N
    /usr/bin/python3 tools/bench/bigdump.py dumps CASE GOOD BAD

`case` writes one DeepSeek-V3 decode step of KvRmsNormRopeCache whose input
files add up to about N bytes: Bkv 64 requests, Skv 1, Dv 512, Dk 64, bf16
kv, PA_BLK_NZ caches of 128-slot blocks, int8 K and CKV caches with
per-channel scales, profile a2a3 (Atlas A2/A3, where DeepSeek runs int8).
The two caches carry almost all the bytes; BlockNum is chosen so the
inputs reach N. Each request writes its token into its own page, the 64
pages spread at random over the whole cache, so no code path can get away
with reading a prefix of it.

The caches are streamed to disk in 64 MiB chunks of seeded random bytes
(PCG64, about 0.6 GiB/s), each chunk written to the input cache and to its
`expected_` twin, so memory stays at a few chunks whatever N is. The
expected caches are then patched with the 64 written rows, which the
independent NumPy golden (tools/gen/kvgen) computes on a small case holding
only the 64 touched pages: `kvgold check` compares the C oracle against
NumPy, not against itself.

`dumps` writes the two stand-in NPU dumps: GOOD is `kvgold run CASE --out
GOOD` (the golden's own outputs; bigdump.sh runs it and times it); if that
run could not finish (today's code runs out of memory at 4 GiB), GOOD is
filled from the case's NumPy expected caches instead, and a note says so.
BAD is GOOD with one plausible kernel bug: token BAD_TOKEN written one slot
too far (row 1 of its page instead of row 0), in both caches, its real slot
left with the stale initial bytes. `kvgold compare` must pass GOOD and fail
BAD.
"""
import argparse
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gen"))

import numpy as np  # noqa: E402

from kvgen import formats  # noqa: E402
from kvgen import kv_rms_norm_rope_cache as kvg  # noqa: E402
from kvgen import npyio  # noqa: E402

F32 = np.float32
BKV, SKV, DV, DK, BS = 64, 1, 512, 64, 128
C0 = 32                      # int8 caches: 32 one-byte elements per NZ chunk
CACHES = (("k_cache", DK), ("ckv_cache", DV))
CHUNK = 64 << 20             # bytes generated and written at a time
BAD_TOKEN = 17
EPS = 1e-6
DTYPES = {"kv": "bf16", "gamma": "bf16", "cos": "bf16", "sin": "bf16",
          "index": "int64", "k_cache": "int8", "ckv_cache": "int8",
          "k_rope_scale": "fp32", "c_kv_scale": "fp32"}


# ---- the small inputs ----------------------------------------------------------

def _bf16(rng, shape, scale, shift=0.0):
    return formats.encode("bf16", (rng.standard_normal(shape) * scale
                                   + shift).astype(F32))


def _rope_tables(rng):
    """cos/sin of random positions, as a model's rotary table gives them."""
    pos = rng.randint(0, 8192, size=(BKV, 1)).astype(np.float64)
    inv = 10000.0 ** (-np.arange(0, DK, 2, dtype=np.float64) / DK)
    ang = np.concatenate([pos * inv, pos * inv], axis=-1)
    shape = (BKV, 1, SKV, DK)
    return (formats.encode("bf16", np.cos(ang).astype(F32)).reshape(shape),
            formats.encode("bf16", np.sin(ang).astype(F32)).reshape(shape))


def small_inputs(rng, blocks):
    """Every input but the caches; index: one distinct page per request."""
    cos, sin = _rope_tables(rng)
    pages = rng.choice(blocks, size=BKV, replace=False)
    return {
        "kv": _bf16(rng, (BKV, 1, SKV, DV + DK), 1.0),
        "gamma": _bf16(rng, (DV,), 0.3, 1.0),
        "cos": cos, "sin": sin,
        # PA_BLK: the slot where the request's block starts
        "index": (pages * BS).astype(np.int64),
        # int8 codes spread over most of [-127, 127] for |value| up to ~3
        "k_rope_scale": rng.uniform(20.0, 40.0, size=DK).astype(F32),
        "c_kv_scale": rng.uniform(20.0, 60.0, size=DV).astype(F32),
    }


def npy_nbytes(arr):
    return len(npyio.npy_bytes(arr))


def blocks_for(input_bytes, small_bytes):
    """BlockNum whose two caches bring the inputs closest to input_bytes."""
    per_block = BS * (DK + DV)
    return max(BKV, int(round((input_bytes - small_bytes) / per_block)))


# ---- streaming the caches --------------------------------------------------------

def _header(f, shape):
    np.lib.format.write_array_header_1_0(
        f, {"descr": "|i1", "fortran_order": False, "shape": shape})


def stream_caches(case_dir, blocks, seed):
    """Write <cache>.npy and expected_<cache>.npy: the same random bytes."""
    gen = np.random.Generator(np.random.PCG64(seed))
    for name, d in CACHES:
        shape = (blocks, BS, 1, d)
        left = blocks * BS * d
        with open(os.path.join(case_dir, name + ".npy"), "wb") as fi, \
                open(os.path.join(case_dir, "expected_" + name + ".npy"),
                     "wb") as fe:
            _header(fi, shape)
            _header(fe, shape)
            while left:
                raw = gen.bytes(min(CHUNK, left))
                fi.write(raw)
                fe.write(raw)
                left -= len(raw)


def open_cache(path, mode="r"):
    """A memory map of an int8 NZ cache as [BlockNum, D/C0, BS, C0]."""
    mm = np.load(path, mmap_mode=mode)
    blocks, bs, _one, d = mm.shape
    return mm.reshape(blocks, d // C0, bs, C0)


# ---- the expected caches ---------------------------------------------------------

def patch_expected(case_dir, small):
    """Run the NumPy golden on the 64 touched pages only; write them back."""
    pages = small["index"] // BS
    inp = dict(small)
    inp["index"] = np.arange(BKV, dtype=np.int64) * BS   # page i of the copy
    for name, d in CACHES:
        nz = open_cache(os.path.join(case_dir, name + ".npy"))
        # page i in [BS, 1, D] order: the golden views it back as NZ
        inp[name] = np.ascontiguousarray(nz[pages]).reshape(BKV, BS, 1, d)
    gold = kvg.golden(inp, DTYPES, "PA_BLK_NZ", EPS, False, "pairwise")
    for name, d in CACHES:
        out = open_cache(os.path.join(case_dir, "expected_" + name + ".npy"),
                         "r+")
        out[pages] = gold[name][0].view(np.int8).reshape(BKV, d // C0, BS, C0)
        out.flush()
        del out


def write_case_json(case_dir, input_bytes):
    doc = {
        "op": "kv_rms_norm_rope_cache",
        "comment": "big dump: DeepSeek-V3 decode step, Bkv %d, "
                   "PA_BLK_NZ int8 caches, inputs ~%d bytes"
                   % (BKV, input_bytes),
        "attrs": {"epsilon": EPS, "cache_mode": "PA_BLK_NZ",
                  "is_output_kv": False},
        "options": {"profile": "a2a3"},
        "inputs": {n: {"file": n + ".npy", "dtype": DTYPES[n]}
                   for n in DTYPES},
        "expected": {n: {"file": "expected_" + n + ".npy", "dtype": "int8"}
                     for n, _d in CACHES},
    }
    with open(os.path.join(case_dir, "case.json"), "w") as f:
        f.write(json.dumps(doc, indent=2) + "\n")


def make_case(case_dir, input_bytes, seed):
    os.makedirs(case_dir, exist_ok=True)
    rng = np.random.RandomState(seed)
    probe = small_inputs(np.random.RandomState(seed), BKV)
    small_bytes = sum(npy_nbytes(a) for a in probe.values())
    blocks = blocks_for(input_bytes, small_bytes)
    small = small_inputs(rng, blocks)
    for name, arr in small.items():
        npyio.save(os.path.join(case_dir, name + ".npy"), arr)
    stream_caches(case_dir, blocks, seed)
    patch_expected(case_dir, small)
    write_case_json(case_dir, input_bytes)
    total = sum(os.path.getsize(os.path.join(case_dir, n + ".npy"))
                for n in DTYPES)
    print("bigdump: %s: BlockNum %d, input files %d bytes (%.3f GiB)"
          % (case_dir, blocks, total, total / 2.0 ** 30))


# ---- the NPU dumps ---------------------------------------------------------------

def fill_good(case_dir, good):
    """GOOD from the NumPy expected caches where `kvgold run` failed."""
    os.makedirs(good, exist_ok=True)
    for name, _d in CACHES:
        dst = os.path.join(good, name + ".npy")
        if not os.path.exists(dst):
            shutil.copyfile(os.path.join(case_dir, "expected_" + name
                                         + ".npy"), dst)
            print("bigdump: note: %s: kvgold run did not write it; copied "
                  "the NumPy expected cache" % dst)


def write_bad(case_dir, good, bad):
    """BAD: token BAD_TOKEN one slot too far, its own slot left stale."""
    os.makedirs(bad, exist_ok=True)
    page = int(np.load(os.path.join(case_dir, "index.npy"))[BAD_TOKEN]) // BS
    for name, _d in CACHES:
        dst = os.path.join(bad, name + ".npy")
        shutil.copyfile(os.path.join(good, name + ".npy"), dst)
        init = open_cache(os.path.join(case_dir, name + ".npy"))
        out = open_cache(dst, "r+")
        row = np.array(out[page, :, 0, :])
        out[page, :, 1, :] = row
        out[page, :, 0, :] = init[page, :, 0, :]
        out.flush()
        del out
    print("bigdump: %s: token %d written to slot 1 of page %d instead of "
          "slot 0" % (bad, BAD_TOKEN, page))


# ---- command line ----------------------------------------------------------------

def parse_bytes(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().replace("IB", "")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("case", help="write the case (inputs and expected)")
    c.add_argument("--out", required=True, help="the case directory")
    c.add_argument("--input-bytes", required=True, type=parse_bytes,
                   help="input file bytes to reach, e.g. 256M, 1G, 4G")
    c.add_argument("--seed", type=int, default=13)
    d = sub.add_parser("dumps", help="write the good and bad NPU dumps")
    d.add_argument("case")
    d.add_argument("good")
    d.add_argument("bad")
    a = ap.parse_args(argv)
    if a.cmd == "case":
        make_case(a.out, a.input_bytes, a.seed)
    else:
        fill_good(a.case, a.good)
        write_bad(a.case, a.good, a.bad)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
