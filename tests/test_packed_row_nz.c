/*
 * tests/test_packed_row_nz.c - the packed-row engine (src/engines/
 * packed_row.c) writing C8-MXFP's K: each head's fp8 codes in the NZ
 * order of a PA_NZ cache [Bn, N, D/32, Bs, 32], its E8M0 scales into the
 * tiled scale cache [Bn, N, Bs/16, D/64, 16, 2] (tests/nz_layout.h).
 * Every byte of both poisoned tensors is checked against addresses
 * computed from the views' shapes, so a code in the wrong piece, head or
 * tile, or a byte written that no token owns, fails.
 *
 * Expected values from first principles. The rule is the MX quant's
 * scale_alg 0 (OCP MX, block 32, the C8-MXFP K path): c = max(E(amax),
 * emax) - emax with emax 8 for e4m3fn, the codes x / 2^(c - 127) in fp8
 * e4m3fn. Every group of 32 is 2^a times values m and holds m = 1, so
 * amax = 2^a exactly (E = 127 + a), c = 119 + a, and each code is that
 * of 256 m (e4m3fn, bias 7, code s eeee mmm: 256 = 0x78, 192 = 0x74,
 * 128 = 0x70, 96 = 0x6C, 64 = 0x68, 32 = 0x60, 16 = 0x58, 0 = 0x00,
 * sign 0x80).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <string.h>

#include "nz_layout.h"
#include "src/engines/packed_row.h"

#define TOKENS 4
#define COLS (NZ_N * NZ_D) /* x: head 0's D columns, then head 1's */

static const int64_t k_slot[TOKENS] = {0, 17, 33, 50};
static const float k_m[8] = {1, -0.75f, 0.5f, 0.375f,
                             -0.25f, 0.125f, 0.0625f, 0};
static const unsigned char k_code[8] = {0x78, 0xF4, 0x70, 0x6C,
                                        0xE8, 0x60, 0x58, 0x00};

/* Group g of head h of token t: amax 2^a, a in 0..2. */
static int amax_exp(int t, int h, int64_t g) { return (int)((t + h + g) % 3); }

/* Which m channel d of head h of token t is: all 8 in every group. */
static int m_of(int t, int h, int64_t d) { return (int)((d + 3 * t + 5 * h) % 8); }

static kvg_i_group_rule rule_mx(void)
{
    kvg_i_group_rule r;

    memset(&r, 0, sizeof r);
    r.name = "test mx ocp";
    r.amax = KVG_I_AMAX_FINITE;
    r.e8m0 = KVG_E8M0_OCP;
    r.store = KVG_I_STORE_E8M0;
    r.op = KVG_I_PAY_DIV;
    r.cast = KVG_FP8_E4M3FN;
    return r;
}

static void put_bf16(unsigned char *p, float v)
{
    uint32_t b;
    uint16_t h;

    memcpy(&b, &v, 4);
    h = (uint16_t)(b >> 16); /* exact: 2^a * m has few mantissa bits */
    memcpy(p, &h, 2);
}

static void make_row(unsigned char *x, int t)
{
    int64_t d;
    int h;

    for (h = 0; h < NZ_N; h++)
        for (d = 0; d < NZ_D; d++)
            put_bf16(x + 2 * (h * NZ_D + d),
                     (float)(1 << amax_exp(t, h, d / 32)) *
                         k_m[m_of(t, h, d)]);
}

static void writes_nz_and_tiles(void **state)
{
    const kvg_row_layout l = nz_layout();
    const kvg_i_group_rule rule = rule_mx();
    unsigned char *k = test_malloc(NZ_K_BYTES), *want_k = test_malloc(NZ_K_BYTES);
    unsigned char s[NZ_S_BYTES], want_s[NZ_S_BYTES];
    unsigned char x[2 * COLS];
    unsigned char *const tensor[KVG_ROW_TENSORS] = {k, s};
    kvg_i_packed_row p;
    int64_t d, g;
    int t, h;
    (void)state;

    assert_int_equal(kvg_row_layout_check(&l, NULL, NULL), KVG_OK);
    memset(&p, 0, sizeof p);
    p.layout = &l;
    p.rule[NZ_K] = &rule;
    p.head_columns = NZ_D;
    p.x_scale = 1.0f;
    kvgt_poison(k, NZ_K_BYTES, 1);
    kvgt_poison(s, sizeof s, 2);
    memcpy(want_k, k, NZ_K_BYTES);
    memcpy(want_s, s, sizeof s);
    for (t = 0; t < TOKENS; t++) {
        make_row(x, t);
        kvg_i_packed_row_write(&p, tensor, x, k_slot[t]);
        for (h = 0; h < NZ_N; h++) {
            for (d = 0; d < NZ_D; d++)
                want_k[nz_k_index(k_slot[t], h, d)] = k_code[m_of(t, h, d)];
            for (g = 0; g < NZ_D / 32; g++)
                want_s[nz_scale_index(k_slot[t], h, g)] =
                    (unsigned char)(119 + amax_exp(t, h, g));
        }
    }
    assert_memory_equal(k, want_k, NZ_K_BYTES);
    assert_memory_equal(s, want_s, sizeof s);
    /* slot 17 head 1 scale 3 (a = (1 + 1 + 3) % 3 = 2: 121 = 0x79) at
     * 128 + 64 + 32 + 2 + 1, by hand */
    assert_int_equal(s[227], 0x79);
    test_free(k);
    test_free(want_k);
}

typedef struct runs {
    int n;
    int64_t first[16], bytes[16];
} runs;

static void collect(void *ctx, int64_t first, int64_t bytes)
{
    runs *r = (runs *)ctx;

    assert_true(r->n < 16);
    r->first[r->n] = first;
    r->bytes[r->n] = bytes;
    r->n++;
}

/* Whether the runs hold (first, bytes). */
static int has_run(const runs *r, int64_t first, int64_t bytes)
{
    int i;

    for (i = 0; i < r->n; i++)
        if (r->first[i] == first && r->bytes[i] == bytes)
            return 1;
    return 0;
}

/* Slot 17's write as runs: a 32-byte piece per head and group of the K
 * cache, a 2-byte scale pair per head and pair of the scale cache. */
static void runs_per_piece(void **state)
{
    const kvg_row_layout l = nz_layout();
    runs r;
    int h, j;
    (void)state;

    memset(&r, 0, sizeof r);
    kvg_i_packed_row_runs(&l, 0, 17, collect, &r);
    assert_int_equal(r.n, NZ_N * NZ_D / 32);
    for (h = 0; h < NZ_N; h++)
        for (j = 0; j < NZ_D / 32; j++)
            assert_true(has_run(&r, nz_k_index(17, h, 32 * j), 32));
    memset(&r, 0, sizeof r);
    kvg_i_packed_row_runs(&l, 1, 17, collect, &r);
    assert_int_equal(r.n, NZ_N * NZ_D / 64);
    for (h = 0; h < NZ_N; h++)
        for (j = 0; j < NZ_D / 64; j++)
            assert_true(has_run(&r, nz_scale_index(17, h, 2 * j), 2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writes_nz_and_tiles),
        cmocka_unit_test(runs_per_piece),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
