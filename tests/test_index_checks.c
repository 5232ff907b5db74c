/*
 * tests/test_index_checks.c - the index checks every operator shares
 * (src/common/sort.c): the key/position sort, the duplicate search and the
 * unique-index walk, against first principles.
 *
 *   sort        random arrays (many equal keys) come out ordered by key,
 *               then position, as a permutation of the input;
 *   duplicate   the pair reported is the one whose later position is
 *               smallest, found by brute force over all pairs;
 *   unique      negative entries skip, or are refused when the operator
 *               says so; the first bad entry in position order wins over
 *               any duplicate; the operator's key decides what repeats;
 *               the callbacks get the position, value and pair; up to
 *               3000 entries, and keys built to collide in the hash set
 *               the check decides with, give the brute force's pair.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "src/common/internal.h"

#define MAXN 200

static void test_sort(void **state)
{
    kvg_i_keypos v[MAXN], orig[MAXN];
    kvgt_rng r;
    int round;
    (void)state;
    kvgt_rng_seed(&r, 11);
    for (round = 0; round < 300; round++) {
        const size_t n = (size_t)kvgt_rng_range(&r, 0, MAXN);
        const int64_t span = kvgt_rng_range(&r, 1, 40);
        size_t i, j;
        int seen[MAXN];
        for (i = 0; i < n; i++) {
            v[i].key = kvgt_rng_range(&r, -span, span);
            v[i].pos = (int64_t)i;
        }
        memcpy(orig, v, n * sizeof v[0]);
        kvg_i_sort_keypos(v, n);
        memset(seen, 0, sizeof seen);
        for (i = 0; i < n; i++) {
            /* a permutation: each position once, with its own key */
            assert_true(v[i].pos >= 0 && v[i].pos < (int64_t)n);
            assert_int_equal(seen[v[i].pos], 0);
            seen[v[i].pos] = 1;
            assert_true(v[i].key == orig[v[i].pos].key);
            if (i > 0)
                assert_true(v[i - 1].key < v[i].key ||
                            (v[i - 1].key == v[i].key &&
                             v[i - 1].pos < v[i].pos));
        }
        for (j = 0; j < n; j++)
            assert_int_equal(seen[j], 1);
    }
}

static void test_duplicate(void **state)
{
    kvg_i_keypos v[MAXN];
    int64_t keys[MAXN];
    kvgt_rng r;
    int round, found_some = 0, found_none = 0;
    (void)state;
    kvgt_rng_seed(&r, 12);
    for (round = 0; round < 300; round++) {
        const int64_t n = kvgt_rng_range(&r, 0, 60);
        const int64_t span = kvgt_rng_range(&r, 1, 400);
        int64_t i, j, want_first = -1, want_second = -1, key = -9, first = -9,
                      second = -9;
        int got;
        /* positions shuffled in, as the operators store kept entries */
        for (i = 0; i < n; i++) {
            keys[i] = kvgt_rng_range(&r, 0, span);
            v[i].key = keys[i];
            v[i].pos = 3 * i + 1;
        }
        /* brute force: the smallest later position that repeats a key */
        for (j = 0; j < n && want_second < 0; j++)
            for (i = 0; i < j; i++)
                if (keys[i] == keys[j]) {
                    want_first = 3 * i + 1, want_second = 3 * j + 1;
                    break;
                }
        got = kvg_i_find_duplicate(v, (size_t)n, &key, &first, &second);
        if (want_second < 0) {
            assert_int_equal(got, 0);
            found_none++;
        } else {
            assert_int_equal(got, 1);
            assert_true(first == want_first && second == want_second);
            assert_true(key == keys[(want_second - 1) / 3]);
            found_some++;
        }
    }
    assert_true(found_some > 20 && found_none > 20);
}

/* ---- the unique-index walk ------------------------------------------- */

typedef struct calls {
    int negative, range, repeated;
    int64_t pos, value, key, first, second;
    int64_t block; /* key_of: value / block, when block > 0 */
} calls;

static int64_t by_block(const void *ctx, int64_t pos, int64_t value)
{
    (void)pos;
    return value / ((const calls *)ctx)->block;
}

static kvg_status on_negative(const void *ctx, int64_t pos, int64_t value,
                              kvg_diag *diag)
{
    calls *c = (calls *)ctx; /* the test's own, writable */
    c->negative++, c->pos = pos, c->value = value;
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "idx", 0, pos, "negative");
}

static kvg_status on_range(const void *ctx, int64_t pos, int64_t value,
                           kvg_diag *diag)
{
    calls *c = (calls *)ctx; /* the test's own, writable */
    c->range++, c->pos = pos, c->value = value;
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "idx", 0, pos, "range");
}

static kvg_status on_repeat(const void *ctx, int64_t key, int64_t first,
                            int64_t second, kvg_diag *diag)
{
    calls *c = (calls *)ctx; /* the test's own, writable */
    c->repeated++, c->key = key, c->first = first, c->second = second;
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "idx", 0, second,
                        "repeated");
}

static kvg_status run(const int64_t *vals, int64_t n, int64_t limit,
                      int refuse_negative, int64_t block, calls *c)
{
    static kvg_i_keypos keys[16];
    static int64_t buf[16];
    const int64_t shape[1] = {n};
    kvg_tensor t;
    kvg_i_unique u;
    kvg_diag d;
    kvg_status st;
    memset(c, 0, sizeof *c);
    c->block = block;
    memcpy(buf, vals, (size_t)n * sizeof buf[0]);
    t = kvg_tensor_make(buf, (size_t)n * 8u, KVG_INT64, 1, shape);
    u.index = &t, u.n = n, u.limit = limit, u.ctx = c;
    u.key_of = block > 0 ? by_block : NULL;
    u.negative = refuse_negative ? on_negative : NULL;
    u.out_of_range = on_range, u.repeated = on_repeat;
    st = kvg_i_check_unique(&u, keys, &d);
    if (st != KVG_OK) /* the callback's diag (an OK leaves it alone) */
        assert_int_equal(d.status, st);
    assert_int_equal(c->negative + c->range + c->repeated,
                     st == KVG_OK ? 0 : 1);
    /* the index itself is only read */
    assert_memory_equal(buf, vals, (size_t)n * sizeof buf[0]);
    return st;
}

static void test_unique(void **state)
{
    static const int64_t ok[6] = {5, -1, 0, 9, -7, 3};
    static const int64_t dup[6] = {4, 2, -1, 7, 2, 4};
    static const int64_t range_after_dup[5] = {1, 1, 3, 10, -2};
    static const int64_t neg_before_range[4] = {2, -3, 12, 2};
    static const int64_t blocks[5] = {0, 17, 9, 31, 16};
    calls c;
    (void)state;

    /* negatives skip; everything below the limit and distinct passes */
    assert_int_equal(run(ok, 6, 10, 0, 0, &c), KVG_OK);
    /* the limit is exclusive */
    assert_int_equal(run(ok, 6, 9, 0, 0, &c), KVG_ERR_PARAM_INVALID);
    assert_true(c.range == 1 && c.pos == 3 && c.value == 9);
    /* refused negatives: the first one, in position order */
    assert_int_equal(run(ok, 6, 10, 1, 0, &c), KVG_ERR_PARAM_INVALID);
    assert_true(c.negative == 1 && c.pos == 1 && c.value == -1);
    /* duplicates: 2 repeats at 4 (before 4 repeats at 5) */
    assert_int_equal(run(dup, 6, 10, 0, 0, &c), KVG_ERR_PARAM_INVALID);
    assert_true(c.repeated == 1 && c.key == 2 && c.first == 1 &&
                c.second == 4);
    /* a value out of range is refused even after a duplicate */
    assert_int_equal(run(range_after_dup, 5, 10, 0, 0, &c),
                     KVG_ERR_PARAM_INVALID);
    assert_true(c.range == 1 && c.pos == 3 && c.value == 10);
    /* a refused negative and a later value out of range: the negative */
    assert_int_equal(run(neg_before_range, 4, 10, 1, 0, &c),
                     KVG_ERR_PARAM_INVALID);
    assert_true(c.negative == 1 && c.pos == 1);
    /* ... and with negatives skipped, the range error (not the repeat) */
    assert_int_equal(run(neg_before_range, 4, 10, 0, 0, &c),
                     KVG_ERR_PARAM_INVALID);
    assert_true(c.range == 1 && c.pos == 2 && c.value == 12);
    /* the operator's key: distinct values; by blocks of 16, 9 repeats the
     * block of 0 (before 31 repeats that of 17) */
    assert_int_equal(run(blocks, 5, 64, 0, 0, &c), KVG_OK);
    assert_int_equal(run(blocks, 5, 64, 0, 16, &c), KVG_ERR_PARAM_INVALID);
    assert_true(c.repeated == 1 && c.key == 0 && c.first == 0 &&
                c.second == 2);
    /* nothing to check */
    assert_int_equal(run(ok, 0, 1, 1, 0, &c), KVG_OK);
}

/* ---- the unique-index walk over many entries -------------------------- */

#define MANY 3000

static kvg_i_keypos g_keys[MANY];
static int64_t g_vals[MANY];

/* kvg_i_check_unique over vals[0, n) below `limit`, negatives skipped. */
static kvg_status run_many(int64_t n, int64_t limit, calls *c)
{
    const int64_t shape[1] = {n};
    kvg_tensor t = kvg_tensor_make(g_vals, (size_t)n * 8u, KVG_INT64, 1,
                                   shape);
    kvg_i_unique u;
    kvg_diag d;
    memset(c, 0, sizeof *c);
    kvgt_poison(g_keys, sizeof g_keys, (uint64_t)n);
    u.index = &t, u.n = n, u.limit = limit, u.ctx = c, u.key_of = NULL;
    u.negative = NULL, u.out_of_range = on_range, u.repeated = on_repeat;
    return kvg_i_check_unique(&u, g_keys, &d);
}

/* By brute force: the repeat with the smallest later position j, and the
 * first position of its value; 0 when every kept value is distinct. */
static int first_repeat(int64_t n, int64_t *first, int64_t *second)
{
    int64_t i, j;
    for (j = 0; j < n; j++)
        for (i = 0; g_vals[j] >= 0 && i < j; i++)
            if (g_vals[i] == g_vals[j]) {
                *first = i, *second = j;
                return 1;
            }
    return 0;
}

static void check_many(int64_t n, int64_t limit, const char *what)
{
    int64_t first = -1, second = -1;
    const int rep = first_repeat(n, &first, &second);
    calls c;
    const kvg_status st = run_many(n, limit, &c);
    if (st != (rep ? KVG_ERR_PARAM_INVALID : KVG_OK) ||
        (rep && (c.first != first || c.second != second ||
                 c.key != g_vals[second])))
        fail_msg("%s, %lld entries: status %d, pair (%lld, %lld), want %s "
                 "(%lld, %lld)", what, (long long)n, (int)st,
                 (long long)c.first, (long long)c.second,
                 rep ? "a repeat" : "none", (long long)first,
                 (long long)second);
}

/* Many entries, distinct or with repeats planted anywhere: the same answer
 * as the brute force, whether the check decides with its hash set alone
 * or sorts (sort.c). */
static void test_unique_many(void **state)
{
    kvgt_rng r;
    int round;
    (void)state;
    kvgt_rng_seed(&r, 23);
    for (round = 0; round < 200; round++) {
        const int64_t n = kvgt_rng_range(&r, 1, MANY);
        const int64_t limit = round % 2 ? INT64_MAX : 4 * n + 7;
        int64_t i, planted = kvgt_rng_range(&r, 0, 3);
        for (i = 0; i < n; i++) { /* distinct: a stride coprime-ish */
            g_vals[i] = round % 2 ? (int64_t)(kvgt_rng_next(&r) >> 1)
                                  : (i * 4 + 1) % limit;
            if (kvgt_rng_range(&r, 0, 9) == 0)
                g_vals[i] = -kvgt_rng_range(&r, 1, 5);
        }
        while (planted-- > 0 && n > 1) {
            const int64_t a = kvgt_rng_range(&r, 0, n - 1);
            const int64_t b = kvgt_rng_range(&r, 0, n - 1);
            g_vals[b] = g_vals[a] < 0 ? 0 : g_vals[a];
        }
        check_many(n, limit, "random");
    }
}

/* The inverse of an odd number modulo 2^64 (Newton's iteration). */
static uint64_t inverse64(uint64_t a)
{
    uint64_t x = a; /* correct to 3 bits for odd a */
    int k;
    for (k = 0; k < 5; k++)
        x *= 2u - a * x;
    return x;
}

/* Keys built to land in one slot of the hash set (its multiplier and its
 * size for n keys, the largest power of two <= 2n, are sort.c's): the set
 * gives up and the check sorts; the answer must not change. */
static void test_unique_colliding(void **state)
{
    const uint64_t inv = inverse64(0x9E3779B97F4A7C15u);
    const int64_t n = 1000; /* 1024 slots: the slot is the top 10 bits */
    int64_t i = 0;
    uint64_t j;
    (void)state;
    for (j = 0; i < n; j++) {
        const uint64_t key = (((uint64_t)5 << 54) + j) * inv;
        if (key >> 63 == 0)
            g_vals[i++] = (int64_t)key;
    }
    check_many(n, INT64_MAX, "colliding, distinct");
    g_vals[700] = g_vals[300];
    g_vals[900] = g_vals[100];
    check_many(n, INT64_MAX, "colliding, two repeats");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort),
        cmocka_unit_test(test_duplicate),
        cmocka_unit_test(test_unique),
        cmocka_unit_test(test_unique_many),
        cmocka_unit_test(test_unique_colliding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
