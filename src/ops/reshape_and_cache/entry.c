/*
 * src/ops/reshape_and_cache/entry.c - ReshapeAndCache: per-token writes into
 * ND or NZ caches (compress_type UNDEFINED), and the head-compression modes
 * KVHEAD / KVHEAD_ROPE through the per-head run engine (head_runs.c); the
 * per-token path also writes key only (kv_cache_cfg K_CACHE_V_BYPASS).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvgold/reshape_and_cache.h"

#include <string.h>

#include "src/common/entry.h"
#include "src/common/internal.h"
#include "src/ops/reshape_and_cache/internal.h"
#include "src/engines/head_runs.h"
#include "src/engines/slot_rows.h"

void kvg_reshape_and_cache_args_init(kvg_reshape_and_cache_args *args)
{
    if (args == NULL)
        return;
    memset(args, 0, sizeof *args);
    args->compress_type = KVG_RAC_COMPRESS_UNDEFINED;
    args->cache_layout = KVG_LAYOUT_ND;
    args->kv_cache_cfg = KVG_RAC_K_CACHE_V_CACHE;
}

static const char *const k_compress_names[] = {"UNDEFINED", "KVHEAD",
                                               "KVHEAD_ROPE"};

const char *kvg_rac_compress_name(kvg_rac_compress type)
{
    if ((int)type < 0 || (int)type > 2)
        return NULL;
    return k_compress_names[type];
}

int kvg_rac_compress_from_name(const char *name, kvg_rac_compress *type)
{
    int i;
    if (name == NULL || type == NULL)
        return 0;
    for (i = 0; i < 3; i++)
        if (strcmp(name, k_compress_names[i]) == 0) {
            *type = (kvg_rac_compress)i;
            return 1;
        }
    return 0;
}

static const char *const k_cfg_names[] = {"K_CACHE_V_CACHE",
                                           "K_CACHE_V_BYPASS"};

const char *kvg_rac_kv_cache_cfg_name(kvg_rac_kv_cache_cfg cfg)
{
    if ((int)cfg < 0 || (int)cfg > 1)
        return NULL;
    return k_cfg_names[cfg];
}

int kvg_rac_kv_cache_cfg_from_name(const char *name, kvg_rac_kv_cache_cfg *cfg)
{
    int i;
    if (name == NULL || cfg == NULL)
        return 0;
    for (i = 0; i < 2; i++)
        if (strcmp(name, k_cfg_names[i]) == 0) {
            *cfg = (kvg_rac_kv_cache_cfg)i;
            return 1;
        }
    return 0;
}

/* ---- attributes and which tensors a mode takes ------------------------- */

static kvg_status must_be_null(const kvg_tensor *t, const char *name,
                               const char *mode, kvg_diag *diag)
{
    if (t != NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: not an input of compress_type %s; pass NULL",
                            name, mode);
    return KVG_OK;
}

static kvg_status check_attrs(const kvg_reshape_and_cache_args *a,
                              kvg_diag *diag)
{
    const char *mode = kvg_rac_compress_name(a->compress_type);

    if (mode == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "compress_type",
                            -1, -1,
                            "compress_type: %d is not UNDEFINED (0), KVHEAD "
                            "(1) or KVHEAD_ROPE (2)", (int)a->compress_type);
    if (a->cache_layout != KVG_LAYOUT_ND && a->cache_layout != KVG_LAYOUT_NZ)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cache_layout", -1, -1,
                            "cache_layout: %d is not ND (%d) or NZ (%d)",
                            (int)a->cache_layout, (int)KVG_LAYOUT_ND,
                            (int)KVG_LAYOUT_NZ);
    if (kvg_rac_kv_cache_cfg_name(a->kv_cache_cfg) == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "kv_cache_cfg", -1, -1,
                            "kv_cache_cfg: %d is not K_CACHE_V_CACHE (0) or "
                            "K_CACHE_V_BYPASS (1)", (int)a->kv_cache_cfg);
    if (a->kv_cache_cfg == KVG_RAC_K_CACHE_V_BYPASS) {
        /* ATB: BYPASS takes no compression and is the ND SISO kernel */
        if (a->compress_type != KVG_RAC_COMPRESS_UNDEFINED)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "kv_cache_cfg", -1,
                                -1, "kv_cache_cfg: K_CACHE_V_BYPASS takes only "
                                "compress_type UNDEFINED, got %s", mode);
        if (a->cache_layout != KVG_LAYOUT_ND)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "kv_cache_cfg", -1,
                                -1, "kv_cache_cfg: K_CACHE_V_BYPASS writes an "
                                "ND key_cache; cache_layout NZ is another "
                                "kv_cache_cfg (K_CACHE_V_CACHE_NZ)");
        KVG_TRY(must_be_null(a->value, "value", "UNDEFINED with "
                             "kv_cache_cfg K_CACHE_V_BYPASS", diag));
        KVG_TRY(must_be_null(a->value_cache, "value_cache", "UNDEFINED "
                             "with kv_cache_cfg K_CACHE_V_BYPASS", diag));
    }
    if (a->cache_layout == KVG_LAYOUT_NZ &&
        a->compress_type != KVG_RAC_COMPRESS_UNDEFINED)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cache_layout", -1, -1,
                            "cache_layout: NZ caches take only compress_type "
                            "UNDEFINED, got %s", mode);
    if (a->compress_type == KVG_RAC_COMPRESS_UNDEFINED) {
        KVG_TRY(must_be_null(a->wins, "wins", mode, diag));
        KVG_TRY(must_be_null(a->seq_len, "seq_len", mode, diag));
    }
    if (a->compress_type != KVG_RAC_COMPRESS_KVHEAD_ROPE)
        return must_be_null(a->offset_index, "offset_index", mode, diag);
    return KVG_OK;
}

/* ---- per-token path: shapes -------------------------------------------- */


static kvg_status tok_present(const kvg_reshape_and_cache_args *a,
                              kvg_diag *diag)
{
    const int kv = a->kv_cache_cfg != KVG_RAC_K_CACHE_V_BYPASS;

    KVG_TRY(kvg_i_check_present(a->key, "key", diag));
    if (kv)
        KVG_TRY(kvg_i_check_present(a->value, "value", diag));
    KVG_TRY(kvg_i_check_present(a->key_cache, "key_cache", diag));
    if (kv)
        KVG_TRY(kvg_i_check_present(a->value_cache, "value_cache", diag));
    return kvg_i_check_present(a->slot_mapping, "slot_mapping", diag);
}

static kvg_status form(const kvg_tensor *t, const char *name, int rank,
                       kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_dense(t, name, diag));
    return kvg_i_check_rank(t, name, rank, diag);
}

static kvg_status tok_forms(const kvg_reshape_and_cache_args *a,
                            kvg_diag *diag)
{
    KVG_TRY(form(a->key, "key", 3, diag));
    if (a->value != NULL)
        KVG_TRY(form(a->value, "value", 3, diag));
    KVG_TRY(form(a->key_cache, "key_cache", 4, diag));
    if (a->value_cache != NULL)
        KVG_TRY(form(a->value_cache, "value_cache", 4, diag));
    return form(a->slot_mapping, "slot_mapping", 1, diag);
}

static int is_half(kvg_dtype d) { return d == KVG_FP16 || d == KVG_BF16; }

/* ND: one dtype for all four. NZ: key fp16/bf16/int8, value fp16/bf16
 * (the ATB NZ kernel moves the value as a 2-byte type). */
static kvg_status tok_dtypes(const kvg_reshape_and_cache_args *a, int nz,
                             kvg_diag *diag)
{
    kvg_dtype dk = a->key->dtype, dv;

    if (!is_half(dk) && dk != KVG_INT8)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "key", -1, -1,
                            "key: dtype must be fp16, bf16 or int8, got %s",
                            kvg_dtype_name(dk));
    if (a->value == NULL) { /* key only */
        KVG_TRY(kvg_i_check_dtype(a->key_cache, "key_cache", dk, diag));
        return kvg_i_check_dtype(a->slot_mapping, "slot_mapping", KVG_INT32,
                                 diag);
    }
    dv = a->value->dtype;
    if (!nz)
        KVG_TRY(kvg_i_check_dtype(a->value, "value", dk, diag));
    if (nz && !is_half(dv))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "value", -1, -1,
                            "value: dtype must be fp16 or bf16 for an NZ cache "
                            "(the value cache is moved in 2-byte elements), "
                            "got %s", kvg_dtype_name(dv));
    KVG_TRY(kvg_i_check_dtype(a->key_cache, "key_cache", dk, diag));
    KVG_TRY(kvg_i_check_dtype(a->value_cache, "value_cache", dv, diag));
    return kvg_i_check_dtype(a->slot_mapping, "slot_mapping", KVG_INT32, diag);
}

static kvg_status nd_dims(const kvg_reshape_and_cache_args *a,
                          kvg_i_reshape_and_cache_geo *g, kvg_diag *diag)
{
    const kvg_tensor *kc = a->key_cache, *vc = a->value_cache;

    g->blocks = kc->shape[0];
    g->block_size = kc->shape[1];
    KVG_TRY(kvg_i_check_dim(kc, "key_cache", 2, g->heads, "N of key", diag));
    KVG_TRY(kvg_i_check_dim(kc, "key_cache", 3, g->dk, "Dk of key", diag));
    if (vc == NULL) /* key only */
        return KVG_OK;
    KVG_TRY(kvg_i_check_dim(vc, "value_cache", 0, g->blocks,
                            "num_blocks of key_cache", diag));
    KVG_TRY(kvg_i_check_dim(vc, "value_cache", 1, g->block_size,
                            "block_size of key_cache", diag));
    KVG_TRY(kvg_i_check_dim(vc, "value_cache", 2, g->heads, "N of value",
                            diag));
    return kvg_i_check_dim(vc, "value_cache", 3, g->dv, "Dv of value", diag);
}

/* One NZ cache [NB, N*D/C0, BS, C0] against its source [T, N, D]. */
static kvg_status nz_cache_dims(const kvg_tensor *src, const char *sname,
                                const kvg_tensor *cache, const char *cname,
                                const kvg_i_reshape_and_cache_geo *g,
                                int64_t d, kvg_diag *diag)
{
    int64_t c0 = kvg_c0_of(src->dtype), width = g->heads * d;

    if (width % c0 != 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, sname, 2, -1,
                            "%s: N*D = %lld*%lld = %lld must be a multiple of "
                            "C0 = %lld (%s) for an NZ cache", sname,
                            (long long)g->heads, (long long)d, (long long)width,
                            (long long)c0, kvg_dtype_name(src->dtype));
    KVG_TRY(kvg_i_check_dim(cache, cname, 0, g->blocks,
                            "num_blocks of key_cache", diag));
    KVG_TRY(kvg_i_check_dim(cache, cname, 1, width / c0, "N*D/C0", diag));
    KVG_TRY(kvg_i_check_dim(cache, cname, 2, g->block_size,
                            "block_size of key_cache", diag));
    return kvg_i_check_dim(cache, cname, 3, c0, "C0 of the cache dtype", diag);
}

static kvg_status nz_dims(const kvg_reshape_and_cache_args *a,
                          kvg_i_reshape_and_cache_geo *g, kvg_diag *diag)
{
    g->blocks = a->key_cache->shape[0];
    g->block_size = a->key_cache->shape[2];
    if (g->block_size % 16 != 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "key_cache", 2, -1,
                            "key_cache: dim 2 (block_size) must be a multiple "
                            "of 16 for an NZ cache, got %lld",
                            (long long)g->block_size);
    KVG_TRY(nz_cache_dims(a->key, "key", a->key_cache, "key_cache", g, g->dk,
                          diag));
    return nz_cache_dims(a->value, "value", a->value_cache, "value_cache", g,
                         g->dv, diag);
}

static kvg_status tok_dims(const kvg_reshape_and_cache_args *a,
                           kvg_i_reshape_and_cache_geo *g, kvg_diag *diag)
{
    kvg_status st;

    g->tokens = a->key->shape[0];
    g->heads = a->key->shape[1];
    g->dk = a->key->shape[2];
    g->key_only = a->value == NULL;
    if (!g->key_only) {
        g->dv = a->value->shape[2];
        KVG_TRY(kvg_i_check_dim(a->value, "value", 0, g->tokens,
                                "num_tokens of key", diag));
        KVG_TRY(kvg_i_check_dim(a->value, "value", 1, g->heads,
                                "N of key", diag));
    }
    KVG_TRY(kvg_i_check_dim(a->slot_mapping, "slot_mapping", 0, g->tokens,
                            "num_tokens of key", diag));
    st = g->nz ? nz_dims(a, g, diag) : nd_dims(a, g, diag);
    g->slots = g->blocks * g->block_size; /* fits: the caches are dense */
    return st;
}

static kvg_status tok_check_shapes(const kvg_reshape_and_cache_args *a,
                                   kvg_i_reshape_and_cache_geo *g,
                                   kvg_diag *diag)
{
    memset(g, 0, sizeof *g);
    g->nz = a->cache_layout == KVG_LAYOUT_NZ;
    KVG_TRY(tok_present(a, diag));
    KVG_TRY(tok_forms(a, diag));
    KVG_TRY(tok_dtypes(a, g->nz, diag));
    return tok_dims(a, g, diag);
}

/* ---- per-token path: slot values and writing --------------------------- */

static kvg_status tok_check_slots(const kvg_reshape_and_cache_args *a,
                                  const kvg_i_reshape_and_cache_geo *g,
                                  kvg_i_keypos *items, kvg_diag *diag)
{
    kvg_i_unique u;
    u.index = a->slot_mapping, u.n = g->tokens, u.limit = g->slots;
    u.ctx = &g->slots, u.key_of = NULL, u.negative = NULL;
    u.out_of_range = kvg_i_slot_out_of_range;
    u.repeated = kvg_i_slot_repeated;
    return kvg_i_check_unique(&u, items, diag);
}

/* Where slot s of a cache starts: row (block, slot) of ND, or the first
 * C0 run of (block, group 0, slot) of NZ. */
void kvg_i_reshape_and_cache_token_layout(const kvg_tensor *cache,
                                          const kvg_i_reshape_and_cache_geo *g,
                                          int64_t d, kvg_cache_layout *l)
{
    l->kind = g->nz ? KVG_LAYOUT_NZ : KVG_LAYOUT_ND;
    l->blocks = g->blocks;
    l->slots = g->block_size;
    l->heads = g->heads;
    l->dim = d;
    l->c0 = kvg_c0_of(cache->dtype);
}

kvg_cache_coord
kvg_i_reshape_and_cache_slot_coord(const kvg_i_reshape_and_cache_geo *g,
                                   int64_t s)
{
    kvg_cache_coord c;
    c.block = s / g->block_size;
    c.slot = s % g->block_size;
    c.head = 0;
    c.channel = 0;
    return c;
}

/* One cache of a validated per-token call (src/engines/slot_rows.c: ND
 * stretches of consecutive slots as one copy, NZ rows in tiles). */
static void tok_write_side(const kvg_reshape_and_cache_args *a,
                           const kvg_i_reshape_and_cache_geo *g,
                           const kvg_tensor *src, const kvg_tensor *cache,
                           int64_t d)
{
    kvg_i_slot_rows w;

    w.cache = (unsigned char *)cache->data;
    kvg_i_reshape_and_cache_token_layout(cache, g, d, &w.layout);
    w.esize = kvg_dtype_size(src->dtype);
    w.src = (const unsigned char *)src->data;
    w.stride = (size_t)(g->heads * d) * w.esize;
    w.slot_mapping = a->slot_mapping;
    w.tokens = g->tokens;
    kvg_i_slot_rows_write(&w);
}

/* Write both caches (the key's alone without a value), one after the
 * other: one source read at a time. */
static void tok_write(const kvg_reshape_and_cache_args *a,
                      const kvg_i_reshape_and_cache_geo *g)
{
    tok_write_side(a, g, a->key, a->key_cache, g->dk);
    if (!g->key_only)
        tok_write_side(a, g, a->value, a->value_cache, g->dv);
}

/* ---- entry points ------------------------------------------------------ */

static void fill_runs(const kvg_reshape_and_cache_args *a, kvg_i_runs *r)
{
    memset(r, 0, sizeof *r);
    r->kind = a->compress_type == KVG_RAC_COMPRESS_KVHEAD
                  ? KVG_I_RUN_KVHEAD
                  : KVG_I_RUN_KVHEAD_ROPE;
    r->key = a->key;
    r->value = a->value;
    r->key_cache = a->key_cache;
    r->value_cache = a->value_cache;
    r->slot_mapping = a->slot_mapping;
    r->wins = a->wins;
    r->seq_len = a->seq_len;
    r->offset_index = a->offset_index;
}

/* ---- the entry skeleton's view (src/common/entry.h): per token (g) or
 * per head through the run engine (r), as compress_type says ------------ */

typedef kvg_reshape_and_cache_args args_t;

static kvg_status e_check(const void *args, void *plan, kvg_diag *diag)
{
    const args_t *a = (const args_t *)args;
    kvg_i_reshape_and_cache_plan *p = (kvg_i_reshape_and_cache_plan *)plan;

    memset(p, 0, sizeof *p);
    KVG_TRY(check_attrs(a, diag));
    p->per_token = a->compress_type == KVG_RAC_COMPRESS_UNDEFINED;
    if (p->per_token)
        return tok_check_shapes(a, &p->g, diag);
    fill_runs(a, &p->r);
    return kvg_i_runs_check_shapes(&p->r, diag);
}

static size_t e_spans(const void *args, const void *plan, kvg_i_span *s)
{
    const args_t *a = (const args_t *)args;
    const kvg_i_reshape_and_cache_plan *p =
        (const kvg_i_reshape_and_cache_plan *)plan;
    const kvg_i_span list[] = {{"key", a->key, 0},
                               {"value", a->value, 0},
                               {"slot_mapping", a->slot_mapping, 0},
                               {"key_cache", a->key_cache, 1},
                               {"value_cache", a->value_cache, 1}};

    if (!p->per_token)
        return kvg_i_runs_spans(&p->r, s);
    memcpy(s, list, sizeof list);
    return sizeof list / sizeof list[0];
}

static void e_carve(const void *plan, kvg_i_ws *ws, void *pieces)
{
    const kvg_i_reshape_and_cache_plan *p =
        (const kvg_i_reshape_and_cache_plan *)plan;
    kvg_i_reshape_and_cache_ws *w = (kvg_i_reshape_and_cache_ws *)pieces;

    if (!p->per_token) {
        kvg_i_runs_carve(&p->r, ws, &w->runs);
        return;
    }
    w->items = (kvg_i_keypos *)kvg_i_ws_take(ws, (size_t)p->g.tokens,
                                             sizeof(kvg_i_keypos));
}

static kvg_status e_values(const void *a, const void *plan, void *pieces,
                           kvg_diag *diag)
{
    const kvg_i_reshape_and_cache_plan *p =
        (const kvg_i_reshape_and_cache_plan *)plan;
    const kvg_i_reshape_and_cache_ws *w =
        (const kvg_i_reshape_and_cache_ws *)pieces;

    if (!p->per_token)
        return kvg_i_runs_check_values(&p->r, &w->runs, diag);
    return tok_check_slots((const args_t *)a, &p->g, w->items, diag);
}

static void e_compute(const void *a, const void *plan, void *pieces)
{
    const kvg_i_reshape_and_cache_plan *p =
        (const kvg_i_reshape_and_cache_plan *)plan;

    if (!p->per_token)
        kvg_i_runs_write(&p->r,
                         &((const kvg_i_reshape_and_cache_ws *)pieces)->runs);
    else
        tok_write((const args_t *)a, &p->g);
}

KVG_I_ENTRY_POINTS(reshape_and_cache, kvg_i_reshape_and_cache_plan,
                   kvg_i_reshape_and_cache_ws);
