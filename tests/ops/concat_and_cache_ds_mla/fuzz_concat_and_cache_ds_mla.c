/*
 * tests/ops/concat_and_cache_ds_mla/fuzz_concat_and_cache_ds_mla.c - the
 * packed C8 MLA row's validation on fuzzed arguments
 * (docs/reliability.md).
 *
 * The input picks the preset (flashmla-model1 about 1 in 5), vLLM's
 * use_ue8m0 (half the vllm calls; now and then another preset's, refused),
 * a weird epsilon (1 in 16) or vLLM's scale tensor (1 in 16: one or two
 * float32, any values), the tokens (kv_c 2-D or 3-D), int32 / int64
 * slots, a 2-D [rows, 656] or 3-D [blocks, block_size, 656] cache and its
 * dtype - model1: its block_size attribute (1..4; 1 in 8 off by one,
 * refused) and a [num_blocks, block_bytes] cache, kv_c [..., 448] (1 in
 * 16 512, refused); then the shared perturbations of every tensor
 * (fuzz_util.h) and of each slot value (out of range, -1, -2, a
 * duplicate, INT64_MIN). Invariants: the shared driver's (refusals write
 * nothing; value errors name an input or slot_mapping); on success, with
 * the row maps of the header written out again here (not taken from the
 * library):
 *   - the bytes that changed lie in the written slots' rows (656 bytes at
 *     slot * 656; model1: the 576 bytes at b * block_bytes + r * 576 and
 *     the 7 scale bytes at b * block_bytes + block_size * 576 + r * 8, the
 *     8th, the pad, never written), and kvg_op_written_runs reports
 *     exactly those bytes;
 *   - the rope (vllm bytes 528..655, model1 448..575) is k_pe's row, bit
 *     for bit;
 *   - the power-of-two scales: vllm with use_ue8m0, each fp32 scale is
 *     2^k with k >= -13 (a zero mantissa, a biased exponent >= 114: the
 *     floor 1e-4 lies in (2^-14, 2^-13]); model1, each E8M0 byte in
 *     [114, 254];
 * and for every input, kvg_op_written_runs refuses exactly what the call
 * refuses (same status, tensor and message).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "kvgold/concat_and_cache_ds_mla.h"
#include "kvgold/op.h"

#define ROW 656
#define M1_NOPE 448
#define M1_ROW 576   /* [nope 448 | rope bf16 64] */
#define M1_TOKEN 584 /* + 7 E8M0 + 1 pad */
#define EXP_2_M13 114u /* the biased exponent of 2^-13, in fp32 and E8M0 */

typedef struct cfg {
    int ascend, model1, x3, cache3;
    int64_t scale; /* elements of vLLM's scale tensor, 0: none */
    int64_t tokens, bs, slots;
    int64_t nope; /* kv_c's last dim: 512, model1 448 (1 in 16 512) */
    kvg_dtype sdt, cdt;
} cfg;

typedef struct bufs {
    fz_buf *kv_c, *k_pe, *gamma, *cos, *sin, *slots, *cache, *scale;
    const kvg_concat_and_cache_ds_mla_args *a;
} bufs;

static const kvg_tensor *view(const fz_buf *b)
{
    return b != NULL ? b->view : NULL;
}

static double weird_double(fz_in *in)
{
    static const double w[6] = {NAN, INFINITY, 1e39, 0.0, -1.0, 1e-6};
    return w[fz_u8(in) % 6];
}

static void read_config(fz_in *in, cfg *c,
                        kvg_concat_and_cache_ds_mla_args *a)
{
    const uint8_t p = fz_u8(in), flags = fz_u8(in), e = fz_u8(in),
                  dt = fz_u8(in);

    memset(c, 0, sizeof *c);
    a->preset = p >= 0xF8   ? (kvg_ccdm_preset)(p % 5)
                : p >= 0xC0 ? KVG_CCDM_FLASHMLA_MODEL1
                            : (kvg_ccdm_preset)(p & 1);
    c->ascend = a->preset == KVG_CCDM_ASCEND_SFA_C8;
    c->model1 = a->preset == KVG_CCDM_FLASHMLA_MODEL1;
    /* vLLM's; another preset's now and then (refused naming it) */
    a->use_ue8m0 = (flags & 8) && (a->preset == KVG_CCDM_VLLM_FP8_DS_MLA ||
                                   (flags & 0x30) == 0x10);
    if (e >= 0xF0)
        a->epsilon = weird_double(in);
    else if (e >= 0xE0)
        c->scale = 1 + (e & 1); /* two elements: refused */
    else if (c->ascend && (e & 1))
        a->epsilon = 1e-6;
    if ((flags & 0xC0) == 0xC0)
        a->reduce_order = (kvg_reduce_order)(fz_u8(in) % 6);
    c->x3 = (flags & 1) != 0;
    c->sdt = (flags & 2) || a->preset == KVG_CCDM_VLLM_FP8_DS_MLA
                 ? KVG_INT64
                 : KVG_INT32;
    if ((flags & 0x30) == 0x30)
        c->sdt = KVG_INT32; /* vllm refuses it */
    c->cache3 = (flags & 4) != 0;
    c->tokens = 1 + fz_u8(in) % 8;
    if (c->x3 && c->tokens % 2)
        c->tokens++;
    c->bs = c->cache3 || c->model1 ? 1 + fz_u8(in) % 4 : 1;
    if (c->model1) /* 1 in 8 an attribute the cache does not fit */
        a->block_size = (dt & 0x0E) == 0x0E ? c->bs + 1 : c->bs;
    c->slots = (c->tokens + fz_u8(in) % 4 + c->bs - 1) / c->bs * c->bs;
    c->nope = c->model1 && (dt & 0xF0) != 0x70 ? M1_NOPE : 512;
    c->cdt = dt >= 0xF0 ? (kvg_dtype)(dt % 16)
             : dt & 1   ? KVG_FP8_E4M3FN
             : c->ascend ? KVG_INT8
                         : KVG_UINT8;
}

/* model1's bytes a block: block_size tokens of 584, padded to 576
 * (FlashMLA tests/quant.py:57, size_per_block_padded). */
static int64_t m1_block_bytes(int64_t bs)
{
    return (bs * M1_TOKEN + M1_ROW - 1) / M1_ROW * M1_ROW;
}

static void make_tensors(fz_pool *p, fz_in *in, const cfg *c, bufs *k)
{
    int64_t sh[3], ps[3];
    const int r = c->x3 ? 3 : 2;
    const int64_t gs[1] = {512};

    if (c->x3)
        sh[0] = ps[0] = 2, sh[1] = ps[1] = c->tokens / 2;
    else
        sh[0] = ps[0] = c->tokens;
    sh[r - 1] = c->nope, ps[r - 1] = 64;
    k->kv_c = fz_tensor(p, in, "kv_c", FZ_INPUT, KVG_BF16, r, sh);
    k->k_pe = fz_tensor(p, in, "k_pe", FZ_INPUT, KVG_BF16, r, ps);
    if (c->ascend) {
        k->gamma = fz_tensor(p, in, "gamma", FZ_INPUT, KVG_BF16, 1, gs);
        k->cos = fz_tensor(p, in, "cos", FZ_INPUT, KVG_BF16, r, ps);
        k->sin = fz_tensor(p, in, "sin", FZ_INPUT, KVG_BF16, r, ps);
    }
    k->slots = fz_tensor(p, in, "slot_mapping", FZ_INPUT, c->sdt, r - 1, sh);
    if (c->model1)
        sh[0] = c->slots / c->bs, sh[1] = m1_block_bytes(c->bs);
    else if (c->cache3)
        sh[0] = c->slots / c->bs, sh[1] = c->bs, sh[2] = ROW;
    else
        sh[0] = c->slots, sh[1] = ROW;
    k->cache = fz_tensor(p, in, "kv_cache", FZ_CACHE, c->cdt,
                         c->cache3 && !c->model1 ? 3 : 2, sh);
    if (c->scale > 0) /* any values: the kernel never reads them */
        k->scale = fz_tensor(p, in, "scale", FZ_INPUT, KVG_FP32, 1,
                             &c->scale);
}

static int64_t perturb(fz_in *in, const cfg *c, const fz_buf *ix, int64_t i,
                       int64_t v)
{
    const uint8_t f = fz_u8(in);
    int64_t prev;

    if (f < 0xC0)
        return v;
    switch (f % 6) {
    case 0: return c->slots;
    case 1: return -2;
    case 2: return i > 0 && fz_index_get(ix, i - 1, &prev) ? prev : v;
    case 3: return fz_weird(in);
    case 4: return INT64_MIN;
    default: return -1;
    }
}

/* Distinct slots (a shuffle of [0, slots)), 1 in 5 skipped (-1: both
 * presets skip a negative slot, vLLM's pads and vllm-ascend's). */
static void make_slots(fz_pool *p, fz_in *in, const cfg *c, fz_buf *ix)
{
    int64_t perm[64], i, j, n = c->slots < 64 ? c->slots : 64;

    for (i = 0; i < n; i++)
        perm[i] = i;
    for (i = n - 1; i > 0; i--) {
        const int64_t k = (int64_t)fz_below(&p->rng, (uint64_t)(i + 1));
        const int64_t t = perm[i];
        perm[i] = perm[k], perm[k] = t;
    }
    for (i = 0; i < c->tokens; i++) {
        j = i < n ? perm[i] : -1;
        if (fz_below(&p->rng, 5) == 0)
            j = -1;
        fz_index_set(ix, i, perturb(in, c, ix, i, j));
    }
}

/* ---- the generic API on the same call ----------------------------------- */

typedef struct gcall {
    kvg_named_tensor t[8];
    kvg_value v[5];
    kvg_op_call call;
} gcall;

static void add(gcall *g, size_t *n, const char *name, const kvg_tensor *t)
{
    if (t != NULL)
        g->t[*n].name = name, g->t[(*n)++].tensor = t;
}

static void generic(gcall *g, const kvg_concat_and_cache_ds_mla_args *a)
{
    const char *preset = a->preset == KVG_CCDM_ASCEND_SFA_C8 ? "ascend-sfa-c8"
                         : a->preset == KVG_CCDM_VLLM_FP8_DS_MLA
                             ? "vllm-fp8_ds_mla"
                         : a->preset == KVG_CCDM_FLASHMLA_MODEL1
                             ? "flashmla-model1"
                             : "bogus";
    const char *order = kvg_reduce_order_name(a->reduce_order);
    const kvg_value v[5] = {
        KVG_VALUE_STR("preset", preset),
        KVG_VALUE_F64("epsilon", a->epsilon),
        KVG_VALUE_STR("reduce_order", order ? order : "bogus"),
        KVG_VALUE_I64("block_size", a->block_size),
        KVG_VALUE_BOOLEAN("use_ue8m0", a->use_ue8m0 != 0)};
    size_t n = 0;

    memcpy(g->v, v, sizeof v);
    kvg_op_call_init(&g->call, kvg_op_find("concat_and_cache_ds_mla"));
    FZ_CHECK(g->call.op != NULL, "concat_and_cache_ds_mla not registered");
    add(g, &n, "kv_c", a->kv_c);
    add(g, &n, "k_pe", a->k_pe);
    add(g, &n, "gamma", a->gamma);
    add(g, &n, "cos", a->cos);
    add(g, &n, "sin", a->sin);
    add(g, &n, "slot_mapping", a->slot_mapping);
    add(g, &n, "kv_cache", a->kv_cache);
    add(g, &n, "scale", a->scale);
    g->call.tensors = g->t;
    g->call.tensor_count = n;
    g->call.attrs = g->v;
    g->call.attr_count = 5;
}

static void mark_runs(const bufs *k, unsigned char *mask, size_t size)
{
    gcall g;
    kvg_diag diag;
    kvg_elem_run *runs;
    size_t bytes = 0, cap = 0, n = 0, i;
    int produced = 0;

    generic(&g, k->a);
    FZ_CHECK(kvg_op_workspace_size(&g.call, &bytes, &diag) == KVG_OK,
             diag.message);
    g.call.workspace = fz_alloc(bytes, 3);
    g.call.workspace_size = bytes;
    FZ_CHECK(kvg_op_written_runs(&g.call, "kv_cache", &produced, NULL, 0,
                                 &cap, &diag) == KVG_OK, diag.message);
    runs = (kvg_elem_run *)malloc((cap ? cap : 1) * sizeof *runs);
    if (runs == NULL)
        abort();
    FZ_CHECK(kvg_op_written_runs(&g.call, "kv_cache", &produced, runs, cap,
                                 &n, &diag) == KVG_OK, diag.message);
    FZ_CHECK(produced == 1 && n <= cap, "cache runs");
    for (i = 0; i < n; i++) {
        FZ_CHECK(runs[i].first >= 0 && runs[i].count > 0 &&
                     (uint64_t)runs[i].first <= size &&
                     (uint64_t)runs[i].count <= size - (size_t)runs[i].first,
                 "a run outside the cache");
        memset(mask + runs[i].first, 1, (size_t)runs[i].count);
    }
    free(runs);
    free(g.call.workspace);
}

/* Where slot s's bytes are (the header's row maps): its row at *row
 * (rope at *rope), its scales at *scales, `bytes` of them; -1 where the
 * cache is too small. */
typedef struct slot_at {
    int64_t row, row_bytes, rope, scales, scale_bytes;
} slot_at;

static void slot_place(const kvg_concat_and_cache_ds_mla_args *a,
                       int64_t s, slot_at *at)
{
    if (a->preset != KVG_CCDM_FLASHMLA_MODEL1) {
        at->row = s * ROW, at->row_bytes = ROW;
        at->rope = at->row + 528;
        at->scales = at->row + 512, at->scale_bytes = 16; /* vllm's */
        return;
    }
    {
        const int64_t bs = a->block_size, b = s / bs, r = s % bs;
        const int64_t base = b * a->kv_cache->shape[1];

        at->row = base + r * M1_ROW, at->row_bytes = M1_ROW;
        at->rope = at->row + M1_NOPE;
        at->scales = base + bs * M1_ROW + r * 8, at->scale_bytes = 7;
    }
}

/* The power-of-two scales: fp32 2^k (vllm use_ue8m0) or E8M0 bytes
 * (model1), k >= -13. */
static void check_pow2_scales(const kvg_concat_and_cache_ds_mla_args *a,
                              const unsigned char *sc)
{
    int j;

    if (a->preset == KVG_CCDM_FLASHMLA_MODEL1) {
        for (j = 0; j < 7; j++)
            FZ_CHECK(sc[j] >= EXP_2_M13 && sc[j] != 0xFF,
                     "a model1 scale byte below 2^-13 or NaN");
        return;
    }
    for (j = 0; j < 4; j++) {
        const uint32_t u = (uint32_t)sc[4 * j] |
                           (uint32_t)sc[4 * j + 1] << 8 |
                           (uint32_t)sc[4 * j + 2] << 16 |
                           (uint32_t)sc[4 * j + 3] << 24;
        FZ_CHECK((u & 0x807FFFFFu) == 0 && (u >> 23) >= EXP_2_M13 &&
                     (u >> 23) < 0xFF,
                 "a use_ue8m0 scale not a power of two >= 2^-13");
    }
}

static void on_success(void *ctx)
{
    const bufs *k = (const bufs *)ctx;
    const kvg_concat_and_cache_ds_mla_args *a = k->a;
    const int64_t tokens = (int64_t)(a->slot_mapping->nbytes /
                                     kvg_dtype_size(a->slot_mapping->dtype));
    const int m1 = a->preset == KVG_CCDM_FLASHMLA_MODEL1;
    const size_t size = k->cache->size;
    unsigned char *want = (unsigned char *)calloc(size + 1, 1);
    unsigned char *runs = (unsigned char *)calloc(size + 1, 1);
    int64_t t, s;
    slot_at at;
    size_t i;

    if (want == NULL || runs == NULL)
        abort();
    for (t = 0; t < tokens; t++) {
        FZ_CHECK(fz_index_get(k->slots, t, &s), "slot_mapping read");
        if (s < 0)
            continue; /* skipped: its row must be nowhere below */
        slot_place(a, s, &at);
        FZ_CHECK((uint64_t)(at.row + at.row_bytes) <= size &&
                     (uint64_t)(at.scales + at.scale_bytes) <= size,
                 "a slot past the cache");
        memset(want + at.row, 1, (size_t)at.row_bytes);
        if (m1)
            memset(want + at.scales, 1, (size_t)at.scale_bytes);
        if (a->preset != KVG_CCDM_ASCEND_SFA_C8)
            FZ_CHECK(memcmp(k->cache->mem + at.rope,
                            k->k_pe->mem + t * 128, 128) == 0,
                     "the rope is not k_pe's row");
        if (m1 || a->use_ue8m0)
            check_pow2_scales(a, k->cache->mem + at.scales);
    }
    for (i = 0; i < size; i++)
        FZ_CHECK(want[i] || k->cache->mem[i] == k->cache->snap[i],
                 "a cache byte outside the written slots' rows changed");
    mark_runs(k, runs, size);
    FZ_CHECK(memcmp(want, runs, size) == 0,
             "kvg_op_written_runs differs from the written slots' rows");
    free(want);
    free(runs);
}

/* kvg_op_written_runs validates as the call does: the same refusal. */
static void same_refusal(const kvg_concat_and_cache_ds_mla_args *typed)
{
    kvg_concat_and_cache_ds_mla_args a = *typed;
    gcall g;
    kvg_diag d1, d2;
    kvg_status s1, s2;
    size_t bytes = 0, cap = 0;
    int produced = 0;

    if ((unsigned)a.preset > 2u ||
        kvg_reduce_order_name(a.reduce_order) == NULL)
        return; /* not expressible as case values: refused by name there */
    if (kvg_concat_and_cache_ds_mla_workspace_size(&a, &bytes, &d1) !=
        KVG_OK)
        bytes = 64;
    a.workspace = fz_alloc(bytes, 5);
    a.workspace_size = bytes;
    generic(&g, &a);
    g.call.workspace = a.workspace;
    g.call.workspace_size = bytes;
    s1 = kvg_op_written_runs(&g.call, "kv_cache", &produced, NULL, 0, &cap,
                             &d1);
    s2 = kvg_concat_and_cache_ds_mla(&a, &d2);
    if (a.kv_c != NULL && a.k_pe != NULL && a.slot_mapping != NULL &&
        a.kv_cache != NULL &&
        (a.preset != KVG_CCDM_ASCEND_SFA_C8 ||
         (a.gamma != NULL && a.cos != NULL && a.sin != NULL)))
        FZ_CHECK(s1 == s2, d2.message);
    if (s1 != KVG_OK && s1 == s2) {
        FZ_CHECK(strcmp(d1.tensor, d2.tensor) == 0, d1.message);
        FZ_CHECK(strcmp(d1.message, d2.message) == 0, d1.message);
    }
    free(a.workspace);
}

static kvg_status op_size(const void *a, size_t *bytes, kvg_diag *diag)
{
    return kvg_concat_and_cache_ds_mla_workspace_size(
        (const kvg_concat_and_cache_ds_mla_args *)a, bytes, diag);
}

static kvg_status op_call(const void *a, kvg_diag *diag)
{
    return kvg_concat_and_cache_ds_mla(
        (const kvg_concat_and_cache_ds_mla_args *)a, diag);
}

static void op_ws(void *a, void *ws, size_t size)
{
    ((kvg_concat_and_cache_ds_mla_args *)a)->workspace = ws;
    ((kvg_concat_and_cache_ds_mla_args *)a)->workspace_size = size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const value_names[] = {
        "kv_c", "k_pe", "gamma", "cos", "sin", "slot_mapping", NULL};
    fz_in in;
    fz_pool pool;
    cfg c;
    bufs k;
    fz_op op;
    kvg_concat_and_cache_ds_mla_args a;
    uint8_t vmode;

    fz_in_init(&in, data, size);
    vmode = fz_u8(&in);
    fz_pool_init(&pool, fz_u64(&in), (fz_values)(vmode % 3));
    kvg_concat_and_cache_ds_mla_args_init(&a);
    read_config(&in, &c, &a);
    memset(&k, 0, sizeof k);
    k.a = &a;
    make_tensors(&pool, &in, &c, &k);
    make_slots(&pool, &in, &c, k.slots);
    a.kv_c = view(k.kv_c), a.k_pe = view(k.k_pe), a.gamma = view(k.gamma);
    a.cos = view(k.cos), a.sin = view(k.sin);
    a.slot_mapping = view(k.slots), a.kv_cache = view(k.cache);
    a.scale = view(k.scale);
    op.size = op_size, op.call = op_call, op.set_workspace = op_ws;
    op.on_success = on_success, op.ctx = &k, op.value_tensors = value_names;
    fz_drive(&pool, &in, &op, &a);
    same_refusal(&a);
    fz_pool_free(&pool);
    return 0;
}
