"""Vectors for scatter_pa_kv_cache (docs/scatter_pa_kv_cache.md): Norm,
Nct, NHSD and PA_NZ (4-D and 5-D caches, K and V pairs of different dtypes)
token writes in every dtype the operator copies, int32 and int64 slots,
padding slots -1, key-only calls, the torch_npu default trap, and cases the
oracle must refuse. Sources and caches are seeded random bytes (never zero
in the caches): the operator is a byte copy, so every bit pattern (NaNs,
infinities, both fp4 nibbles) must arrive unchanged.
"""
import numpy as np

from .casefile import STORAGE, T, write_case
from .paged_cases import prefill_slots
from . import formats
from .scatter_pa_kv_cache import compressed, scatter_pa_kv_cache

NAME = "scatter_pa_kv_cache"
COPY_DTYPES = ("fp16", "bf16", "fp32", "int8", "uint8", "int16", "uint16",
               "int32", "uint32", "hif8", "fp8_e5m2", "fp8_e4m3fn",
               "fp4_e2m1", "fp4_e1m2")


def c0(tag):
    """Elements per 32 bytes (a packed fp4 element is one byte)."""
    return 32 // STORAGE[tag].itemsize


def random_bytes(rng, tag, shape, nonzero=False):
    """Seeded random bit patterns as a `tag` storage array."""
    size = int(np.prod(shape)) * STORAGE[tag].itemsize
    lo = 1 if nonzero else 0
    raw = rng.randint(lo, 256, size=size).astype(np.uint8)
    return raw.view(STORAGE[tag]).reshape(shape)


def slots_of(rng, tokens, total, pad, dtype):
    """Distinct random slots, `pad` tokens set to -1 (skipped)."""
    s = rng.choice(total, size=tokens, replace=False).astype(np.int64)
    if pad:
        s[rng.choice(tokens, size=pad, replace=False)] = -1
    return T(s.astype(dtype), "int32" if dtype == np.int32 else "int64")


def cache_shape(mode, scatter, tag, nb, bs, n, d, five=False):
    if mode == "PA_NZ":
        k = c0(tag)
        return (nb, n, d // k, bs, k) if five else (nb, n * d // k, bs, k)
    if scatter == "NHSD":
        return (nb, n, bs, d)
    return (nb, bs, n, d)


def case(root, case_id, comment, seed, ktag, vtag=None, tokens=6, n=2, dk=16,
         dv=None, nb=3, bs=4, pad=1, mode="Norm", scatter="None",
         idx=np.int32, five=(False, False), nct=None, key_only=False,
         attrs_mode=True, slots=None):
    """One case. nct = ((sK, oK), (sV, oV)) stores the sources as strided
    views of larger buffers."""
    rng = np.random.RandomState(seed)
    vtag = vtag or ktag
    dv = dv or dk
    sides = [(ktag, dk, "key")] + ([] if key_only else [(vtag, dv, "value")])
    inputs, srcs, caches = {}, {}, {}
    for i, (tag, d, name) in enumerate(sides):
        if nct is not None:
            stride, offset = nct[i]
            total = (tokens - 1) * stride + offset + n * d + 3
            src = random_bytes(rng, tag, (total,))
        else:
            src = random_bytes(rng, tag, (tokens, n, d))
        cache = random_bytes(rng, tag, cache_shape(mode, scatter, tag, nb, bs,
                                                   n, d, five[i]),
                             nonzero=True)
        srcs[name], caches[name] = src, cache
        inputs[name] = T(src, tag)
        inputs[name + "_cache"] = T(cache, tag)
    if slots is None:
        slots = slots_of(rng, tokens, nb * bs, pad, idx)
    else:
        slots = T(np.asarray(slots).astype(idx),
                  "int32" if idx == np.int32 else "int64")
    inputs["slot_mapping"] = slots
    attrs = {}
    if attrs_mode:
        attrs["cache_mode"] = mode
    if scatter != "None":
        attrs["scatter_mode"] = scatter
    kw = {}
    if nct is not None:
        attrs["strides"] = [nct[0][0], nct[-1][0]]
        attrs["offsets"] = [nct[0][1], nct[-1][1]]
        kw = dict(strides=attrs["strides"], offsets=attrs["offsets"])
    ekc, evc = scatter_pa_kv_cache(srcs["key"], caches["key"], slots.array,
                                   srcs.get("value"), caches.get("value"),
                                   mode, scatter, **kw)
    expected = {"key_cache": T(ekc, ktag)}
    if evc is not None:
        expected["value_cache"] = T(evc, vtag)
    write_case(root, case_id, NAME, attrs, inputs, expected, comment=comment)


def norm_cases(root):
    for i, tag in enumerate(COPY_DTYPES):
        case(root, "norm_%s" % tag, "Norm [NB, BS, N, D], %s bytes copied "
             "bit for bit; one padding slot" % tag, 600 + i, tag,
             tokens=5, n=2, dk=8, nb=2, bs=4)
    case(root, "norm_fp16_int64_slots", "Norm, int64 slot_mapping, Dk=32 "
         "Dv=16, two padding slots", 620, "fp16", dk=32, dv=16, tokens=7,
         pad=2, idx=np.int64)
    case(root, "norm_bf16_default_mode", "Norm by the op's default "
         "(no cache_mode attribute)", 621, "bf16", attrs_mode=False)
    case(root, "norm_int8_prefill", "Norm int8, no padding, 10 tokens in "
         "3 blocks of 4", 622, "int8", tokens=10, pad=0, n=1, dk=32)
    case(root, "key_only_fp16", "key-only (no value, no value_cache)", 623,
         "fp16", key_only=True)
    case(root, "key_only_nct_bf16", "key-only Nct: key rows 40 elements "
         "apart from element 3", 624, "bf16", key_only=True, scatter="Nct",
         nct=((40, 3),), dk=16)


def nct_cases(root):
    case(root, "nct_fp16", "Nct: key stride 48 offset 5, value stride 33 "
         "offset 0 (N*D = 32)", 630, "fp16", nct=((48, 5), (33, 0)),
         scatter="Nct")
    case(root, "nct_int8_int64_slots", "Nct int8, int64 slots, strides "
         "equal to N*D (dense rows) with offsets 7 / 1", 631, "int8",
         nct=((32, 7), (32, 1)), scatter="Nct", idx=np.int64, dk=16)
    case(root, "nct_bf16_prefill", "Nct prefill: slots 2-9 in order across "
         "blocks of 4, a padding token; key rows 40 elements apart from "
         "element 3 (N*D = 32: no two rows one copy), value rows dense from "
         "element 6 (consecutive slots one copy)", 632, "bf16", tokens=9,
         nct=((40, 3), (32, 6)), scatter="Nct", nb=3, bs=4,
         slots=[2, 3, 4, 5, -1, 6, 7, 8, 9])


def nhsd_cases(root):
    case(root, "nhsd_fp16", "NHSD [NB, N, BS, D], N=3 D=16", 640, "fp16",
         n=3, dk=16, scatter="NHSD", pad=0)
    case(root, "nhsd_bf16_dk_ne_dv_int64", "NHSD bf16, Dk=32 Dv=16, int64 "
         "slots", 641, "bf16", dk=32, dv=16, scatter="NHSD", pad=0,
         idx=np.int64)
    case(root, "nhsd_int8", "NHSD int8, D=32", 642, "int8", dk=32,
         scatter="NHSD", pad=0)


def nz_cases(root):
    case(root, "nz_fp16_4d", "PA_NZ 4-D [NB, N*D/16, BS, 16]", 650, "fp16",
         mode="PA_NZ", n=2, dk=32, bs=8)
    case(root, "nz_bf16_5d", "PA_NZ 5-D [NB, N, D/16, BS, 16] for both",
         651, "bf16", mode="PA_NZ", n=2, dk=32, bs=4, five=(True, True))
    case(root, "nz_int8_key_fp16_value", "PA_NZ: int8 key (C0 32, 5-D) and "
         "fp16 value (C0 16, 4-D), Dk=64 Dv=32, int64 slots", 652, "int8",
         "fp16", mode="PA_NZ", n=1, dk=64, dv=32, five=(True, False),
         idx=np.int64)
    case(root, "nz_fp4_e2m1_key_bf16_value", "PA_NZ: fp4_e2m1 key, 32 "
         "bytes = 64 codes per head (C0 32 packed pairs), bf16 value", 653,
         "fp4_e2m1", "bf16", mode="PA_NZ", n=2, dk=32, dv=16)
    case(root, "nz_fp32", "PA_NZ fp32 (C0 8), D=8", 654, "fp32",
         mode="PA_NZ", n=3, dk=8)
    # A prefill: runs of consecutive slots, which the NZ writer copies run
    # by run, cut by block ends and a padding token, then decode tokens.
    prefill = prefill_slots([2, 0, 3], 5, 30, 16, pad_at=[14],
                            tail=[20, 70])
    case(root, "nz_bf16_prefill", "PA_NZ 4-D bf16, N=2 D=32 BS=16: a "
         "prefill of 30 tokens from position 5 through block table [2, 0, "
         "3] (token 14 padding), then 2 decode tokens", 658, "bf16",
         mode="PA_NZ", tokens=len(prefill), n=2, dk=32, nb=5, bs=16,
         slots=prefill)
    case(root, "nz_hif8_key_e4m3_value", "PA_NZ: hif8 key, fp8_e4m3fn "
         "value, C0 32", 655, "hif8", "fp8_e4m3fn", mode="PA_NZ", n=1,
         dk=32)
    case(root, "nz_uint16_key_fp4_e1m2_value", "PA_NZ: uint16 key, "
         "fp4_e1m2 value (5-D)", 656, "uint16", "fp4_e1m2", mode="PA_NZ",
         n=2, dk=16, dv=32, five=(False, True))
    # torch_npu's default cache_mode is PA_NZ while the op's is Norm. A
    # cache [NB, 4, 4, 16] fp16 reads as ND [NB, BS=4, N=4, D=16] and as
    # NZ [NB, N*D/C0=4, BS=4, C0=16]: the call is accepted and writes NZ
    # bytes, which an ND reader sees as scrambled tokens. The expected
    # cache is what the NPU writes for this (wrong) call.
    case(root, "trap_torch_npu_default_pa_nz_into_nd_cache",
         "THE DEFAULT TRAP: an ND-shaped cache [2, 4, 4, 16] (BS=4, N=4, "
         "D=16) written with torch_npu's default cache_mode PA_NZ; the "
         "same shape is NZ [NB, N*D/16, BS, 16], so nothing refuses it and "
         "the cache receives NZ bytes (compare with norm: token rows are "
         "scrambled)", 657, "fp16", mode="PA_NZ", n=4, dk=16, nb=2, bs=4)


def pack(rng, counts, bs):
    """Start slots for runs of `counts` slots, in shuffled order with small
    gaps (runs cross block boundaries); returns (slots, num_blocks)."""
    slots = np.zeros(len(counts), np.int64)
    at = 0
    for i in rng.permutation(len(counts)):
        slots[i] = at
        at += int(counts[i]) + rng.randint(0, 3)
    return slots, -(-at // bs) + 1


def head_case(root, case_id, comment, seed, mode, tag, seq_lens, heads, dim,
              bs, lens, offs=None, idx=np.int32, skip=None, values=False,
              batch_rows=None):
    """A compressed-mode case: key/value [T, N, D], caches [NB, BS, 1, D],
    per-head slot_mapping / compress_lens (/ compress_seq_offset), seq_lens
    per batch. `skip` heads get slot -1. `values` draws finite numbers
    (Rope's mean) instead of raw bytes. `batch_rows` S gives the 950's
    per-batch form: key/value [B, S, N, D] (rows past seq_lens[b] are
    padding, drawn like the rest so that reading them shows), slot_mapping
    and compress_lens [B, N]."""
    rng = np.random.RandomState(seed)
    tokens = int(np.sum(seq_lens))
    shape = (tokens, heads, dim)
    if batch_rows is not None:
        shape = (len(seq_lens), batch_rows, heads, dim)
    if values:
        key = formats.encode(tag, rng.uniform(-4, 4, shape).astype(
            np.float32))
        value = formats.encode(tag, rng.uniform(-4, 4, shape).astype(
            np.float32))
    else:
        key, value = random_bytes(rng, tag, shape), random_bytes(rng, tag,
                                                                 shape)
    L = np.repeat(np.asarray(seq_lens, np.int64), heads)
    w = np.asarray(lens, np.int64)
    if mode == "Alibi":
        counts = w
    else:
        o = np.asarray(offs, np.int64)
        active = (o != -1) & (w != 0)
        counts = np.where(active, L - w + (mode == "Rope"), L)
    slots, nb = pack(rng, counts, bs)
    if skip is not None:
        slots[list(skip)] = -1
    kc = random_bytes(rng, tag, (nb, bs, 1, dim), nonzero=True)
    vc = random_bytes(rng, tag, (nb, bs, 1, dim), nonzero=True)
    itag = "int32" if idx == np.int32 else "int64"

    def ix(a):
        return T(np.asarray(a).astype(idx), itag)

    per_head = (-1,) if batch_rows is None else (len(seq_lens), heads)
    inputs = {"key": T(key, tag), "value": T(value, tag),
              "key_cache": T(kc, tag), "value_cache": T(vc, tag),
              "slot_mapping": ix(np.reshape(slots, per_head)),
              "compress_lens": ix(np.reshape(lens, per_head)),
              "seq_lens": ix(seq_lens)}
    if mode != "Alibi":
        inputs["compress_seq_offset"] = ix(offs)
    ekc, evc = compressed(key, value, kc, vc, np.reshape(slots, per_head),
                          mode, np.reshape(lens, per_head), seq_lens, offs,
                          tag)
    write_case(root, case_id, NAME, {"scatter_mode": mode}, inputs,
               {"key_cache": T(ekc, tag), "value_cache": T(evc, tag)},
               comment=comment)


def compressed_cases(root):
    head_case(root, "alibi_fp16", "Alibi (ATB KVHEAD): the last w tokens "
              "per head, w in {0, L, 1, 4}; runs cross blocks of 4", 670,
              "Alibi", "fp16", [9, 5], 2, 16, 4, [0, 9, 1, 4])
    head_case(root, "alibi_int8_int64_index", "Alibi int8, every index "
              "tensor int64, head 1 skipped (slot -1)", 671, "Alibi", "int8",
              [6, 7], 2, 32, 8, [3, 6, 7, 2], idx=np.int64, skip=[1])
    head_case(root, "alibi_uint32", "Alibi copies any copy dtype: uint32 "
              "D=8 (32-byte rows)", 672, "Alibi", "uint32", [5], 3, 8, 4,
              [2, 5, 1])
    head_case(root, "omni_bf16", "Omni: prefix [0,o) + suffix [o+w,L); "
              "o=-1 | w=0 | o=0 | o+w=L", 673, "Omni", "bf16", [10], 4, 16,
              4, [3, 0, 4, 5], [-1, 2, 0, 5])
    head_case(root, "omni_hif8_int64_index", "Omni hif8 (a byte copy), "
              "int64 indices", 674, "Omni", "hif8", [8, 6], 2, 32, 8,
              [2, 3, 1, 0], [1, 0, -1, 2], idx=np.int64)
    head_case(root, "rope_fp16", "Rope (ATB KVHEAD_ROPE): prefix, ONE "
              "binary32 mean of [o, o+w) (from +0 in token order, / float(w),"
              " RNE), suffix; o=-1 | w=L | o=2 w=5", 675, "Rope", "fp16",
              [10], 3, 16, 4, [4, 10, 5], [-1, 0, 2], values=True)
    head_case(root, "rope_bf16_int64_index", "Rope bf16, int64 indices, "
              "two batches, a skipped head", 676, "Rope", "bf16", [12, 7], 2,
              32, 8, [6, 3, 7, 2], [3, 0, 0, 5], idx=np.int64, skip=[3],
              values=True)
    # the 950's per-batch form (README scenario 3): key [B, S, N, D]
    head_case(root, "alibi_4d_key_fp16", "Alibi with the 950's 4-D key "
              "[B=2, S=8, N=2, D=16]: batch b's tokens are key[b, :L], rows "
              "past L padding; slot_mapping / compress_lens [B, N]; "
              "w in {0, L, 3, 5}", 677, "Alibi", "fp16", [6, 5], 2, 16, 4,
              [0, 6, 3, 5], batch_rows=8)
    head_case(root, "rope_4d_key_bf16_int64_index", "Rope with the 950's "
              "4-D key [B=2, S=9, N=2, D=16], int64 indices, one head "
              "skipped, A2's suffix [o+w, L) (the 950 kernels copy it from "
              "token 0: docs/scatter_pa_kv_cache.md)", 678, "Rope", "bf16",
              [7, 9], 2, 16, 4, [3, 2, 4, 9], [1, -1, 0, 0], idx=np.int64,
              skip=[1], values=True, batch_rows=9)
    head_case(root, "omni_4d_key_int8", "Omni with a 4-D key [B=3, S=5, "
              "N=1, D=32] int8", 679, "Omni", "int8", [5, 2, 4], 1, 32, 8,
              [2, 0, 1], [1, -1, 3], batch_rows=5)


def error_case(root, case_id, comment, tensor, attrs, inputs,
               status=161002):
    write_case(root, case_id, NAME, attrs, inputs, {}, comment=comment,
               expect_error={"status": status, "tensor": tensor})


def errors(root):
    rng = np.random.RandomState(690)
    key = random_bytes(rng, "fp16", (4, 2, 16))
    value = random_bytes(rng, "fp16", (4, 2, 16))
    kc = random_bytes(rng, "fp16", (2, 4, 2, 16), nonzero=True)
    vc = random_bytes(rng, "fp16", (2, 4, 2, 16), nonzero=True)
    base = {"key": T(key, "fp16"), "value": T(value, "fp16"),
            "key_cache": T(kc, "fp16"), "value_cache": T(vc, "fp16")}

    def i32(a):
        return T(np.asarray(a, dtype=np.int32), "int32")

    error_case(root, "error_duplicate_slots", "tokens 1 and 3 share slot 5",
               "slot_mapping", {}, dict(base, slot_mapping=i32([0, 5, -1, 5])))
    error_case(root, "error_slot_out_of_range", "slot 8 of an 8-slot cache",
               "slot_mapping", {}, dict(base, slot_mapping=i32([0, 8, 1, 2])))
    error_case(root, "error_int64_slot_past_int32",
               "int64 slot 2^32 + 1 (an int32 reader would see 1)",
               "slot_mapping", {},
               dict(base, slot_mapping=T(np.array([0, 2 ** 32 + 1, 2, 3],
                                                  dtype=np.int64), "int64")))
    nk = random_bytes(rng, "fp16", (2, 2, 4, 16), nonzero=True)
    error_case(root, "error_nhsd_negative_slot",
               "NHSD does not skip a negative slot (it would write before "
               "block 0)", "slot_mapping", {"scatter_mode": "NHSD"},
               dict(base, key_cache=T(nk, "fp16"),
                    value_cache=T(nk.copy(), "fp16"),
                    slot_mapping=i32([0, -1, 1, 2])))
    error_case(root, "error_value_without_cache",
               "value given, value_cache absent (aclnn's null-pointer "
               "check: 161001)", "value_cache", {},
               {"key": base["key"], "value": base["value"],
                "key_cache": base["key_cache"],
                "slot_mapping": i32([0, 1, 2, 3])}, status=161001)
    zc = random_bytes(rng, "fp16", (2, 2, 4, 16), nonzero=True)
    error_case(root, "error_key_only_pa_nz",
               "key-only calls take cache_mode Norm only", "value",
               {"cache_mode": "PA_NZ"},
               {"key": base["key"], "key_cache": T(zc, "fp16"),
                "slot_mapping": i32([0, 1, 2, 3])})
    error_case(root, "error_nct_past_storage",
               "Nct: token 3 at 3*40+0 needs 32 elements, the storage has "
               "150", "key", {"scatter_mode": "Nct", "strides": [40, 40],
                              "offsets": [0, 0]},
               dict(base, key=T(random_bytes(rng, "fp16", (150,)), "fp16"),
                    value=T(random_bytes(rng, "fp16", (200,)), "fp16"),
                    slot_mapping=i32([0, 1, 2, 3])))
    f4 = random_bytes(rng, "fp4_e2m1", (4, 2, 16))
    f4c = random_bytes(rng, "fp4_e2m1", (2, 4, 2, 16), nonzero=True)
    error_case(root, "error_fp4_key_only",
               "fp4 is copied only in PA_NZ and Norm / None with a value",
               "key", {}, {"key": T(f4, "fp4_e2m1"),
                           "key_cache": T(f4c, "fp4_e2m1"),
                           "slot_mapping": i32([0, 1, 2, 3])})
    error_case(root, "error_value_dtype_differs_in_norm",
               "Norm: value must have key's dtype (only PA_NZ lets them "
               "differ)", "value", {},
               dict(base, value=T(random_bytes(rng, "bf16", (4, 2, 16)),
                                  "bf16"),
                    value_cache=T(random_bytes(rng, "bf16", (2, 4, 2, 16),
                                               nonzero=True), "bf16"),
                    slot_mapping=i32([0, 1, 2, 3])))
    zc5 = random_bytes(rng, "fp16", (2, 2, 4, 16), nonzero=True)
    error_case(root, "error_nz_head_not_c0",
               "PA_NZ: D=8 fp16 is 16 bytes, not a multiple of 32", "key",
               {"cache_mode": "PA_NZ"},
               {"key": T(random_bytes(rng, "fp16", (4, 4, 8)), "fp16"),
                "value": T(random_bytes(rng, "fp16", (4, 4, 8)), "fp16"),
                "key_cache": T(zc5, "fp16"),
                "value_cache": T(zc5.copy(), "fp16"),
                "slot_mapping": i32([0, 1, 2, 3])})


def compressed_errors(root):
    rng = np.random.RandomState(695)
    key = random_bytes(rng, "fp16", (6, 2, 16))
    kc = random_bytes(rng, "fp16", (4, 4, 1, 16), nonzero=True)

    def i32(a):
        return T(np.asarray(a, dtype=np.int32), "int32")

    head = {"key": T(key, "fp16"), "value": T(key.copy(), "fp16"),
            "key_cache": T(kc, "fp16"), "value_cache": T(kc.copy(), "fp16"),
            "compress_lens": i32([2, 2]), "seq_lens": i32([6]),
            "compress_seq_offset": i32([1, 1])}
    error_case(root, "error_rope_runs_overlap",
               "Rope writes L-w+1 = 5 slots per head; slots 0 and 4 leave "
               "room for 4", "slot_mapping", {"scatter_mode": "Rope"},
               dict(head, slot_mapping=i32([0, 4])))
    error_case(root, "error_alibi_given_offset",
               "Alibi takes no compress_seq_offset", "compress_seq_offset",
               {"scatter_mode": "Alibi"},
               dict(head, slot_mapping=i32([0, 8])))
    error_case(root, "error_omni_index_dtypes_differ",
               "int64 slot_mapping with int32 compress_lens",
               "compress_lens", {"scatter_mode": "Omni"},
               dict(head, slot_mapping=T(np.array([0, 8], np.int64),
                                         "int64")))
    i8 = random_bytes(rng, "int8", (6, 2, 32))
    c8 = random_bytes(rng, "int8", (4, 4, 1, 32), nonzero=True)
    error_case(root, "error_rope_int8",
               "Rope's mean is fp16 / bf16 only (A2)", "key",
               {"scatter_mode": "Rope"},
               dict(head, key=T(i8, "int8"), value=T(i8.copy(), "int8"),
                    key_cache=T(c8, "int8"), value_cache=T(c8.copy(), "int8"),
                    slot_mapping=i32([0, 8])))
    error_case(root, "error_alibi_wins_past_seq_len",
               "compress_lens 7 > seq_lens 6", "compress_lens",
               {"scatter_mode": "Alibi"},
               {"key": head["key"], "value": head["value"],
                "key_cache": head["key_cache"],
                "value_cache": head["value_cache"],
                "compress_lens": i32([7, 2]), "seq_lens": i32([6]),
                "slot_mapping": i32([0, 8])})
    # the 950's per-batch key [B=2, S=3, N=2, D=16]
    k4 = T(key.reshape(2, 3, 2, 16), "fp16")
    batched = {"key": k4, "value": k4, "key_cache": head["key_cache"],
               "value_cache": head["value_cache"],
               "compress_lens": i32([[1, 2], [2, 1]]),
               "slot_mapping": i32([[0, 2], [4, 6]])}
    error_case(root, "error_4d_key_seq_lens_past_rows",
               "a 4-D key holds S=3 rows per batch; seq_lens 4 reads into "
               "the next batch's", "seq_lens", {"scatter_mode": "Alibi"},
               dict(batched, seq_lens=i32([2, 4])))
    error_case(root, "error_4d_key_flat_slot_mapping",
               "with a 4-D key, slot_mapping is [B, N], not [B*N]",
               "slot_mapping", {"scatter_mode": "Alibi"},
               dict(batched, seq_lens=i32([3, 3]),
                    slot_mapping=i32([0, 2, 4, 6])))
    error_case(root, "error_4d_key_batch_mismatch",
               "seq_lens has 3 batches, key's dim 0 says 2", "seq_lens",
               {"scatter_mode": "Alibi"},
               dict(batched, seq_lens=i32([3, 3, 3])))


def generate(root):
    norm_cases(root)
    compressed_cases(root)
    compressed_errors(root)
    nct_cases(root)
    nhsd_cases(root)
    nz_cases(root)
    errors(root)
