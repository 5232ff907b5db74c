"""Golden vectors for KvRmsNormRopeCache V2 (the optional input v), written
into vectors/kv_rms_norm_rope_cache/ as the v2_* cases.

Every cache mode with N > 1 heads, unquantised and quantised caches (int8
symmetric and asymmetric, mixed; hif8 / fp8 in the general profile),
the Atlas A2/A3 shape (Dk 192, R 64, Dv 128), and the shapes Huawei's fix
931b5c8ac found written wrongly on the device: Skv != Scache in Norm mode
with several batches, PA_BLK_NZ pages taken from the index value (not
the identity), NZ with Dk equal to the C0 block, indices at the upper
bound; then what the operator must refuse, BlockSize 0 among it.
Small shapes: the whole set is a few hundred kB.
"""
import zlib

import numpy as np

from . import casefile, formats
from . import kv_rms_norm_rope_cache_v2 as golden
from .kv_rms_norm_rope_cache_inputs import (OP, Q8, golden_mode,
                                            make_index, poison, qparam_values,
                                            storage, t_values)

F32 = np.float32


class Spec:
    """One V2 case; `build` makes its tensors from a seed of its id."""

    def __init__(self, cid, comment, t="bf16", mode="PA_BNSD", kdt=None,
                 cdt=None, b=2, nh=2, s=3, dk=24, dr=8, dv=16, bs=None,
                 nblocks=3, bcache=None, scache=6, srope=None, asym=False,
                 out=True, eps=1e-6, profile=None, order=None, index=None,
                 form="ND", dtype_over=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]
        self.kdt = kdt or t
        self.cdt = cdt or t
        if self.bs is None:
            self.bs = 16
        self.bcache = bcache or b
        self.srope = srope or s

    def seed(self):
        return zlib.crc32(self.cid.encode()) & 0x7FFFFFFF

    def qparam(self, rng, dt, d, offset):
        """[N, D] per head and channel ([D] when form is "D", N = 1)."""
        v = qparam_values(rng, dt, self.nh * d, offset)
        return v if self.form == "D" else v.reshape(self.nh, d)

    def build(self):
        rng = np.random.RandomState(self.seed())
        t, b, nh, s = self.t, self.b, self.nh, self.s
        inp = {
            "kv": t_values(rng, t, (b, nh, s, self.dk), 0.05, 4.0),
            "gamma": t_values(rng, t, (self.dk,), 0.25, 2.0),
        }
        ang = rng.uniform(0.1, 6.2, size=(b, nh, self.srope, self.dr))
        inp["cos"] = storage(formats.encode(t, np.cos(ang).astype(F32)), t)
        inp["sin"] = storage(formats.encode(t, np.sin(ang).astype(F32)), t)
        inp["v"] = t_values(rng, t, (b, nh, s, self.dv), 0.05, 4.0)
        if self.index is not None:
            inp["index"] = np.asarray(self.index, dtype=np.int64)
        else:
            inp["index"] = make_index(rng, self.mode, b, s, self.bs,
                                      self.nblocks, self.scache)
        if self.mode == "Norm":
            kshape = (self.bcache, nh, self.scache, self.dk)
            cshape = (self.bcache, nh, self.scache, self.dv)
        else:
            kshape = (self.nblocks, self.bs, nh, self.dk)
            cshape = (self.nblocks, self.bs, nh, self.dv)
        inp["k_cache"] = poison(rng, self.kdt, kshape)
        inp["ckv_cache"] = poison(rng, self.cdt, cshape)
        for dt, d, sname, oname in (
                (self.kdt, self.dk, "k_rope_scale", "k_rope_offset"),
                (self.cdt, self.dv, "c_kv_scale", "c_kv_offset")):
            if dt in Q8:
                inp[sname] = self.qparam(rng, dt, d, False)
                if self.asym:
                    inp[oname] = self.qparam(rng, dt, d, True)
        return inp

    def dtypes(self):
        d = {"kv": self.t, "gamma": self.t, "cos": self.t, "sin": self.t,
             "v": self.t, "index": "int64", "k_cache": self.kdt,
             "ckv_cache": self.cdt, "k_rope_scale": "fp32",
             "c_kv_scale": "fp32", "k_rope_offset": "fp32",
             "c_kv_offset": "fp32"}
        d.update(self.dtype_over or {})
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
        return o


def write(root, spec, inp=None, expect_error=None):
    inp = inp if inp is not None else spec.build()
    dts = spec.dtypes()
    inputs = {n: casefile.T(a, dts[n]) for n, a in inp.items()}
    expected = {}
    if expect_error is None:
        res = golden.golden(inp, dts, golden_mode(spec.mode), spec.eps,
                            spec.out, spec.order or "pairwise")
        expected = {n: casefile.T(storage(a, tag), tag)
                    for n, (a, tag) in res.items()}
    casefile.write_case(root, spec.cid, OP, spec.attrs(), inputs, expected,
                        options=spec.options(), comment=spec.comment,
                        expect_error=expect_error)


# ---- every mode, N > 1, the cache dtype scenarios ----------------------------

SCEN = [("T", "T", False), ("int8", "int8", False), ("int8", "T", True),
        ("T", "int8", True), ("int8", "int8", True)]


def geometry(mode):
    """NZ modes need Dk, Dv in whole C0 runs of each cache's dtype (32 for
    int8); BLK modes get Skv > BlockSize: a full and a partial block. V2
    needs no BlockSize alignment (its tiling never checks it), so the pages
    stay small."""
    if mode == "Norm":
        return dict(b=3, nh=2, s=2, dk=24, dr=8, dv=16, bcache=3, scache=5)
    if mode in ("PA", "PA_BNSD"):
        return dict(b=2, nh=3, s=3, dk=20, dr=12, dv=10, nblocks=2, bs=4)
    if mode == "PA_NZ":
        return dict(b=2, nh=2, s=3, dk=32, dr=16, dv=32, nblocks=2, bs=4)
    if mode == "PA_BLK_BNSD":
        return dict(b=2, nh=2, s=7, dk=24, dr=8, dv=16, nblocks=5, bs=4)
    return dict(b=2, nh=2, s=6, dk=32, dr=8, dv=32, nblocks=5, bs=4)


def matrix():
    specs = []
    modes = ("Norm", "PA", "PA_BNSD", "PA_NZ", "PA_BLK_BNSD", "PA_BLK_NZ")
    for mi, mode in enumerate(modes):
        for qi, (k, c, asym) in enumerate(SCEN):
            t = ("fp16", "bf16")[(mi + qi) % 2]
            out = (mi + qi) % 3 != 0
            g = geometry(mode)
            kdt = t if k == "T" else k
            cdt = t if c == "T" else c
            cid = "v2_m_%s_%s_k%s_c%s_%s_%s" % (
                mode.lower(), t, "t" if k == "T" else k,
                "t" if c == "T" else c, "asym" if asym else "sym",
                "out" if out else "noout")
            comment = ("V2 %s, N %d, kv %s, k_cache %s, ckv_cache %s, %s, "
                       "is_output_kv %s" % (mode, g["nh"], t, kdt, cdt,
                                            "asymmetric" if asym
                                            else "symmetric",
                                            "on" if out else "off"))
            specs.append(Spec(cid, comment, t=t, mode=mode, kdt=kdt,
                              cdt=cdt, asym=asym, out=out,
                              eps=(1e-5, 1e-6)[qi % 2], **g))
    # the 950's 1-byte formats through the general formulas
    specs.append(Spec("v2_pa_bf16_both_hif8_asym", "V2, PA, both caches "
                      "hif8, asymmetric (general profile)", t="bf16",
                      mode="PA", kdt="hif8", cdt="hif8", asym=True,
                      **geometry("PA")))
    specs.append(Spec("v2_pa_nz_fp16_k_e4m3_c_t", "V2, PA_NZ, fp8 e4m3fn K "
                      "cache (C0 32), fp16 CKV cache (C0 16)", t="fp16",
                      mode="PA_NZ", kdt="fp8_e4m3fn", **geometry("PA_NZ")))
    specs.append(Spec("v2_norm_bf16_c_e5m2_n1", "V2, Norm, one head, fp8 "
                      "e5m2 CKV cache, scales of shape [D]", t="bf16",
                      mode="Norm", cdt="fp8_e5m2", form="D",
                      **dict(geometry("Norm"), nh=1)))
    return specs


# ---- Atlas A2/A3, the shapes 931b5c8ac found broken, corners ----------------

A2 = dict(dk=192, dr=64, dv=128, profile="a2a3")


def specials():
    return [
        Spec("v2_a2a3_pa_nz_bf16_int8_asym_n2", "V2 on Atlas A2/A3: PA_NZ, "
             "N 2, Dk 192, R 64, Dv 128, both caches int8 asymmetric",
             t="bf16", mode="PA_NZ", kdt="int8", cdt="int8", asym=True,
             b=2, nh=2, s=1, nblocks=1, bs=4, **A2),
        Spec("v2_a2a3_norm_fp16_int8_out", "V2 on Atlas A2/A3: Norm with "
             "int8 caches and outputs (V2 quantises in Norm mode)",
             t="fp16", mode="Norm", kdt="int8", cdt="int8", b=2, nh=1, s=2,
             bcache=2, scache=3, **A2),
        Spec("v2_a2a3_pa_blk_nz_bf16_bs4", "V2 on Atlas A2/A3: PA_BLK_NZ, "
             "bf16 caches, BlockSize 4, pages 1 and 0", t="bf16",
             mode="PA_BLK_NZ", b=1, nh=1, s=6, nblocks=2, bs=4,
             index=[4 + 3, 0], **A2),
        Spec("v2_a2a3_norm_bcast_noout", "V2 on Atlas A2/A3: Norm, cos/sin "
             "broadcast over Skv, no outputs", t="bf16", mode="Norm",
             b=2, nh=2, s=2, srope=1, bcache=2, scache=3, out=False, **A2),
        # 931b5c8ac defect 2: Skv != Scache in Norm with several batches.
        # Unquantised V2 Norm writes no k_rope / c_kv: no outputs asked for
        Spec("v2_norm_skv1_scache8_b4", "Norm, decode Skv 1 into Scache 8, "
             "4 batches, 2 heads: the batch stride is N*Scache*D, not Skv "
             "(no outputs: unquantised V2 Norm writes none)",
             t="fp16", mode="Norm", b=4, nh=2, s=1, bcache=4, scache=8,
             index=[[7], [0], [3], [7]], out=False),
        Spec("v2_norm_skv3_scache5_bcache_more", "Norm, Skv 3, Scache 5, "
             "Bcache 4 > Bkv 3 (the last batch of the cache untouched)",
             t="bf16", mode="Norm", kdt="int8", b=3, nh=2, s=3, bcache=4,
             scache=5, index=[[4, 0, 2], [1, 4, -1], [3, 2, 0]]),
        # defect 3: PA_BLK_NZ pages come from the index value / BlockSize
        Spec("v2_pa_blk_nz_pages_3_1", "PA_BLK_NZ, block table 48, 16 at "
             "BlockSize 16: pages 3 and 1 (not the identity)", t="fp16",
             mode="PA_BLK_NZ", b=1, nh=1, s=20, dk=16, dr=8, dv=16,
             nblocks=4, bs=16, index=[48, 16]),
        Spec("v2_pa_blk_nz_int8_pages_rev", "PA_BLK_NZ, int8 caches, "
             "two batches, pages in reverse and remainders ignored",
             t="bf16", mode="PA_BLK_NZ", kdt="int8", cdt="int8", b=2, nh=1,
             s=10, dk=32, dr=8, dv=32, nblocks=5, bs=8,
             index=[4 * 8 + 7, 3 * 8, 8 + 1, 0]),
        # defect 4: NZ with Dk equal to the C0 block
        Spec("v2_pa_nz_fp16_dk16_c0", "PA_NZ, fp16, Dk 16 = C0 and Dv 16 "
             "= C0: one run per row", t="fp16", mode="PA_NZ", b=2, nh=2,
             s=2, dk=16, dr=16, dv=16, nblocks=2, bs=16),
        Spec("v2_pa_blk_nz_int8_dk32_c0", "PA_BLK_NZ, int8, Dk 32 = C0 and "
             "Dv 32 = C0", t="fp16", mode="PA_BLK_NZ", kdt="int8",
             cdt="int8", b=2, nh=2, s=5, dk=32, dr=8, dv=32, nblocks=3,
             bs=8, index=[16, 0]),
        # defect 5: indices at the upper bound (the last legal row)
        Spec("v2_pa_last_slot", "PA, slots BlockNum*BlockSize-1 and 0",
             t="bf16", mode="PA", b=1, nh=2, s=2, nblocks=2, bs=16,
             index=[31, 0]),
        Spec("v2_pa_nz_last_slot", "PA_NZ, the last slot of the last page",
             t="fp16", mode="PA_NZ", b=2, nh=1, s=1, dk=32, dr=8, dv=16,
             nblocks=2, bs=16, index=[31, 16]),
        Spec("v2_norm_last_position", "Norm, position Scache-1 in every "
             "batch (no outputs: unquantised V2 Norm writes none)",
             t="fp16", mode="Norm", b=2, nh=2, s=2, bcache=2, scache=4,
             index=[[3, 0], [1, 3]], out=False),
        Spec("v2_pa_blk_bnsd_last_page", "PA_BLK_BNSD, the last page, value "
             "BlockNum*BlockSize-1 (remainder ignored)", t="bf16",
             mode="PA_BLK_BNSD", b=2, nh=2, s=5, nblocks=3, bs=8,
             index=[23, 0]),
        Spec("v2_pa_bcast_order_double", "PA, cos/sin broadcast (Srope 1), "
             "reduction order double", t="fp16", mode="PA", b=2, nh=2, s=3,
             srope=1, nblocks=1, bs=16, order="double"),
        Spec("v2_pa_all_negative", "every index negative: caches untouched, "
             "outputs written", t="bf16", mode="PA", b=2, nh=2, s=1,
             nblocks=1, index=[-1, -9]),
    ]


def errors():
    e = []

    def case(spec, status, tensor, mutate=None):
        e.append((spec, {"status": status, "tensor": tensor}, mutate))

    base = dict(t="bf16", mode="PA", b=2, nh=2, s=2, nblocks=1, bs=8)
    case(Spec("v2_err_block_size_0", "PA_BLK_BNSD with BlockSize 0 (the "
              "950 host code divided by it)", **dict(base, mode="PA_BLK_BNSD",
                                                     index=[0, 8])),
         161002, "k_cache",
         lambda i: [i.__setitem__(n, i[n][:, :0]) for n in ("k_cache",
                                                            "ckv_cache")])
    case(Spec("v2_err_pa_slot_past_end", "slot 8 = BlockNum*BlockSize",
              **dict(base, index=[0, 1, 8, 3])), 161002, "index")
    case(Spec("v2_err_norm_position_scache", "Norm position 4 = Scache",
              **dict(base, mode="Norm", scache=4, index=[[0, 4], [1, 2]],
                     out=False)),
         161002, "index")
    case(Spec("v2_err_blk_page_past_end", "PA_BLK_NZ value 32 with "
              "BlockNum 2, BlockSize 16", **dict(base, mode="PA_BLK_NZ",
                                                 dk=32, dv=16, nblocks=2,
                                                 bs=16, index=[0, 32])),
         161002, "index")
    case(Spec("v2_err_v_dtype", "v fp16 with kv bf16",
              dtype_over={"v": "fp16"}, **base), 161002, "v",
         lambda i: i.__setitem__("v", i["v"].view(np.float16)))
    case(Spec("v2_err_v_heads", "v with 1 head, kv with 2", **base), 161002,
         "v", lambda i: i.__setitem__("v", np.ascontiguousarray(
             i["v"][:, :1])))
    case(Spec("v2_err_gamma_dk", "gamma of 16 channels, kv Dk 24", **base),
         161002, "gamma",
         lambda i: i.__setitem__("gamma", i["gamma"][:16].copy()))
    case(Spec("v2_err_rope_wider", "cos R 26 > Dk 24", **dict(base, dr=26)),
         161002, "cos")
    case(Spec("v2_err_cache_heads", "PA caches with N 1, kv N 2", **base),
         161002, "k_cache",
         lambda i: [i.__setitem__(n, np.ascontiguousarray(i[n][:, :, :1]))
                    for n in ("k_cache", "ckv_cache")])
    case(Spec("v2_err_scale_1d_heads", "k_rope_scale [Dk] with N 2 (the "
              "kernels would read N*Dk floats)", kdt="int8",
              **dict(base, bs=32)), 161002, "k_rope_scale",
         lambda i: i.__setitem__("k_rope_scale", i["k_rope_scale"][0].copy()))
    case(Spec("v2_err_a2a3_dv64", "Atlas A2/A3 V2 need Dv 128",
              **dict(base, b=1, s=1, nh=1, dk=192, dr=64, dv=64,
                     profile="a2a3")),
         161002, "v")
    case(Spec("v2_err_a2a3_heads3", "Atlas A2/A3 V2 take N 1, 2, 4, 8",
              **dict(base, b=1, s=1, nh=3, dk=192, dr=64, dv=128,
                     profile="a2a3")),
         161002, "kv")
    # V2 Norm writes k_rope / c_kv only with a quantised cache, in every
    # profile: Atlas A2/A3 (the only V2 chips) turn is_output_kv off there
    # and leave both outputs unwritten; the Ascend 950 runs no V2
    case(Spec("v2_err_norm_out_noquant", "V2 Norm without a quantised "
              "cache writes no k_rope / c_kv (profile ascend950 too)",
              **dict(base, mode="Norm", scache=4)), 161002, "is_output_kv")
    case(Spec("v2_err_a2a3_norm_out_noquant", "Atlas A2/A3 V2 write no "
              "outputs in Norm mode without quantisation",
              **dict(base, mode="Norm", b=1, s=1, nh=1, scache=2, dk=192,
                     dr=64, dv=128, profile="a2a3")), 161002, "is_output_kv")
    case(Spec("v2_err_order_a2", "reduction order a2 models V1's fold",
              **dict(base, order="a2")), 161002, "reduce_order")
    case(Spec("v2_err_v_nan", "a NaN in v", **base), 161002, "v",
         lambda i: i["v"].reshape(-1).__setitem__(5, 0x7FC0))
    return e


def generate(root):
    for spec in matrix() + specials():
        write(root, spec)
    for spec, err, mutate in errors():
        inp = spec.build()
        if mutate is not None:
            mutate(inp)
        write(root, spec, inp, expect_error=err)
