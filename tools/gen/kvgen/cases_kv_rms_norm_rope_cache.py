"""Golden vectors for kv_rms_norm_rope_cache.

The matrix: every cache mode string (Norm, PA, PA_BNSD, PA_NZ, PA_BLK_BNSD,
PA_BLK_NZ) x every dtype scenario (no quantisation; the CKV cache, the K
cache, or both quantised to int8 / hif8 / fp8_e5m2 / fp8_e4m3fn), with kv
dtype, symmetric / asymmetric, is_output_kv and scale shape rotating so
that each mode sees every combination. Then DeepSeek-V3 shapes (Dv 512,
Dk 64) in both profiles, the reduction orders, cos broadcast, non-saturating
overflow, index corner cases, and cases the operator must refuse.

Caches start as seeded random bytes; every input is seeded random data.
"""
import zlib

import numpy as np

from . import casefile, formats
from . import kv_rms_norm_rope_cache as golden
from . import kv_rms_norm_rope_cache_v2_cases
from .kv_rms_norm_rope_cache_inputs import (F32, OP, Q8, golden_mode,
                                            make_index, poison, qparam,
                                            storage, t_values)

NAME = "kv_rms_norm_rope_cache"
MODES = ("Norm", "PA", "PA_BNSD", "PA_NZ", "PA_BLK_BNSD", "PA_BLK_NZ")


class Spec:
    """Everything that defines one case; `build` makes its tensors."""

    def __init__(self, cid, comment, t="bf16", mode="PA_BNSD", kdt=None,
                 cdt=None, b=2, s=3, dv=40, dk=12, bs=None, nblocks=3,
                 bcache=None, scache=6, srope=None, asym=False, out=False,
                 form="D", eps=1e-6, profile=None, order=None,
                 overflow=None, index=None, boost=1.0, seed_key=None,
                 spike=False):
        self.__dict__.update(locals())
        del self.__dict__["self"]
        self.kdt = kdt or t
        self.cdt = cdt or t
        if self.bs is None:
            quant = self.kdt in Q8 or self.cdt in Q8
            self.bs = 32 if quant else 16
        self.bcache = bcache or b + 1
        self.srope = srope or s

    def seed(self):
        key = self.seed_key or self.cid
        return zlib.crc32(key.encode()) & 0x7FFFFFFF

    def spiked_kv(self, rng):
        """RmsNorm rows of values near 1 plus one +-4096 each: 4096^2 =
        2^24 absorbs a lone square of 1, so the reduction order shows in
        the sum (by up to Dv) and in the rounded outputs."""
        b, s, dv, dk = self.b, self.s, self.dv, self.dk
        x = rng.uniform(0.5, 1.2, size=(b, 1, s, dv + dk))
        x *= np.where(rng.randint(0, 2, size=x.shape) == 0, -1.0, 1.0)
        spot = rng.randint(0, dv, size=(b, s))
        for i in range(b):
            for j in range(s):
                x[i, 0, j, spot[i, j]] = 4096.0
        return storage(formats.encode(self.t, x.astype(F32)), self.t)

    def build(self):
        rng = np.random.RandomState(self.seed())
        t, b, s, dv, dk = self.t, self.b, self.s, self.dv, self.dk
        inp = {
            "kv": (self.spiked_kv(rng) if self.spike
                   else t_values(rng, t, (b, 1, s, dv + dk), 0.05, 4.0)),
            "gamma": t_values(rng, t, (dv,), 0.25, 2.0),
        }
        ang = rng.uniform(0.1, 6.2, size=(b, 1, self.srope, dk))
        inp["cos"] = storage(formats.encode(t, np.cos(ang).astype(F32)), t)
        inp["sin"] = storage(formats.encode(t, np.sin(ang).astype(F32)), t)
        if self.index is not None:
            inp["index"] = np.asarray(self.index, dtype=np.int64)
        else:
            inp["index"] = make_index(rng, self.mode, b, s, self.bs,
                                      self.nblocks, self.scache)
        if self.mode == "Norm":
            kshape = (self.bcache, 1, self.scache, dk)
            cshape = (self.bcache, 1, self.scache, dv)
        else:
            kshape = (self.nblocks, self.bs, 1, dk)
            cshape = (self.nblocks, self.bs, 1, dv)
        inp["k_cache"] = poison(rng, self.kdt, kshape)
        inp["ckv_cache"] = poison(rng, self.cdt, cshape)
        for cache, dt, d, sname, oname in (
                ("k", self.kdt, dk, "k_rope_scale", "k_rope_offset"),
                ("c", self.cdt, dv, "c_kv_scale", "c_kv_offset")):
            if dt in Q8:
                inp[sname] = qparam(rng, dt, d, self.form, False) * F32(
                    self.boost)
                if self.asym:
                    inp[oname] = qparam(rng, dt, d, self.form, True)
        return inp

    def dtypes(self):
        d = {"kv": self.t, "gamma": self.t, "cos": self.t, "sin": self.t,
             "index": "int64", "k_cache": self.kdt, "ckv_cache": self.cdt,
             "k_rope_scale": "fp32", "c_kv_scale": "fp32",
             "k_rope_offset": "fp32", "c_kv_offset": "fp32"}
        return d

    def attrs(self):
        a = {"epsilon": self.eps, "cache_mode": self.mode}
        if self.out:
            a["is_output_kv"] = True
        return a

    def options(self):
        o = {}
        if self.profile:
            o["profile"] = self.profile
        if self.order:
            o["reduce_order"] = self.order
        if self.overflow:
            o["overflow"] = self.overflow
        return o


def write(root, spec, inp=None, expect_error=None):
    inp = inp if inp is not None else spec.build()
    dts = spec.dtypes()
    inputs = {n: casefile.T(a, dts[n]) for n, a in inp.items()}
    expected = {}
    if expect_error is None:
        ovf = {"nonsat": "nonsat"}.get(spec.overflow, "sat")
        res = golden.golden(inp, dts, golden_mode(spec.mode), spec.eps,
                            spec.out, spec.order or "pairwise", ovf)
        expected = {n: casefile.T(storage(a, tag), tag)
                    for n, (a, tag) in res.items()}
    casefile.write_case(root, spec.cid, OP, spec.attrs(), inputs, expected,
                        options=spec.options(), comment=spec.comment,
                        expect_error=expect_error)


# ---- the mode x dtype-scenario matrix --------------------------------------

SCENARIOS = ([("T", "T")] + [("T", q) for q in Q8] + [(q, "T") for q in Q8]
             + [(q, q) for q in Q8])
SHORT = {"T": "t", "int8": "i8", "hif8": "hf8", "fp8_e5m2": "e5m2",
         "fp8_e4m3fn": "e4m3"}


def geometry(mode):
    """Small shapes per mode; NZ needs Dk, Dv in whole 32-element runs,
    BLK gets Skv > BlockSize so a batch spans a full and a partial block."""
    if mode == "Norm":
        return dict(b=2, s=3, dv=40, dk=12, bcache=3, scache=6)
    if mode in ("PA", "PA_BNSD"):
        return dict(b=2, s=3, dv=40, dk=12, nblocks=3)
    if mode == "PA_NZ":
        return dict(b=2, s=3, dv=64, dk=32, nblocks=3)
    if mode == "PA_BLK_BNSD":
        return dict(b=2, dv=24, dk=8, nblocks=5)
    return dict(b=2, dv=32, dk=32, nblocks=5)


def matrix():
    specs = []
    runs = [(qi, None) for qi in range(len(SCENARIOS))] + [(0, 1)]
    for mi, mode in enumerate(MODES):
        for qi, flip in runs:
            k, c = SCENARIOS[qi]
            t = ("fp16", "bf16")[(mi + qi) % 2]
            quant = qi > 0
            # rotate (asym, out): for a fixed mode all four appear among the
            # 12 quant scenarios, and for a fixed dtype across the 3 kinds;
            # the unquantised scenario runs with outputs on and off
            combo = (mi + qi + (qi - 1) // 4) % 4 if quant else 2 * (mi % 2)
            if flip:
                combo ^= 2
                t = ("fp16", "bf16")[(mi + 1) % 2]
            asym, out = bool(combo & 1) and quant, bool(combo & 2)
            form = ("D", "1D", "1")[(mi + qi) % 3]
            g = geometry(mode)
            kdt = t if k == "T" else k
            cdt = t if c == "T" else c
            bs = 32 if quant else 16
            if mode.startswith("PA_BLK"):
                g["s"] = bs + 3 + mi
            cid = "m_%s_%s_k%s_c%s_%s_%s" % (
                mode.lower(), t, SHORT[k], SHORT[c],
                "asym" if asym else "sym", "out" if out else "noout")
            comment = ("%s, kv %s, k_cache %s, ckv_cache %s, %s, "
                       "is_output_kv %s, scale shape %s"
                       % (mode, t, kdt, cdt,
                          "asymmetric" if asym else "symmetric",
                          "on" if out else "off", form))
            specs.append(Spec(cid, comment, t=t, mode=mode, kdt=kdt, cdt=cdt,
                              asym=asym, out=out, form=form,
                              eps=(1e-5, 1e-6)[qi % 2], **g))
    return specs


# ---- DeepSeek-V3 shapes, profiles, orders ----------------------------------

def deepseek():
    ds = dict(dv=512, dk=64)
    return [
        Spec("ds_a2a3_pa_bf16_ckv_int8_out", "DeepSeek-V3 decode on Atlas "
             "A2/A3: PA, bf16, int8 CKV cache, bf16 K cache, outputs on; "
             "BlockSize 16 (A2/A3 do not require 32-byte alignment)",
             t="bf16", mode="PA", cdt="int8", b=4, s=1, nblocks=2, bs=16,
             out=True, profile="a2a3", **ds),
        Spec("ds_a2a3_pa_nz_fp16_both_int8", "DeepSeek-V3 on Atlas A2/A3: "
             "PA_NZ, fp16, both caches int8 (per-cache C0 32), scales [1, D]",
             t="fp16", mode="PA_NZ", kdt="int8", cdt="int8", b=3, s=1,
             nblocks=2, bs=32, out=True, form="1D", profile="a2a3", **ds),
        Spec("ds_a2a3_pa_blk_nz_bf16_k_int8", "DeepSeek-V3 prefill on Atlas "
             "A2/A3: PA_BLK_NZ, bf16, int8 K cache, bf16 CKV cache (C0 32 "
             "for K, 16 for CKV)", t="bf16", mode="PA_BLK_NZ", kdt="int8",
             b=1, s=40, nblocks=3, bs=32, out=True, profile="a2a3",
             index=[2 * 32 + 5, 3], **ds),
        Spec("ds_a2a3_norm_bf16_cos_bcast", "DeepSeek-V3 on Atlas A2/A3: "
             "Norm, bf16, cos/sin broadcast over Skv (Srope 1)", t="bf16",
             mode="Norm", b=2, s=3, srope=1, bcache=2, scache=4,
             profile="a2a3", **ds),
        Spec("ds_a2a3_pa_bnsd_bs9", "Atlas A2/A3: PA_BNSD with BlockSize 9 "
             "(the ATK cases use 9, 23, 26, 31; A2/A3 never check it)",
             t="fp16", mode="PA_BNSD", b=2, s=2, nblocks=1, bs=9,
             profile="a2a3", **ds),
        Spec("ds_950_pa_nz_bf16_ckv_e4m3_out", "DeepSeek-V3 on Ascend 950 "
             "as sglang runs it: PA_NZ, bf16 K cache, fp8 e4m3fn CKV cache",
             t="bf16", mode="PA_NZ", cdt="fp8_e4m3fn", b=3, s=1, nblocks=1,
             bs=32, out=True, **ds),
        Spec("ds_950_pa_fp16_both_hif8_asym", "DeepSeek-V3 on Ascend 950: "
             "PA, fp16, both caches hif8, asymmetric, scalar scales",
             t="fp16", mode="PA", kdt="hif8", cdt="hif8", b=2, s=2,
             nblocks=1, bs=32, asym=True, form="1", **ds),
        Spec("ds_950_norm_bf16_ckv_e5m2_out", "DeepSeek-V3 on Ascend 950: "
             "Norm with quantisation and outputs (both refused on A2/A3)",
             t="bf16", mode="Norm", cdt="fp8_e5m2", b=2, s=2, bcache=2,
             scache=3, out=True, **ds),
    ]


def orders():
    specs = []
    for order, profile in (("a2", "a2a3"), ("npu950", None),
                           ("sequential", None), ("double", None),
                           ("pairwise", "a2a3")):
        specs.append(Spec(
            "order_%s_ds_pa_fp16" % order, "DeepSeek-V3 shape, reduction "
            "order %s for the RmsNorm sum of squares (the same spiked "
            "inputs in every order_*_ds case)" % order, t="fp16",
            mode="PA", b=4, s=1, nblocks=1, bs=16, dv=512, dk=64, out=True,
            profile=profile, order=order, seed_key="order_ds", spike=True))
    # partial chunks: Dv 200 is 4 chunks, the last of 8 lanes
    for order in ("pairwise", "a2", "npu950"):
        specs.append(Spec(
            "order_%s_dv200_norm_fp16" % order, "Dv 200 (3 full 64-lane "
            "chunks and one of 8), reduction order %s" % order, t="fp16",
            mode="Norm", b=2, s=2, dv=200, dk=16, bcache=2, scache=3,
            out=True, order=order, seed_key="order_dv200", spike=True))
    return specs


def specials():
    s = [
        Spec("bcast_pa_nz_fp16_ckv_int8", "cos/sin broadcast (Srope 1) in "
             "PA_NZ with quantisation (950 only)", t="fp16", mode="PA_NZ",
             cdt="int8", b=2, s=4, srope=1, dv=64, dk=32, out=True),
        Spec("bcast_pa_blk_bnsd_bf16", "cos/sin broadcast in PA_BLK_BNSD",
             t="bf16", mode="PA_BLK_BNSD", b=2, s=20, srope=1, dv=24, dk=8,
             nblocks=5, out=True),
        Spec("nonsat_hif8_pa", "overflow nonsat: hif8 overflow gives "
             "+-inf codes instead of +-32768", t="bf16", mode="PA",
             kdt="hif8", cdt="hif8", b=2, s=2, dv=40, dk=12, nblocks=1,
             overflow="nonsat", boost=16.0),
        Spec("nonsat_e4m3_pa_nz", "overflow nonsat: fp8 e4m3fn "
             "overflow gives NaN instead of +-448", t="fp16", mode="PA_NZ",
             cdt="fp8_e4m3fn", b=2, s=2, dv=64, dk=32, nblocks=1,
             overflow="nonsat", out=True, boost=8.0),
        Spec("index_all_negative_pa_nz", "every index negative: the caches "
             "stay as they were, the outputs are still written", t="bf16",
             mode="PA_NZ", b=2, s=2, dv=32, dk=16, nblocks=1,
             index=[-1, -1, -3, -100], out=True),
        Spec("index_norm_repeat_across_batches", "Norm: the same positions "
             "in every batch (allowed), a -5 skips", t="fp16", mode="Norm",
             b=3, s=2, dv=24, dk=8, bcache=3, scache=4,
             index=[[2, 0], [2, 0], [-5, 2]], out=True),
        Spec("index_blk_remainder_ignored", "PA_BLK_BNSD: index values 37 "
             "and 5 with BlockSize 16 write from slot 0 of blocks 2 and 0",
             t="bf16", mode="PA_BLK_BNSD", b=2, s=10, dv=24, dk=8, bs=16,
             nblocks=3, index=[37, 5], out=True),
        Spec("index_pa_last_slot", "PA: slots 0 and BlockNum*BlockSize-1",
             t="fp16", mode="PA", b=1, s=2, dv=24, dk=8, nblocks=2,
             index=[31, 0]),
    ]
    return s


# ---- extreme finite inputs (inf and NaN inputs are refused) ------------------

BF16_MAX, BF16_NMAX, FP16_MAX, FP16_NMAX = 0x7F7F, 0xFF7F, 0x7BFF, 0xFBFF
F32_MAX = np.finfo(F32).max


def _raw(a):
    return a.view(np.uint16)


def _signs(rng, code, n):
    return (np.uint16(code) | (rng.randint(0, 2, size=n).astype(np.uint16)
                               << 15)).astype(np.uint16)


def _extreme_bf16(inp):
    """bf16 PA, K cache fp8 e4m3fn, CKV cache bf16. Token 0: +-max
    everywhere (the squares overflow binary32: rms = inf, y = +-0), and in
    its RoPE pair 0 x1 = max, x2 = -max with cos = sin = 0.707: r[0]
    overflows to +inf (k_rope +inf), and times k_rope_scale[0] = 0 it is a
    NaN (the canonical e4m3fn NaN 0x7F in the cache). Token 1 subnormals
    (their squares underflow: rms = sqrt(eps)), token 2 +-0, token 3
    ordinary. gamma[3] = max (y overflows to inf where |x / rms| > 1),
    gamma[4] = 0, gamma[6] the smallest subnormal; k_rope_scale[1] = +max,
    [2] the smallest subnormal, [3] = -max (saturated to +-448)."""
    rng = np.random.RandomState(91)
    kv, dv = _raw(inp["kv"]), inp["gamma"].shape[0]
    d = kv.shape[-1]
    kv[0, 0, 0, :] = _signs(rng, BF16_MAX, d)
    kv[0, 0, 0, dv], kv[0, 0, 0, dv + 1] = BF16_MAX, BF16_NMAX
    _raw(inp["cos"])[0, 0, 0, 0] = 0x3F35
    _raw(inp["sin"])[0, 0, 0, 0] = 0x3F35
    kv[0, 0, 1, :] = _signs(rng, 0, d) | rng.randint(
        1, 0x80, size=d).astype(np.uint16)
    kv[0, 0, 2, :] = _signs(rng, 0, d)
    g = _raw(inp["gamma"])
    g[3], g[4], g[6] = BF16_MAX, 0x0000, 0x0001
    sc = inp["k_rope_scale"]
    sc[..., 0], sc[..., 1], sc[..., 2], sc[..., 3] = 0.0, F32_MAX, 1e-45, \
        -F32_MAX


def _extreme_fp16(inp):
    """fp16 Norm, CKV cache hif8 (asymmetric), K cache fp16. Batch 0 seq 0:
    +-65504 everywhere (k_rope overflows fp16 to +-inf where |x1 cos -
    x2 sin| > 65504); seq 1 subnormals; batch 1 seq 0 +-0. gamma[0] =
    65504. c_kv_scale[0] = 0, [1] = +max, [2] the smallest subnormal, [3]
    1e-38; c_kv_offset[4] = +max, [5] = -max, [6] the smallest subnormal
    (hif8 saturates to +-32768, rounds tiny values to 0)."""
    rng = np.random.RandomState(92)
    kv = _raw(inp["kv"])
    d = kv.shape[-1]
    kv[0, 0, 0, :] = _signs(rng, FP16_MAX, d)
    kv[0, 0, 1, :] = _signs(rng, 0, d) | rng.randint(
        1, 0x400, size=d).astype(np.uint16)
    kv[1, 0, 0, :] = _signs(rng, 0, d)
    _raw(inp["gamma"])[0] = FP16_MAX
    sc, off = inp["c_kv_scale"], inp["c_kv_offset"]
    sc[..., 0], sc[..., 1], sc[..., 2], sc[..., 3] = 0.0, F32_MAX, 1e-45, \
        1e-38
    off[..., 4], off[..., 5], off[..., 6] = F32_MAX, -F32_MAX, 1e-45


def extremes():
    return [
        (Spec("extreme_pa_bf16_max_subnormal", "extreme finite inputs: "
              "+-max rows (rms = inf), RoPE overflow to inf, inf * zero "
              "scale = NaN (canonical 0x7F), subnormal and zero rows, "
              "gamma max/0/subnormal, scales 0/+-max/subnormal", t="bf16",
              mode="PA", kdt="fp8_e4m3fn", b=1, s=4, dv=32, dk=16,
              nblocks=1, bs=32, out=True), _extreme_bf16),
        (Spec("extreme_norm_fp16_hif8", "extreme finite inputs: +-65504 "
              "rows (k_rope overflows to inf), subnormal and zero rows, "
              "gamma 65504, scales 0/max/subnormal, offsets +-max/"
              "subnormal into hif8", t="fp16", mode="Norm", cdt="hif8",
              b=2, s=2, dv=32, dk=16, bcache=2, scache=3, asym=True,
              out=True), _extreme_fp16),
    ]


# ---- cases the operator must refuse ------------------------------------------

def errors():
    e = []

    def case(spec, status, tensor, mutate=None):
        e.append((spec, {"status": status, "tensor": tensor}, mutate))

    base = dict(t="bf16", b=2, s=3, dv=40, dk=12, nblocks=3)
    case(Spec("err_pa_duplicate_slot", "two tokens write slot 5", mode="PA",
              index=[5, 1, 2, 3, 4, 5], **base), 161002, "index")
    case(Spec("err_pa_nz_slot_out_of_range", "slot 48 = BlockNum*BlockSize",
              mode="PA_NZ", index=[0, 1, 48, 3, 4, 5],
              **dict(base, dv=32, dk=16)), 161002, "index")
    case(Spec("err_norm_repeat_within_batch", "position 2 twice in batch 1",
              mode="Norm", index=[[0, 1, 2], [2, 3, 2]], **base),
         161002, "index")
    case(Spec("err_blk_same_block", "values 32 and 40 are both block 2 at "
              "BlockSize 16", mode="PA_BLK_BNSD", index=[32, 40],
              **dict(base, s=5)), 161002, "index")
    case(Spec("err_a2a3_hif8_cache", "Atlas A2/A3 quantise to int8 only",
              mode="PA", cdt="hif8", profile="a2a3",
              **dict(base, dv=512, dk=64, s=1, nblocks=1)), 161002, "ckv_cache")
    case(Spec("err_a2a3_offset", "Atlas A2/A3 V1 ignore offsets",
              mode="PA", cdt="int8", asym=True, profile="a2a3",
              **dict(base, dv=512, dk=64, s=1, nblocks=1)), 161002, "c_kv_offset")
    case(Spec("err_a2a3_dv40", "Atlas A2/A3 need Dv 512", mode="PA",
              profile="a2a3", **base), 161002, "gamma")
    case(Spec("err_a2a3_norm_quant", "Atlas A2/A3 refuse Norm with a scale",
              mode="Norm", kdt="int8", profile="a2a3",
              **dict(base, dv=512, dk=64, s=1, nblocks=1)), 161002, "k_rope_scale")
    case(Spec("err_block_size_unaligned_int8", "BlockSize 16 with an int8 "
              "cache (C0 32)", mode="PA", kdt="int8", bs=16, **base),
         161002, "k_cache")
    case(Spec("err_nz_dk_unaligned", "PA_NZ with Dk 12 (C0 16)",
              mode="PA_NZ", **base), 161002, "k_cache")
    case(Spec("err_missing_scale", "int8 CKV cache without c_kv_scale",
              mode="PA", cdt="int8", **base), 161001, "c_kv_scale",
         lambda inp: inp.pop("c_kv_scale"))
    case(Spec("err_unknown_cache_mode", "\"pa_nz\" is not a mode (the NPU "
              "would silently run it as Norm)", mode="pa_nz", **base),
         161002, "cache_mode")
    case(Spec("err_kv_nan", "a NaN in kv", mode="PA", **base), 161002, "kv",
         lambda inp: inp["kv"].reshape(-1).__setitem__(7, 0x7FC1))
    # every floating input is checked for inf / NaN (the header's rule)
    case(Spec("err_gamma_inf", "-inf in gamma", mode="PA", **base), 161002,
         "gamma", lambda inp: inp["gamma"].__setitem__(5, 0xFF80))
    case(Spec("err_sin_nan", "a signalling NaN in sin", mode="PA_BLK_BNSD",
              **dict(base, s=5)), 161002, "sin",
         lambda inp: inp["sin"].reshape(-1).__setitem__(3, 0x7F81))
    case(Spec("err_scale_inf", "+inf in c_kv_scale", mode="PA", cdt="int8",
              **base), 161002, "c_kv_scale",
         lambda inp: inp["c_kv_scale"].reshape(-1).__setitem__(1, np.inf))
    case(Spec("err_offset_nan", "a NaN in k_rope_offset", mode="PA",
              kdt="hif8", asym=True, **base), 161002, "k_rope_offset",
         lambda inp: inp["k_rope_offset"].reshape(-1).__setitem__(0,
                                                                  np.nan))
    case(Spec("err_d_mismatch", "kv D 54 is not Dv 40 + Dk 12", mode="PA",
              **base), 161002, "kv",
         lambda inp: inp.__setitem__("kv", np.concatenate(
             [inp["kv"], inp["kv"][..., :2]], axis=-1)))
    return e


def error_inputs(spec, mutate):
    mode = spec.mode
    if mode == "pa_nz":
        spec.mode = "PA_NZ"      # build legal tensors, then keep the typo
    inp = spec.build()
    spec.mode = mode
    if mutate is not None:
        mutate(inp)
    return inp


def generate(root):
    for spec in matrix() + deepseek() + orders() + specials():
        write(root, spec)
    for spec, mutate in extremes():
        inp = spec.build()
        mutate(inp)
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            write(root, spec, inp)
    for spec, err, mutate in errors():
        write(root, spec, error_inputs(spec, mutate), expect_error=err)
    # V2 (the optional input v): the v2_* cases, from their own golden
    kv_rms_norm_rope_cache_v2_cases.generate(root)
