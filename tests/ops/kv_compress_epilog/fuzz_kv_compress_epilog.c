/*
 * tests/ops/kv_compress_epilog/fuzz_kv_compress_epilog.c -
 * KvCompressEpilog's validation on fuzzed arguments (docs/reliability.md).
 *
 * The input picks the implementation, its quant_mode, group size, layout,
 * round_scale, x_scale and block_stride (mostly among the valid ones,
 * 1 in 16 a weird value), d, the tokens (x 2-D or 3-D), int32 / int64
 * slots, a 2-D or 4-D cache of the preset's row length (sometimes wider)
 * and its dtype; then the shared perturbations of every tensor
 * (fuzz_util.h) and of each slot value (out of range, -2, a duplicate,
 * outside int32, INT64_MIN). Invariants: the shared driver's (refusals
 * write nothing; value errors name x or slot_mapping); and on success,
 * checked against the row lengths of the header's preset table (written
 * out again here, not taken from the library):
 *   - the bytes that changed lie in the rows of the written slots, and
 *     kvg_op_written_runs reports exactly those rows' bytes;
 *   - a bf16 rope the preset copies is x's last 64 columns, bit for bit,
 *     and the pad bytes of a written row are zero;
 * and for every input, kvg_op_written_runs refuses exactly what the call
 * refuses (same status, tensor and message).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "kvgold/kv_compress_epilog.h"
#include "kvgold/op.h"

#define ROPE 64 /* the v1 family's rope columns */

/* The row of one preset (kvgold/kv_compress_epilog.h's table). */
typedef struct row_geom {
    int64_t content; /* region 0's written bytes before the pad */
    int64_t natural; /* region 0's bytes a slot, pad included */
    int64_t rope;    /* offset of the bf16 rope copy in region 0, or -1 */
    int64_t scales;  /* block-major: the scale bytes a slot (0: none) */
    int64_t sstride; /* ... padded to 8 */
    int packed;      /* cr_v2 layout 2: tokens packed inside a block */
} row_geom;

static int64_t up(int64_t n, int64_t a)
{
    return (n + a - 1) / a * a;
}

static int64_t ceil_div(int64_t n, int64_t g)
{
    return n / g + (n % g != 0);
}

/* The group a preset uses: the attribute or the default, fixed where the
 * kernel ignores the attribute. */
static int64_t group_of(kvg_kce_impl impl, int64_t mode, int64_t attr)
{
    switch (impl) {
    case KVG_KCE_OT:
        return mode == 2 ? (attr ? attr : 64) : 64;
    case KVG_KCE_CR:
        return mode == 1 ? 128 : 64;
    case KVG_KCE_CR_V2:
        return attr ? attr : 32;
    default:
        return mode == 1 ? 128 : (attr ? attr : 128);
    }
}

static void geom_v1(kvg_kce_impl impl, int64_t mode, int64_t g, int64_t d,
                    int64_t layout, row_geom *r)
{
    const int64_t nope = d - ROPE, n = ceil_div(nope, g);

    if (impl == KVG_KCE_OT) {
        r->content = mode == 2 ? 64 + nope / 2 + 2 * (nope / g)
                               : 128 + nope + (mode == 0 ? 2 : 1) * n;
        r->natural = mode == 1 ? r->content : up(r->content, 32);
        r->rope = mode == 2 ? -1 : 0;
    } else if (impl == KVG_KCE_CR && mode == 3) {
        r->content = r->natural = d;
        r->rope = -1;
    } else if (mode == 1) {
        r->content = nope + 128 + 4 * n;
        r->natural = up(r->content, 128);
        r->rope = nope;
    } else if (layout == 2) { /* block-major: values, then scales */
        r->content = r->natural = nope + 128;
        r->rope = nope;
        r->scales = n;
        r->sstride = up(n, 8);
    } else {
        r->content = 128 + nope + n;
        r->natural = up(r->content, 128);
        r->rope = 0;
    }
}

static void geom_of(kvg_kce_impl impl, int64_t mode, int64_t g, int64_t d,
                    int64_t layout, row_geom *r)
{
    memset(r, 0, sizeof *r);
    if (impl != KVG_KCE_CR_V2) {
        geom_v1(impl, mode, g, d, layout, r);
        return;
    }
    r->content = mode == 2 ? d + 2 * (d / 32) : d / 2 + 2 * (d / g);
    r->packed = layout == 2;
    r->natural = r->packed ? r->content : up(r->content, 32);
    r->rope = -1;
}

/* ---- the call, read from the input ---------------------------------- */

typedef struct kcfg {
    kvg_kce_impl impl;
    int64_t mode, g, d, layout, tokens, bs, slots, width;
    int x3, cache4;
    kvg_dtype sdt, cdt;
} kcfg;

/* 1 in 16 a weird value, else valid[c % n]. */
static int64_t choose(fz_in *in, const int64_t *valid, int n)
{
    const uint8_t c = fz_u8(in);
    return c >= 0xF0 ? fz_weird(in) : valid[c % n];
}

static void read_mode(fz_in *in, kcfg *c, kvg_kv_compress_epilog_args *a)
{
    static const int64_t modes[5][3] = {
        {1, 0, 2}, {1, 2, 2}, {1, 2, 2}, {1, 2, 3}, {2, 4, 4}};
    static const int64_t groups[5][3] = {
        {0, 16, 32}, {0, 64, 128}, {0, 64, 128}, {0, 0, 0}, {0, 16, 32}};
    static const int64_t layouts[2] = {1, 2};
    const int two = (c->impl == KVG_KCE_SGK || c->impl == KVG_KCE_VA ||
                     c->impl == KVG_KCE_CR_V2);

    a->quant_mode = choose(in, modes[c->impl], 3);
    a->quant_group_size = choose(in, groups[c->impl], 3);
    a->layout = choose(in, layouts, two ? 2 : 1);
    if (c->impl != KVG_KCE_CR_V2 && a->quant_mode == 1 && a->layout == 2)
        a->layout = 1; /* sgk / va mode 1 has layout 1 only */
    c->mode = a->quant_mode;
    c->layout = a->layout;
    c->g = group_of(c->impl, c->mode, a->quant_group_size);
}

/* x_scale: ot and cr have one (cr's `scale`), the others take 1.0. */
static double read_x_scale(fz_in *in, kvg_kce_impl impl)
{
    static const double own[5] = {1.0, 0.5, 3.0, -2.0, 0.125};
    static const double weird[6] = {2.0, NAN, INFINITY, 1e39, 0.0, -1.0};
    const uint8_t c = fz_u8(in);

    if (c >= 0xF0)
        return weird[c % 6];
    return impl == KVG_KCE_OT || impl == KVG_KCE_CR ? own[c % 5] : 1.0;
}

/* d: the v1 family 64 < d, d % 64 == 0 (the nope's last group short when
 * 128 does not divide d - 64); cr_v2 a multiple of its group; 1 in 8 a
 * DeepSeek-V4 576 or a border. */
static int64_t read_d(fz_in *in, const kcfg *c)
{
    static const int64_t border[6] = {576, 64, 96, 8192, 8256, 48};
    const uint8_t b = fz_u8(in);

    if (b >= 0xE0)
        return border[b % 6];
    if (c->impl == KVG_KCE_CR_V2)
        return (c->g > 0 && c->g <= 64 ? c->g : 32) * (1 + b % 10);
    return 64 * (2 + b % 4);
}

static kvg_dtype natural_cache_dtype(const kcfg *c, int e5m2)
{
    const kvg_dtype fp8 = e5m2 ? KVG_FP8_E5M2 : KVG_FP8_E4M3FN;

    switch (c->impl) {
    case KVG_KCE_OT:
        return KVG_UINT8;
    case KVG_KCE_CR:
        return c->mode == 3 ? KVG_UINT8 : fp8;
    case KVG_KCE_CR_V2:
        return c->mode == 4 ? KVG_UINT8 : fp8;
    default:
        return fp8;
    }
}

/* The cache's shape: slots = blocks * block_size >= tokens; block_size 1
 * where a layout-1 kernel strides rows by the cache's dim 0; rows the
 * preset's length, wider by one byte where the kernel allows it. */
static void read_cache(fz_in *in, kcfg *c, kvg_kv_compress_epilog_args *a,
                       uint8_t flags)
{
    const int sv = c->impl == KVG_KCE_SGK || c->impl == KVG_KCE_VA;
    const uint8_t bsb = fz_u8(in), extra = fz_u8(in), dt = fz_u8(in);
    const int64_t g = c->g > 0 && c->g <= 8192 ? c->g : 64;
    const int64_t d = c->d > 0 && c->d <= 8256 ? c->d : 128;
    row_geom r;

    c->cache4 = c->layout == 2 || (c->impl != KVG_KCE_CR_V2 && (flags & 8));
    c->bs = c->cache4 ? 1 + bsb % 6 : 1;
    if (sv && c->layout != 2)
        c->bs = 1;
    c->slots = up(c->tokens + extra % 5, c->bs);
    geom_of(c->impl, c->mode, g, d, c->layout, &r);
    c->width = r.natural + r.sstride;
    if ((flags & 16) && c->impl != KVG_KCE_CR &&
        (c->impl != KVG_KCE_VA || c->layout == 2 || (flags & 32)))
        c->width += 1 + (flags >> 6);
    if ((flags & 32) && (c->impl == KVG_KCE_VA || c->impl == KVG_KCE_CR_V2))
        a->block_stride = c->bs * c->width; /* the natural stride, named */
    c->cdt = dt >= 0xF0 ? (kvg_dtype)(dt % 16)
                        : natural_cache_dtype(c, dt & 1);
}

static void read_config(fz_in *in, kcfg *c, kvg_kv_compress_epilog_args *a)
{
    uint8_t flags;

    memset(c, 0, sizeof *c);
    c->impl = (kvg_kce_impl)(fz_u8(in) % 5);
    a->impl = c->impl;
    read_mode(in, c, a);
    flags = fz_u8(in);
    /* round_scale false, true, or (1 in 4 of the false ones) 2 */
    a->round_scale = (flags & 0xC1) == 0xC1 ? 2 : !(flags & 1);
    c->x3 = (flags & 2) != 0;
    c->sdt = (flags & 4) ? KVG_INT64 : KVG_INT32;
    a->x_scale = read_x_scale(in, c->impl);
    c->d = read_d(in, c);
    c->tokens = 1 + fz_u8(in) % 12;
    if (c->x3 && c->tokens % 2)
        c->tokens++;
    read_cache(in, c, a, flags);
    {
        const uint8_t b = fz_u8(in); /* a weird block_stride */
        if (b >= 0xF0)
            a->block_stride = fz_weird(in);
    }
}

/* ---- the tensors ------------------------------------------------------ */

typedef struct kbufs {
    fz_buf *x, *slots, *cache;
    const kvg_kv_compress_epilog_args *a;
} kbufs;

static const kvg_tensor *view(const fz_buf *b)
{
    return b != NULL ? b->view : NULL;
}

static void make_tensors(fz_pool *p, fz_in *in, const kcfg *c, kbufs *k)
{
    int64_t sh[4];

    if (c->x3)
        sh[0] = 2, sh[1] = c->tokens / 2, sh[2] = c->d;
    else
        sh[0] = c->tokens, sh[1] = c->d;
    k->x = fz_tensor(p, in, "x", FZ_INPUT, KVG_BF16, c->x3 ? 3 : 2, sh);
    k->slots = fz_tensor(p, in, "slot_mapping", FZ_INPUT, c->sdt,
                         c->x3 ? 2 : 1, sh);
    if (c->cache4)
        sh[0] = c->slots / c->bs, sh[1] = c->bs, sh[2] = 1, sh[3] = c->width;
    else
        sh[0] = c->slots, sh[1] = c->width;
    k->cache = fz_tensor(p, in, "cache", FZ_CACHE, c->cdt,
                         c->cache4 ? 4 : 2, sh);
}

/* A perturbation of one slot value, by input byte. */
static int64_t perturb(fz_in *in, const kcfg *c, const fz_buf *ix,
                       int64_t i, int64_t v)
{
    const uint8_t f = fz_u8(in);
    int64_t prev;

    if (f < 0xC0)
        return v;
    switch (f % 8) {
    case 0: return c->slots;
    case 1: return -2;
    case 2: return i > 0 && fz_index_get(ix, i - 1, &prev) ? prev : v;
    case 3: return fz_weird(in);
    case 4: return (int64_t)INT32_MAX + 1 + c->slots;
    case 5: return c->slots - 1;
    case 6: return INT64_MIN;
    default: return -1;
    }
}

/* Distinct slots (a shuffle of [0, slots)), 1 in 5 skipped (-1), each
 * open to one perturbation. */
static void make_slots(fz_pool *p, fz_in *in, const kcfg *c, fz_buf *ix)
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

/* ---- after a success ---------------------------------------------------- */

/* Which bytes of the cache slot s's row covers (from the call's views,
 * which a successful call has found consistent), marked in `mask`. */
static void mark_slot(unsigned char *mask, const row_geom *r, int64_t s,
                      int64_t bs, int64_t width)
{
    const int64_t b = s / bs, j = s % bs, base = b * bs * width;

    if (r->scales > 0) {
        memset(mask + base + j * r->natural, 1, (size_t)r->natural);
        memset(mask + base + bs * r->natural + j * r->sstride, 1,
               (size_t)r->sstride);
    } else if (r->packed) {
        memset(mask + base + j * r->natural, 1, (size_t)r->natural);
    } else {
        memset(mask + s * width, 1, (size_t)r->natural);
    }
}

/* Slot s is written: ot / sgk / va / cr refuse anything but -1 outside
 * the cache (so a successful call has no other), cr_v2 skips it. */
static int kept(int64_t s, int64_t slots)
{
    return s >= 0 && s < slots;
}

/* The written row's rope (x's last 64 columns, bf16 bytes) and pad. */
static void check_row(const kbufs *k, const row_geom *r, int64_t t,
                      int64_t s)
{
    const kvg_tensor *x = k->a->x, *cache = k->a->cache;
    const int64_t d = x->shape[x->rank - 1];
    const int64_t width = cache->shape[cache->rank - 1];
    const int64_t bs = cache->rank == 4 ? cache->shape[1] : 1;
    const int64_t at = r->scales > 0 || r->packed
                           ? s / bs * bs * width + s % bs * r->natural
                           : s * width;
    const unsigned char *row = k->cache->mem + at;
    int64_t i;

    if (r->rope >= 0)
        FZ_CHECK(memcmp(row + r->rope, k->x->mem + (t * d + d - ROPE) * 2,
                        2 * ROPE) == 0,
                 "the rope is not x's last 64 columns");
    for (i = r->content; i < r->natural; i++)
        FZ_CHECK(row[i] == 0, "a pad byte of a written row is not zero");
}

/* The runs kvg_op_written_runs reports for the cache, marked in `mask`. */
static void mark_runs(const kbufs *k, unsigned char *mask, size_t size);

static void on_success(void *ctx)
{
    const kbufs *k = (const kbufs *)ctx;
    const kvg_kv_compress_epilog_args *a = k->a;
    const kvg_tensor *x = a->x, *cache = a->cache;
    const int64_t d = x->shape[x->rank - 1];
    const int64_t width = cache->shape[cache->rank - 1];
    const int64_t bs = cache->rank == 4 ? cache->shape[1] : 1;
    const int64_t slots = cache->shape[0] * bs;
    const int64_t tokens = (int64_t)(a->slot_mapping->nbytes /
                                     kvg_dtype_size(a->slot_mapping->dtype));
    const size_t size = k->cache->size;
    unsigned char *want = (unsigned char *)calloc(size + 1, 1);
    unsigned char *runs = (unsigned char *)calloc(size + 1, 1);
    row_geom r;
    int64_t t, s;
    size_t i;

    if (want == NULL || runs == NULL)
        abort();
    geom_of(a->impl, a->quant_mode,
            group_of(a->impl, a->quant_mode, a->quant_group_size), d,
            a->layout, &r);
    for (t = 0; t < tokens; t++) {
        FZ_CHECK(fz_index_get(k->slots, t, &s), "slot_mapping read");
        if (!kept(s, slots))
            continue;
        mark_slot(want, &r, s, bs, width);
        check_row(k, &r, t, s);
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

/* ---- the generic API on the same call ----------------------------------- */

typedef struct gcall {
    kvg_named_tensor t[3];
    kvg_value v[7];
    kvg_op_call call;
} gcall;

static const char *impl_name(kvg_kce_impl impl)
{
    static const char *const names[5] = {"ot", "sgk", "va", "cr", "cr_v2"};
    return (unsigned)impl < 5u ? names[impl] : "bogus";
}

/* The typed call as a kvg_op_call (names, values). */
static void generic(gcall *g, const kvg_kv_compress_epilog_args *a)
{
    const kvg_value v[7] = {
        KVG_VALUE_STR("impl", impl_name(a->impl)),
        KVG_VALUE_I64("quant_mode", a->quant_mode),
        KVG_VALUE_I64("quant_group_size", a->quant_group_size),
        KVG_VALUE_BOOLEAN("round_scale", a->round_scale),
        KVG_VALUE_F64("x_scale", a->x_scale),
        KVG_VALUE_I64("layout", a->layout),
        KVG_VALUE_I64("block_stride", a->block_stride)};
    size_t n = 0;

    memcpy(g->v, v, sizeof v);
    kvg_op_call_init(&g->call, kvg_op_find("kv_compress_epilog"));
    FZ_CHECK(g->call.op != NULL, "kv_compress_epilog not registered");
    if (a->x != NULL)
        g->t[n].name = "x", g->t[n++].tensor = a->x;
    if (a->slot_mapping != NULL)
        g->t[n].name = "slot_mapping", g->t[n++].tensor = a->slot_mapping;
    if (a->cache != NULL)
        g->t[n].name = "cache", g->t[n++].tensor = a->cache;
    g->call.tensors = g->t;
    g->call.tensor_count = n;
    g->call.attrs = g->v;
    g->call.attr_count = 7;
}

static void mark_runs(const kbufs *k, unsigned char *mask, size_t size)
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
    FZ_CHECK(kvg_op_written_runs(&g.call, "cache", &produced, NULL, 0, &cap,
                                 &diag) == KVG_OK, diag.message);
    runs = (kvg_elem_run *)malloc((cap ? cap : 1) * sizeof *runs);
    if (runs == NULL)
        abort();
    FZ_CHECK(kvg_op_written_runs(&g.call, "cache", &produced, runs, cap, &n,
                                 &diag) == KVG_OK, diag.message);
    FZ_CHECK(produced == 1 && n <= cap, "cache runs");
    for (i = 0; i < n; i++) {
        FZ_CHECK(runs[i].first >= 0 && runs[i].count > 0 &&
                     (uint64_t)runs[i].first <= size &&
                     (uint64_t)runs[i].count <= size - (size_t)runs[i].first,
                 "a run outside the cache");
        FZ_CHECK(i == 0 || runs[i].first > runs[i - 1].first +
                                               runs[i - 1].count,
                 "runs not sorted, disjoint and merged");
        memset(mask + runs[i].first, 1, (size_t)runs[i].count);
    }
    free(runs);
    free(g.call.workspace);
}

/* kvg_op_written_runs validates as the call does: the same refusal. */
static void same_refusal(const kvg_kv_compress_epilog_args *typed)
{
    kvg_kv_compress_epilog_args a = *typed;
    gcall g;
    kvg_diag d1, d2;
    kvg_status s1, s2;
    size_t bytes = 0, cap = 0;
    int produced = 0;

    if ((unsigned)a.impl > 4u || (a.round_scale != 0 && a.round_scale != 1))
        return; /* not expressible as case values: refused by name there */
    if (kvg_kv_compress_epilog_workspace_size(&a, &bytes, &d1) != KVG_OK)
        bytes = 64;
    a.workspace = fz_alloc(bytes, 5);
    a.workspace_size = bytes;
    generic(&g, &a);
    g.call.workspace = a.workspace;
    g.call.workspace_size = bytes;
    s1 = kvg_op_written_runs(&g.call, "cache", &produced, NULL, 0, &cap, &d1);
    s2 = kvg_kv_compress_epilog(&a, &d2);
    /* an absent view is a missing name there, a NULL pointer here */
    if (a.x != NULL && a.slot_mapping != NULL && a.cache != NULL) {
        FZ_CHECK(s1 == s2, d2.message);
    }
    if (s1 != KVG_OK && s1 == s2) {
        FZ_CHECK(strcmp(d1.tensor, d2.tensor) == 0, d1.message);
        FZ_CHECK(strcmp(d1.message, d2.message) == 0, d1.message);
    }
    free(a.workspace);
}

/* ---- the target --------------------------------------------------------- */

static kvg_status op_size(const void *a, size_t *bytes, kvg_diag *diag)
{
    return kvg_kv_compress_epilog_workspace_size(
        (const kvg_kv_compress_epilog_args *)a, bytes, diag);
}

static kvg_status op_call(const void *a, kvg_diag *diag)
{
    return kvg_kv_compress_epilog((const kvg_kv_compress_epilog_args *)a,
                                  diag);
}

static void op_ws(void *a, void *ws, size_t size)
{
    ((kvg_kv_compress_epilog_args *)a)->workspace = ws;
    ((kvg_kv_compress_epilog_args *)a)->workspace_size = size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const value_names[] = {"x", "slot_mapping", NULL};
    fz_in in;
    fz_pool pool;
    kcfg c;
    kbufs k;
    fz_op op;
    kvg_kv_compress_epilog_args a;
    uint8_t vmode;

    fz_in_init(&in, data, size);
    vmode = fz_u8(&in);
    fz_pool_init(&pool, fz_u64(&in), (fz_values)(vmode % 3));
    kvg_kv_compress_epilog_args_init(&a);
    read_config(&in, &c, &a);
    memset(&k, 0, sizeof k);
    k.a = &a;
    make_tensors(&pool, &in, &c, &k);
    make_slots(&pool, &in, &c, k.slots);
    a.x = view(k.x), a.slot_mapping = view(k.slots), a.cache = view(k.cache);
    op.size = op_size, op.call = op_call, op.set_workspace = op_ws;
    op.on_success = on_success, op.ctx = &k, op.value_tensors = value_names;
    fz_drive(&pool, &in, &op, &a);
    same_refusal(&a);
    fz_pool_free(&pool);
    return 0;
}
