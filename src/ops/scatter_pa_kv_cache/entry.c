/*
 * src/ops/scatter_pa_kv_cache/entry.c - ScatterPaKvCache: per-token byte
 * copies into Norm (ND), NHSD (BNSD) and PA_NZ caches, from contiguous or
 * strided (Nct) sources, key-only or key and value, through the entry
 * skeleton (src/common/entry.h).
 *
 * The device kernels check no slot value: a slot past the cache is written
 * past it, two tokens on one slot race, and the NHSD kernel's signed
 * division turns a negative slot into a write before the block. The oracle
 * refuses those calls, naming the token and the slot, so a test case never
 * encodes a corruption.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvgold/scatter_pa_kv_cache.h"

#include <stdio.h>
#include <string.h>

#include "src/common/entry.h"
#include "src/common/internal.h"
#include "src/engines/head_runs.h"
#include "src/engines/slot_rows.h"
#include "src/ops/scatter_pa_kv_cache/internal.h"

#define INV KVG_ERR_PARAM_INVALID

/* The A2 tiling's limits (ops-transformer scatter_pa_kv_cache_tiling.cpp). */
#define NZ_MAX_BLOCK_SIZE 65535
#define NHSD_MAX_HEADS 4095
#define NHSD_MAX_ROW_BYTES 196608

typedef kvg_scatter_pa_kv_cache_args args_t;

void kvg_scatter_pa_kv_cache_args_init(args_t *args)
{
    if (args == NULL)
        return;
    memset(args, 0, sizeof *args);
    args->cache_mode = KVG_CACHE_NORM;
    args->scatter_mode = KVG_SCATTER_NONE;
    args->strides[0] = args->strides[1] = 1;
}

static const char *const k_scatter_modes[] = {"None", "Nct",  "NHSD",
                                              "Alibi", "Rope", "Omni"};

const char *kvg_scatter_mode_name(kvg_scatter_mode mode)
{
    if ((int)mode < 0 || (int)mode > 5)
        return NULL;
    return k_scatter_modes[mode];
}

int kvg_scatter_mode_from_name(const char *name, kvg_scatter_mode *mode)
{
    int i;
    if (name == NULL || mode == NULL)
        return 0;
    for (i = 0; i < 6; i++)
        if (strcmp(name, k_scatter_modes[i]) == 0) {
            *mode = (kvg_scatter_mode)i;
            return 1;
        }
    return 0;
}

/* ---- attributes --------------------------------------------------------- */

static kvg_status must_be_null(const kvg_tensor *t, const char *name,
                               const char *mode, kvg_diag *diag)
{
    if (t != NULL)
        return kvg_diag_set(diag, INV, name, -1, -1,
                            "%s: not an input of scatter_mode %s; pass NULL",
                            name, mode);
    return KVG_OK;
}

static kvg_status check_attrs(const args_t *a, kvg_diag *diag)
{
    const char *cm = kvg_cache_mode_name(a->cache_mode);
    const char *sm = kvg_scatter_mode_name(a->scatter_mode);

    if (a->cache_mode != KVG_CACHE_NORM && a->cache_mode != KVG_CACHE_PA_NZ)
        return kvg_diag_set(diag, INV, "cache_mode", -1, -1,
                            "cache_mode: %s is not a mode of ScatterPaKvCache "
                            "(KVG_CACHE_NORM \"Norm\" or KVG_CACHE_PA_NZ "
                            "\"PA_NZ\")",
                            cm != NULL ? cm : "an invalid kvg_cache_mode");
    if (sm == NULL)
        return kvg_diag_set(diag, INV, "scatter_mode", -1, -1,
                            "scatter_mode: %d is not None (0), Nct (1), NHSD "
                            "(2), Alibi (3), Rope (4) or Omni (5)",
                            (int)a->scatter_mode);
    if (a->cache_mode == KVG_CACHE_PA_NZ &&
        a->scatter_mode != KVG_SCATTER_NONE)
        return kvg_diag_set(diag, INV, "scatter_mode", -1, -1,
                            "scatter_mode: cache_mode PA_NZ takes only "
                            "scatter_mode None, got %s", sm);
    if (a->scatter_mode >= KVG_SCATTER_ALIBI) {
        if (a->scatter_mode == KVG_SCATTER_ALIBI)
            return must_be_null(a->compress_seq_offset, "compress_seq_offset",
                                sm, diag);
        return KVG_OK;
    }
    KVG_TRY(must_be_null(a->compress_lens, "compress_lens", sm, diag));
    KVG_TRY(must_be_null(a->compress_seq_offset, "compress_seq_offset", sm,
                         diag));
    return must_be_null(a->seq_lens, "seq_lens", sm, diag);
}

/* ---- presence, ranks, dtypes ------------------------------------------- */

/* aclnn's key-only form is a 0-dim value_cache; NULL says the same. */
static int absent(const kvg_tensor *t) { return t == NULL || t->rank == 0; }

/* The 950 list (aclnn_scatter_pa_kv_cache.cpp): every kvgold dtype but
 * int64. */
static kvg_status check_copy_dtype(const kvg_tensor *t, const char *name,
                                   kvg_diag *diag)
{
    if (kvg_dtype_size(t->dtype) == 0 || t->dtype == KVG_INT64)
        return kvg_diag_set(diag, INV, name, -1, -1,
                            "%s: dtype must be fp16, fp32, bf16, int8, uint8, "
                            "int16, uint16, int32, uint32, hif8, fp8_e5m2, "
                            "fp8_e4m3fn, fp4_e2m1 or fp4_e1m2, got %s", name,
                            kvg_dtype_name(t->dtype));
    return KVG_OK;
}

static kvg_status check_sides_present(const args_t *a, int *sides,
                                      kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_present(a->key, "key", diag));
    KVG_TRY(kvg_i_check_present(a->key_cache, "key_cache", diag));
    KVG_TRY(kvg_i_check_present(a->slot_mapping, "slot_mapping", diag));
    /* aclnn's CheckNullptr: a value without its cache (or the reverse) */
    if (absent(a->value) != absent(a->value_cache))
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR,
                            absent(a->value) ? "value" : "value_cache", -1, -1,
                            "%s: absent while %s is given; key-only "
                            "calls leave out both (NULL or 0-dim)",
                            absent(a->value) ? "value" : "value_cache",
                            absent(a->value) ? "value_cache" : "value");
    *sides = absent(a->value) ? 1 : 2;
    if (*sides == 1 && (a->cache_mode != KVG_CACHE_NORM ||
                        a->scatter_mode == KVG_SCATTER_NHSD))
        return kvg_diag_set(diag, INV, "value", -1, -1,
                            "value: key-only calls (no value, no value_cache) "
                            "take cache_mode Norm with scatter_mode None or "
                            "Nct, got %s / %s",
                            kvg_cache_mode_name(a->cache_mode),
                            kvg_scatter_mode_name(a->scatter_mode));
    if (*sides == 2) {
        KVG_TRY(kvg_i_check_present(a->value, "value", diag));
        KVG_TRY(kvg_i_check_present(a->value_cache, "value_cache", diag));
    }
    return KVG_OK;
}

static kvg_status check_cache_form(const args_t *a, const kvg_tensor *c,
                                   const char *name, kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_dense(c, name, diag));
    if (a->cache_mode == KVG_CACHE_PA_NZ) {
        if (c->rank != 4 && c->rank != 5)
            return kvg_diag_set(diag, INV, name, -1, -1,
                                "%s: rank must be 4 [NB, N*D/C0, BS, C0] or 5 "
                                "[NB, N, D/C0, BS, C0] for PA_NZ, got %d", name,
                                c->rank);
        return KVG_OK;
    }
    return kvg_i_check_rank(c, name, 4, diag);
}

static kvg_status check_src_form(const args_t *a, const kvg_tensor *t,
                                 const char *name, kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_dense(t, name, diag));
    if (a->scatter_mode == KVG_SCATTER_NCT) {
        if (t->rank < 1)
            return kvg_diag_set(diag, INV, name, -1, -1,
                                "%s: rank must be at least 1 (the storage of "
                                "the Nct view), got 0", name);
        return KVG_OK;
    }
    return kvg_i_check_rank(t, name, 3, diag);
}

static kvg_status check_forms(const args_t *a, int sides, kvg_diag *diag)
{
    KVG_TRY(check_src_form(a, a->key, "key", diag));
    KVG_TRY(check_cache_form(a, a->key_cache, "key_cache", diag));
    if (sides == 2) {
        KVG_TRY(check_src_form(a, a->value, "value", diag));
        KVG_TRY(check_cache_form(a, a->value_cache, "value_cache", diag));
    }
    KVG_TRY(kvg_i_check_dense(a->slot_mapping, "slot_mapping", diag));
    return kvg_i_check_rank(a->slot_mapping, "slot_mapping", 1, diag);
}

static kvg_status check_dtypes(const args_t *a, int sides, kvg_diag *diag)
{
    const int nz = a->cache_mode == KVG_CACHE_PA_NZ;
    const kvg_tensor *fp4 = NULL;

    KVG_TRY(check_copy_dtype(a->key, "key", diag));
    KVG_TRY(kvg_i_check_dtype(a->key_cache, "key_cache", a->key->dtype,
                              diag));
    if (sides == 2) {
        KVG_TRY(check_copy_dtype(a->value, "value", diag));
        if (!nz && a->value->dtype != a->key->dtype)
            return kvg_diag_set(diag, INV, "value", -1, -1,
                                "value: dtype must be %s (as key; only PA_NZ "
                                "lets the K and V pairs differ), got %s",
                                kvg_dtype_name(a->key->dtype),
                                kvg_dtype_name(a->value->dtype));
        KVG_TRY(kvg_i_check_dtype(a->value_cache, "value_cache",
                                  a->value->dtype, diag));
        if (kvg_dtype_is_fp4(a->value->dtype))
            fp4 = a->value;
    }
    if (kvg_dtype_is_fp4(a->key->dtype))
        fp4 = a->key;
    if (fp4 != NULL && !nz &&
        (a->scatter_mode != KVG_SCATTER_NONE || sides == 1))
        return kvg_diag_set(diag, INV, fp4 == a->key ? "key" : "value", -1, -1,
                            "%s: %s is copied only in PA_NZ and in Norm / None "
                            "with a value, got %s / %s%s",
                            fp4 == a->key ? "key" : "value",
                            kvg_dtype_name(fp4->dtype),
                            kvg_cache_mode_name(a->cache_mode),
                            kvg_scatter_mode_name(a->scatter_mode),
                            sides == 1 ? " key-only" : "");
    if (a->slot_mapping->dtype != KVG_INT32 &&
        a->slot_mapping->dtype != KVG_INT64)
        return kvg_diag_set(diag, INV, "slot_mapping", -1, -1,
                            "slot_mapping: dtype must be int32 or int64, got "
                            "%s",
                            kvg_dtype_name(a->slot_mapping->dtype));
    return KVG_OK;
}

/* ---- shapes ------------------------------------------------------------ */

/* key / value [T, N, D] against T and N (key's). */
static kvg_status src_dims(const kvg_tensor *t, const char *name,
                           const kvg_i_scatter_pa_kv_cache_plan *p,
                           kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_dim(t, name, 0, p->tokens,
                            "num_tokens (slot_mapping dim 0)", diag));
    return kvg_i_check_dim(t, name, 1, p->heads, "N of key", diag);
}

/* Norm / Nct [NB, BS, N, D] and NHSD [NB, N, BS, D]; the key cache sets NB
 * and BS. */
static kvg_status nd_cache_dims(const args_t *a,
                                kvg_i_scatter_pa_kv_cache_plan *p,
                                kvg_i_scatter_pa_kv_cache_side *sd,
                                const char *name, int first, kvg_diag *diag)
{
    const kvg_tensor *c = sd->cache;
    const int nhsd = a->scatter_mode == KVG_SCATTER_NHSD;
    const int bs_dim = nhsd ? 2 : 1, n_dim = nhsd ? 1 : 2;

    if (first) {
        p->blocks = c->shape[0];
        p->block_size = c->shape[bs_dim];
    }
    KVG_TRY(kvg_i_check_dim(c, name, 0, p->blocks, "num_blocks of key_cache",
                            diag));
    KVG_TRY(kvg_i_check_dim(c, name, bs_dim, p->block_size,
                            "block_size of key_cache", diag));
    KVG_TRY(kvg_i_check_dim(c, name, n_dim, p->heads,
                            first ? "N of key" : "N of key_cache", diag));
    KVG_TRY(kvg_i_check_dim(c, name, 3, sd->dim, "D of its source", diag));
    memset(&sd->lay, 0, sizeof sd->lay);
    sd->lay.kind = nhsd ? KVG_LAYOUT_BNSD : KVG_LAYOUT_ND;
    sd->lay.blocks = p->blocks;
    sd->lay.slots = p->block_size;
    sd->lay.heads = p->heads;
    sd->lay.dim = sd->dim;
    return KVG_OK;
}

/* PA_NZ [NB, N*D/C0, BS, C0] or [NB, N, D/C0, BS, C0], C0 = 32 bytes of the
 * cache's dtype; D*size a multiple of 32 (A2 tiling). */
static kvg_status nz_cache_dims(kvg_i_scatter_pa_kv_cache_plan *p,
                                kvg_i_scatter_pa_kv_cache_side *sd,
                                const char *sname, const char *name, int first,
                                kvg_diag *diag)
{
    const kvg_tensor *c = sd->cache;
    const int64_t c0 = kvg_c0_of(c->dtype), five = c->rank == 5;
    char what[64];

    if (sd->dim % c0 != 0)
        return kvg_diag_set(diag, INV, sname, 2, -1,
                            "%s: dim 2 (head size D = %lld) must be a multiple "
                            "of C0 = %lld (32 bytes of %s) for PA_NZ", sname,
                            (long long)sd->dim, (long long)c0,
                            kvg_dtype_name(c->dtype));
    if (first) {
        p->blocks = c->shape[0];
        p->block_size = c->shape[five ? 3 : 2];
        if (p->block_size > NZ_MAX_BLOCK_SIZE)
            return kvg_diag_set(diag, INV, name, five ? 3 : 2, -1,
                                "%s: block_size %lld exceeds %d (PA_NZ)", name,
                                (long long)p->block_size, NZ_MAX_BLOCK_SIZE);
    }
    (void)snprintf(what, sizeof what, "C0 = 32 bytes of %s",
                   kvg_dtype_name(c->dtype));
    KVG_TRY(kvg_i_check_dim(c, name, 0, p->blocks, "num_blocks of key_cache",
                            diag));
    if (five) {
        KVG_TRY(kvg_i_check_dim(c, name, 1, p->heads, "N of key", diag));
        KVG_TRY(kvg_i_check_dim(c, name, 2, sd->dim / c0, "D/C0", diag));
        KVG_TRY(kvg_i_check_dim(c, name, 3, p->block_size,
                                "block_size of key_cache", diag));
        KVG_TRY(kvg_i_check_dim(c, name, 4, c0, what, diag));
    } else {
        KVG_TRY(kvg_i_check_dim(c, name, 1, p->heads * sd->dim / c0,
                                "N*D/C0", diag));
        KVG_TRY(kvg_i_check_dim(c, name, 2, p->block_size,
                                "block_size of key_cache", diag));
        KVG_TRY(kvg_i_check_dim(c, name, 3, c0, what, diag));
    }
    memset(&sd->lay, 0, sizeof sd->lay);
    sd->lay.kind = KVG_LAYOUT_NZ;
    sd->lay.blocks = p->blocks;
    sd->lay.slots = p->block_size;
    sd->lay.heads = p->heads;
    sd->lay.dim = sd->dim;
    sd->lay.c0 = c0;
    return KVG_OK;
}

/* Nct: stride >= 1, offset >= 0, and the last token's N*D elements end
 * inside the storage. */
static kvg_status nct_span(const kvg_i_scatter_pa_kv_cache_plan *p,
                           const kvg_i_scatter_pa_kv_cache_side *sd,
                           const char *name, int which, kvg_diag *diag)
{
    int64_t end, width = p->heads * sd->dim;

    if (sd->stride < 1)
        return kvg_diag_set(diag, INV, "strides", 0, which,
                            "strides: [%d] (%s) must be >= 1, got %lld", which,
                            name, (long long)sd->stride);
    if (sd->offset < 0)
        return kvg_diag_set(diag, INV, "offsets", 0, which,
                            "offsets: [%d] (%s) must be >= 0, got %lld", which,
                            name, (long long)sd->offset);
    if (!kvg_i_mul_i64(p->tokens - 1, sd->stride, &end) ||
        !kvg_i_add_i64(end, sd->offset, &end) ||
        !kvg_i_add_i64(end, width, &end) || end > kvg_i_numel(sd->src))
        return kvg_diag_set(diag, INV, name, -1, (int64_t)p->tokens - 1,
                            "%s: token %lld of the Nct view (stride %lld, "
                            "offset %lld, N*D = %lld elements) ends past the "
                            "storage's %lld elements", name,
                            (long long)(p->tokens - 1), (long long)sd->stride,
                            (long long)sd->offset, (long long)width,
                            (long long)kvg_i_numel(sd->src));
    return KVG_OK;
}

static kvg_status check_dims(const args_t *a,
                             kvg_i_scatter_pa_kv_cache_plan *p, kvg_diag *diag)
{
    static const char *const src_names[2] = {"key", "value"};
    static const char *const cache_names[2] = {"key_cache", "value_cache"};
    const int nct = a->scatter_mode == KVG_SCATTER_NCT;
    const int nz = a->cache_mode == KVG_CACHE_PA_NZ;
    int i;

    p->tokens = a->slot_mapping->shape[0];
    p->heads = nct ? a->key_cache->shape[2] : a->key->shape[1];
    for (i = 0; i < p->sides; i++) {
        kvg_i_scatter_pa_kv_cache_side *sd = &p->side[i];
        sd->src = i == 0 ? a->key : a->value;
        sd->cache = i == 0 ? a->key_cache : a->value_cache;
        sd->dim = nct ? sd->cache->shape[3] : sd->src->shape[2];
        sd->stride = nct ? a->strides[i] : p->heads * sd->dim;
        sd->offset = nct ? a->offsets[i] : 0;
        if (!nct)
            KVG_TRY(src_dims(sd->src, src_names[i], p, diag));
        if (nz)
            KVG_TRY(nz_cache_dims(p, sd, src_names[i], cache_names[i],
                                  i == 0, diag));
        else
            KVG_TRY(nd_cache_dims(a, p, sd, cache_names[i], i == 0, diag));
        if (nct)
            KVG_TRY(nct_span(p, sd, src_names[i], i, diag));
    }
    p->slots = p->blocks * p->block_size; /* fits: the caches are dense */
    return KVG_OK;
}

/* NHSD (A2 tiling): 32-byte head rows, N <= 4095, both rows of a token fit
 * the unified buffer. */
static kvg_status check_nhsd(const kvg_i_scatter_pa_kv_cache_plan *p,
                             kvg_diag *diag)
{
    const size_t es = kvg_dtype_size(p->side[0].src->dtype);
    int64_t row = 0;
    int i;

    for (i = 0; i < p->sides; i++)
        if ((size_t)p->side[i].dim * es % 32 != 0)
            return kvg_diag_set(diag, INV, i == 0 ? "key" : "value", 2, -1,
                                "%s: dim 2 (head size D = %lld) times %zu "
                                "bytes must be a multiple of 32 for NHSD",
                                i == 0 ? "key" : "value",
                                (long long)p->side[i].dim, es);
    if (p->heads > NHSD_MAX_HEADS)
        return kvg_diag_set(diag, INV, "key", 1, -1,
                            "key: dim 1 (N = %lld) must be at most %d for NHSD",
                            (long long)p->heads, NHSD_MAX_HEADS);
    for (i = 0; i < p->sides; i++)
        row += p->heads * p->side[i].dim * (int64_t)es;
    if (row > NHSD_MAX_ROW_BYTES)
        return kvg_diag_set(diag, INV, "key", 2, -1,
                            "key: (N*Dk + N*Dv)*size = %lld bytes exceeds %d "
                            "for NHSD", (long long)row, NHSD_MAX_ROW_BYTES);
    return KVG_OK;
}

static kvg_status check_shapes(const args_t *a,
                               kvg_i_scatter_pa_kv_cache_plan *p,
                               kvg_diag *diag)
{
    KVG_TRY(check_sides_present(a, &p->sides, diag));
    KVG_TRY(check_forms(a, p->sides, diag));
    KVG_TRY(check_dtypes(a, p->sides, diag));
    KVG_TRY(check_dims(a, p, diag));
    if (a->scatter_mode == KVG_SCATTER_NHSD)
        KVG_TRY(check_nhsd(p, diag));
    if (p->slots < p->tokens)
        return kvg_diag_set(diag, INV, "slot_mapping", 0, -1,
                            "slot_mapping: %lld tokens but the cache has only "
                            "num_blocks*block_size = %lld slots",
                            (long long)p->tokens, (long long)p->slots);
    return KVG_OK;
}

/* ---- slot values ------------------------------------------------------- */

/* NHSD's refusal of a negative slot (kvg_i_check_unique's `negative`). */
static kvg_status slot_negative(const void *ctx, int64_t t, int64_t s,
                                kvg_diag *diag)
{
    (void)ctx;
    return kvg_diag_set(diag, INV, "slot_mapping", 0, t,
                        "slot_mapping: token %lld: slot %lld is negative; the "
                        "NHSD kernel does not skip it (it would write before "
                        "block 0)", (long long)t, (long long)s);
}

/* Padding tokens (negative slots) are skipped, except by NHSD. */
static kvg_status check_slots(const args_t *a,
                              const kvg_i_scatter_pa_kv_cache_plan *p,
                              kvg_i_keypos *items, kvg_diag *diag)
{
    kvg_i_unique u;
    u.index = a->slot_mapping, u.n = p->tokens, u.limit = p->slots;
    u.ctx = &p->slots, u.key_of = NULL;
    u.negative = a->scatter_mode == KVG_SCATTER_NHSD ? slot_negative : NULL;
    u.out_of_range = kvg_i_slot_out_of_range;
    u.repeated = kvg_i_slot_repeated;
    return kvg_i_check_unique(&u, items, diag);
}

/* ---- writing ----------------------------------------------------------- */

kvg_cache_coord
kvg_i_scatter_pa_kv_cache_coord(const kvg_i_scatter_pa_kv_cache_plan *p,
                                int64_t s, int64_t head)
{
    kvg_cache_coord c;
    c.block = s / p->block_size;
    c.slot = s % p->block_size;
    c.head = head;
    c.channel = 0;
    return c;
}

/* One token of a BNSD (NHSD) side: one row of D per head (ND and NZ sides
 * are written by write_slot_rows). */
static void write_token(const kvg_i_scatter_pa_kv_cache_plan *p,
                        const kvg_i_scatter_pa_kv_cache_side *sd, int64_t t,
                        int64_t s)
{
    const size_t es = kvg_dtype_size(sd->cache->dtype);
    const unsigned char *src =
        (const unsigned char *)sd->src->data +
        (size_t)(t * sd->stride + sd->offset) * es;
    unsigned char *cache = (unsigned char *)sd->cache->data;
    kvg_cache_coord c = kvg_i_scatter_pa_kv_cache_coord(p, s, 0);
    int64_t h;

    for (h = 0; h < p->heads; h++) {
        c.head = h;
        memcpy(cache + (size_t)kvg_layout_offset(&sd->lay, &c) * es,
               src + (size_t)(h * sd->dim) * es, (size_t)sd->dim * es);
    }
}

/* An ND or NZ side (src/engines/slot_rows.c: ND stretches of consecutive
 * slots as one copy, NZ rows in tiles); the Nct storage's stride ends an
 * ND stretch. */
static void write_slot_rows(const args_t *a,
                            const kvg_i_scatter_pa_kv_cache_plan *p,
                            const kvg_i_scatter_pa_kv_cache_side *sd)
{
    kvg_i_slot_rows w;

    w.esize = kvg_dtype_size(sd->cache->dtype);
    w.cache = (unsigned char *)sd->cache->data;
    w.layout = sd->lay;
    w.src = (const unsigned char *)sd->src->data + (size_t)sd->offset * w.esize;
    w.stride = (size_t)sd->stride * w.esize;
    w.slot_mapping = a->slot_mapping;
    w.tokens = p->tokens;
    kvg_i_slot_rows_write(&w);
}

static void write_all(const args_t *a, const kvg_i_scatter_pa_kv_cache_plan *p)
{
    int64_t t;
    int i;

    for (i = 0; i < p->sides; i++)
        if (p->side[i].lay.kind == KVG_LAYOUT_NZ ||
            p->side[i].lay.kind == KVG_LAYOUT_ND)
            write_slot_rows(a, p, &p->side[i]);
    for (t = 0; t < p->tokens; t++) {
        const int64_t s = kvg_i_index_at(a->slot_mapping, t);
        if (s < 0)
            continue; /* padding token: skipped */
        for (i = 0; i < p->sides; i++)
            if (p->side[i].lay.kind == KVG_LAYOUT_BNSD)
                write_token(p, &p->side[i], t, s);
    }
}

/* ---- the compressed modes: the shared per-head run engine --------------- */

/* ScatterPaKvCache's contract where it differs from ATB's: its tensor
 * names, every copy dtype (Rope's mean stays fp16 / bf16, the A2 kernels'),
 * int32 or int64 indices, 32-byte head rows (compress_common.h:129-130),
 * and the 950's per-batch key [B, S, N, D] (arch35 kernels: batch b's
 * rows at b * keyStride0). */
static const kvg_i_runs_rules k_rules = {"compress_lens", "seq_lens",
                                         "compress_seq_offset", 1, 1, 1, 1};

/* Alibi is ATB's KVHEAD (the last w tokens), Rope its KVHEAD_ROPE (prefix,
 * one mean token, suffix), Omni ATB's Omni operator (prefix and suffix). */
static kvg_status runs_check(const args_t *a, kvg_i_runs *r, kvg_diag *diag)
{
    memset(r, 0, sizeof *r);
    r->kind = a->scatter_mode == KVG_SCATTER_ALIBI  ? KVG_I_RUN_KVHEAD
              : a->scatter_mode == KVG_SCATTER_ROPE ? KVG_I_RUN_KVHEAD_ROPE
                                                    : KVG_I_RUN_OMNI;
    r->rules = &k_rules;
    r->key = a->key;
    r->value = a->value;
    r->key_cache = a->key_cache;
    r->value_cache = a->value_cache;
    r->slot_mapping = a->slot_mapping;
    r->wins = a->compress_lens;
    r->seq_len = a->seq_lens;
    r->offset_index = a->compress_seq_offset;
    return kvg_i_runs_check_shapes(r, diag);
}

/* ---- the entry skeleton's view (src/common/entry.h) --------------------- */

static kvg_status e_check(const void *args, void *plan, kvg_diag *diag)
{
    const args_t *a = (const args_t *)args;
    kvg_i_scatter_pa_kv_cache_plan *p = (kvg_i_scatter_pa_kv_cache_plan *)plan;

    memset(p, 0, sizeof *p);
    KVG_TRY(check_attrs(a, diag));
    p->per_head = a->scatter_mode >= KVG_SCATTER_ALIBI;
    if (p->per_head)
        return runs_check(a, &p->r, diag);
    return check_shapes(a, p, diag);
}

static size_t e_spans(const void *args, const void *plan, kvg_i_span *s)
{
    const args_t *a = (const args_t *)args;
    const kvg_i_scatter_pa_kv_cache_plan *p =
        (const kvg_i_scatter_pa_kv_cache_plan *)plan;
    const kvg_i_span list[] = {
        {"key", a->key, 0},
        {"slot_mapping", a->slot_mapping, 0},
        {"key_cache", a->key_cache, 1},
        {"value", p->sides == 2 ? a->value : NULL, 0},
        {"value_cache", p->sides == 2 ? a->value_cache : NULL, 1}};

    if (p->per_head)
        return kvg_i_runs_spans(&p->r, s);
    memcpy(s, list, sizeof list);
    return sizeof list / sizeof list[0];
}

static void e_carve(const void *plan, kvg_i_ws *ws, void *pieces)
{
    const kvg_i_scatter_pa_kv_cache_plan *p =
        (const kvg_i_scatter_pa_kv_cache_plan *)plan;
    kvg_i_scatter_pa_kv_cache_ws *w = (kvg_i_scatter_pa_kv_cache_ws *)pieces;

    if (p->per_head) {
        kvg_i_runs_carve(&p->r, ws, &w->runs);
        return;
    }
    w->items = (kvg_i_keypos *)kvg_i_ws_take(ws, (size_t)p->tokens,
                                             sizeof(kvg_i_keypos));
}

static kvg_status e_values(const void *a, const void *plan, void *pieces,
                           kvg_diag *diag)
{
    const kvg_i_scatter_pa_kv_cache_plan *p =
        (const kvg_i_scatter_pa_kv_cache_plan *)plan;
    if (p->per_head)
        return kvg_i_runs_check_values(
            &p->r, &((kvg_i_scatter_pa_kv_cache_ws *)pieces)->runs, diag);
    return check_slots((const args_t *)a, p,
                       ((kvg_i_scatter_pa_kv_cache_ws *)pieces)->items, diag);
}

static void e_compute(const void *a, const void *plan, void *pieces)
{
    const kvg_i_scatter_pa_kv_cache_plan *p =
        (const kvg_i_scatter_pa_kv_cache_plan *)plan;
    if (p->per_head)
        kvg_i_runs_write(&p->r,
                         &((kvg_i_scatter_pa_kv_cache_ws *)pieces)->runs);
    else
        write_all((const args_t *)a, p);
}

KVG_I_ENTRY_POINTS(scatter_pa_kv_cache, kvg_i_scatter_pa_kv_cache_plan,
                   kvg_i_scatter_pa_kv_cache_ws);
