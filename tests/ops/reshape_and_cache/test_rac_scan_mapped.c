/*
 * tests/ops/reshape_and_cache/test_rac_scan_mapped.c - kvgold scan maps
 * big dumped tensors where they lie in their files. An ATB dump of one
 * ReshapeAndCache call with 1 MiB caches (the mapping threshold) behind a
 * header of odd length, so the mapped data is not even 2-byte aligned in
 * the file:
 *   - judged honestly, it passes; an untouched element changed in the
 *     post-call cache fails, named; the golden's pre-call cache file is
 *     left as it was (the golden wrote a private copy-on-write mapping);
 *   - a file truncated by another process once it is mapped (a test hook
 *     right after the mmap: the NPU's post-call cache; the private mapping
 *     the golden writes) ends the process with exit 2 naming the file,
 *     through the SIGBUS guard, not a crash; in a --jobs worker, the scan
 *     command (tools/cli/scan_cmd.c, built in) exits 2 with no report.
 * Expected values from first principles: the post-call cache is the
 * pre-call one with each token's key row at its slot.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "map_guard.h"
#include "npy_map.h"
#include "scan.h"
#include "tensor_file.h"

/* caches [blocks, block_size, heads, head_dim] fp16: 1 MiB each */
enum { BLOCKS = 1024, BSZ = 32, HEADS = 1, HD = 16, TOKENS = 3 };
#define ROW_ELEMS (HEADS * HD)
#define CACHE_ELEMS ((size_t)BLOCKS * BSZ * ROW_ELEMS)

static const int32_t k_slots[TOKENS] = {5, 8000, 32767};

static char g_root[64];
static char g_call[128]; /* the operation directory */
static char g_victim[256];
static int g_nth, g_seen;

/* A finite fp16 that is never 0: sign, exponent below 0x0F, mantissa. */
static uint16_t half_of(kvgt_rng *rng)
{
    uint16_t h = (uint16_t)(kvgt_rng_next(rng) & 0xBBFFu);
    return h == 0 || h == 0x8000u ? 0x3C00u : h;
}

static void put_bin(const char *rel, int dtype, const char *dims,
                    const void *data, size_t bytes)
{
    char path[256];
    FILE *f;
    (void)snprintf(path, sizeof path, "%s/%s", g_call, rel);
    f = fopen(path, "wb");
    assert_non_null(f);
    /* "$Object.Name" pads the header to an odd length: the data that
     * follows is at an odd offset */
    fprintf(f, "$Version=1.0\n$Object.Count=1\n$Object.Length=%lu\n"
               "format=2\ndtype=%d\ndims=%s\n$End=1\n",
            (unsigned long)bytes, dtype, dims);
    if (ftell(f) % 2 == 0) {
        assert_int_equal(fseek(f, 0, SEEK_SET), 0);
        fprintf(f, "$Version=1.0\n$Object.Count=1\n$Object.Length=%lu\n"
                   "$Object.Name=k\nformat=2\ndtype=%d\ndims=%s\n$End=1\n",
                (unsigned long)bytes, dtype, dims);
    }
    assert_int_equal(ftell(f) % 2, 1);
    assert_int_equal(fwrite(data, 1, bytes, f), bytes);
    assert_int_equal(fclose(f), 0);
}

/* The call's dump in g_root/<name> (g_call); `far` >= 0: element `far`
 * of the post-call key cache, one no token writes, changed. */
static void make_dump_in(const char *name, long far)
{
    static uint16_t key[TOKENS * ROW_ELEMS], value[TOKENS * ROW_ELEMS];
    uint16_t *kc = malloc(CACHE_ELEMS * 2), *vc = malloc(CACHE_ELEMS * 2);
    char dir[160], dims[64];
    kvgt_rng rng;
    size_t i;
    int t;

    assert_non_null(kc);
    assert_non_null(vc);
    kvgt_rng_seed(&rng, 22);
    for (i = 0; i < CACHE_ELEMS; i++) {
        kc[i] = half_of(&rng);
        vc[i] = half_of(&rng);
    }
    for (i = 0; i < TOKENS * ROW_ELEMS; i++) {
        key[i] = half_of(&rng);
        value[i] = half_of(&rng);
    }
    (void)snprintf(g_call, sizeof g_call, "%s/%s", g_root, name);
    (void)mkdir(g_call, 0700);
    (void)snprintf(dir, sizeof dir, "%s/before", g_call);
    (void)mkdir(dir, 0700);
    (void)snprintf(dir, sizeof dir, "%s/after", g_call);
    (void)mkdir(dir, 0700);
    (void)snprintf(dims, sizeof dims, "%d,%d,%d", TOKENS, HEADS, HD);
    put_bin("before/intensor0.bin", 1, dims, key, sizeof key);
    put_bin("before/intensor1.bin", 1, dims, value, sizeof value);
    (void)snprintf(dims, sizeof dims, "%d,%d,%d,%d", BLOCKS, BSZ, HEADS, HD);
    put_bin("before/intensor2.bin", 1, dims, kc, CACHE_ELEMS * 2);
    put_bin("before/intensor3.bin", 1, dims, vc, CACHE_ELEMS * 2);
    (void)snprintf(dims, sizeof dims, "%d", TOKENS);
    put_bin("before/intensor4.bin", 3, dims, k_slots, sizeof k_slots);
    for (t = 0; t < TOKENS; t++) {
        memcpy(kc + (size_t)k_slots[t] * ROW_ELEMS, key + t * ROW_ELEMS,
               ROW_ELEMS * 2);
        memcpy(vc + (size_t)k_slots[t] * ROW_ELEMS, value + t * ROW_ELEMS,
               ROW_ELEMS * 2);
    }
    if (far >= 0)
        kc[far] ^= 0x0100u;
    (void)snprintf(dims, sizeof dims, "%d,%d,%d,%d", BLOCKS, BSZ, HEADS, HD);
    put_bin("after/outtensor0.bin", 1, dims, kc, CACHE_ELEMS * 2);
    put_bin("after/outtensor1.bin", 1, dims, vc, CACHE_ELEMS * 2);
    free(kc);
    free(vc);
}

static void make_dump(long far)
{
    make_dump_in("1_ReshapeAndCacheOperation", far);
}

static int setup(void **state)
{
    (void)state;
    (void)snprintf(g_root, sizeof g_root, "/tmp/kvg_scan_mapped_XXXXXX");
    return mkdtemp(g_root) != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];
    (void)state;
    (void)snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
    return system(cmd) == 0 ? 0 : -1;
}

static void list_one(kvg_scan_list *l)
{
    kvg_diag diag;
    memset(l, 0, sizeof *l);
    assert_int_equal(kvg_scan_read_atb(g_root, l, &diag), KVG_OK);
    assert_int_equal(l->count, 1);
    assert_string_equal(l->calls[0].unreadable, "");
    /* the caches are big enough to be mapped */
    assert_true(l->calls[0].in[2].nbytes >= KVG_TENSOR_MAP_MIN);
    assert_int_equal(l->calls[0].in[2].offset % 2, 1);
}

static void judge(kvg_scan_result *r)
{
    kvg_scan_list l;
    kvg_scan_opts o;
    memset(&o, 0, sizeof o);
    o.standard = KVG_STD_SINGLE;
    list_one(&l);
    kvg_scan_judge(&l.calls[0], 0, &o, r);
    kvg_scan_list_free(&l);
}

static unsigned char *slurp(const char *rel, size_t *n)
{
    char path[256];
    unsigned char *buf;
    FILE *f;
    long len;
    (void)snprintf(path, sizeof path, "%s/%s", g_call, rel);
    f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    len = ftell(f);
    assert_true(len > 0);
    rewind(f);
    buf = malloc((size_t)len);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return buf;
}

/* How often each file of the call was mapped. */
static const char *const k_files[7] = {
    "before/intensor0.bin", "before/intensor1.bin", "before/intensor2.bin",
    "before/intensor3.bin", "before/intensor4.bin", "after/outtensor0.bin",
    "after/outtensor1.bin"};
static int g_maps[7];

static void count_hook(const char *path, int fd)
{
    size_t n = strlen(g_call);
    int i;
    (void)fd;
    for (i = 0; i < 7; i++)
        if (strncmp(path, g_call, n) == 0 && path[n] == '/' &&
            strcmp(path + n + 1, k_files[i]) == 0)
            g_maps[i]++;
}

static void test_mapped_call_judged(void **state)
{
    /* the caches: once read-only, the pre-call ones once more privately
     * for the golden; the small tensors are read */
    static const int want_maps[7] = {0, 0, 2, 2, 0, 1, 1};
    kvg_scan_result r;
    unsigned char *before, *after;
    size_t n0, n1;
    int i;
    (void)state;
    make_dump(-1);
    before = slurp("before/intensor2.bin", &n0);
    memset(g_maps, 0, sizeof g_maps);
    kvg_map_test_hook = count_hook;
    judge(&r);
    kvg_map_test_hook = NULL;
    for (i = 0; i < 7; i++)
        if (g_maps[i] != want_maps[i])
            fail_msg("%s mapped %d times, want %d", k_files[i], g_maps[i],
                     want_maps[i]);
    if (r.verdict != KVG_VERDICT_PASS)
        fail_msg("honest call: %s", r.reason);
    assert_int_equal(r.n_tensors, 2);
    kvg_scan_result_free(&r);
    /* the golden updated a private mapping, never the dump */
    after = slurp("before/intensor2.bin", &n1);
    assert_int_equal(n0, n1);
    kvgt_assert_bytes_equal(after, before, n0, "before/intensor2.bin");
    free(before);
    free(after);

    /* far from every written slot: the untouched part is judged whole */
    make_dump((long)(700 * BSZ + 3) * ROW_ELEMS + 7);
    judge(&r);
    assert_int_equal(r.verdict, KVG_VERDICT_FAIL);
    assert_int_equal(r.n_failed, 1);
    assert_non_null(strstr(r.reason, "key_cache"));
    kvg_scan_result_free(&r);
}

static void shrink_hook(const char *path, int fd)
{
    (void)fd;
    if (strcmp(path, g_victim) == 0 && ++g_seen == g_nth)
        assert_int_equal(truncate(path, 64), 0);
}

/* Judge the call in a child with the guard installed and `rel` truncated
 * at its nth mapping: exit 2, stderr naming the file. */
static void assert_shrunk(const char *rel, int nth)
{
    char err[2048], want[400];
    size_t used = 0;
    ssize_t got;
    int p[2], status = 0;
    pid_t pid;

    make_dump(-1);
    (void)snprintf(g_victim, sizeof g_victim, "%s/%s", g_call, rel);
    g_nth = nth;
    g_seen = 0;
    assert_int_equal(pipe(p), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        kvg_scan_result r;
        close(p[0]);
        (void)dup2(p[1], 2);
        if (!kvg_map_guard_install(kvg_cli_file_shrank))
            _exit(4);
        kvg_map_test_hook = shrink_hook;
        judge(&r);
        _exit(3); /* got past the truncated data */
    }
    close(p[1]);
    while (used < sizeof err - 1 &&
           (got = read(p[0], err + used, sizeof err - 1 - used)) > 0)
        used += (size_t)got;
    err[used] = '\0';
    close(p[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status))
        fail_msg("%s: the child died of signal %d: %s", rel,
                 WTERMSIG(status), err);
    if (WEXITSTATUS(status) != 2)
        fail_msg("%s: the child exited %d: %s", rel, WEXITSTATUS(status),
                 err);
    (void)snprintf(want, sizeof want,
                   "kvgold: %s: the file shrank while it was being read",
                   g_victim);
    if (strstr(err, want) == NULL)
        fail_msg("stderr lacks '%s': %s", want, err);
}

static void test_shrunk_post_call_dump(void **state)
{
    (void)state;
    assert_shrunk("after/outtensor0.bin", 1);
}

static void test_shrunk_cache_the_golden_writes(void **state)
{
    (void)state;
    /* mapped read-only as the call's input first, then privately for the
     * golden to update */
    assert_shrunk("before/intensor2.bin", 2);
}

/* kvg_region_map itself: the bytes at an odd offset, a private mapping
 * whose writes never reach the file, refusals naming the file. */
static void test_region_map(void **state)
{
    enum { N = 3 * 4096 + 77 };
    unsigned char *want = kvgt_alloc_poisoned(N, 5);
    unsigned char *back;
    char path[128];
    kvg_file_map m, p;
    kvg_tensor t, pt;
    kvg_diag diag;
    void *data;
    size_t n;
    FILE *f;
    (void)state;
    (void)snprintf(path, sizeof path, "%s/region.bin", g_root);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(want, 1, N, f), N);
    assert_int_equal(fclose(f), 0);

    assert_int_equal(kvg_region_map(path, "region.bin", 4097, 8000,
                                    KVG_MAP_READ, &m, &data, &diag),
                     KVG_OK);
    assert_int_equal(m.offset, 4096);
    kvgt_assert_bytes_equal(data, want + 4097, 8000, "the mapped bytes");
    t = kvg_tensor_make(data, 8000, KVG_INT8, 1, (const int64_t[]){8000});
    assert_int_equal(kvg_file_map_private(path, &m, &t, &pt, &p, &diag),
                     KVG_OK);
    kvgt_assert_bytes_equal(pt.data, want + 4097, 8000, "the private copy");
    memset(pt.data, 0x5A, 8000); /* the golden writes it */
    kvgt_assert_bytes_equal(data, want + 4097, 8000, "the input after");
    kvg_file_unmap(&p);
    kvg_file_unmap(&m);
    (void)snprintf(g_call, sizeof g_call, "%s", g_root);
    back = slurp("region.bin", &n);
    assert_int_equal(n, N);
    kvgt_assert_bytes_equal(back, want, N, "region.bin");
    free(back);

    assert_int_equal(kvg_region_map(path, "region.bin", 4097, N,
                                    KVG_MAP_READ, &m, &data, &diag),
                     KVG_ERR_FILE_FORMAT);
    assert_null(m.base);
    assert_non_null(strstr(diag.message, "region.bin: truncated"));
    assert_int_equal(kvg_region_map(path, "region.bin", 5, 0, KVG_MAP_READ,
                                    &m, &data, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_int_equal(kvg_region_map(g_root, "dir", 0, 1, KVG_MAP_READ, &m,
                                    &data, &diag),
                     KVG_ERR_IO);
    free(want);
}

/* What the scan command needs of the rest of the CLI. */
int kvg_cli_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "kvgold: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    return KVG_EXIT_INVALID;
}

static size_t read_all(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n;
    assert_non_null(f);
    n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
    return n;
}

/* `kvgold scan --jobs 2` over two calls, the second call's post-call
 * cache truncated once its worker maps it: that worker ends with the
 * guard's exit 2 naming the file, and the command exits 2 without a
 * report, as one process would. */
static void test_shrunk_in_a_worker(void **state)
{
    char out[256], err[256], text[4096], want[400];
    char *argv[4];
    int status = 0;
    pid_t pid;
    (void)state;
    make_dump_in("1_ReshapeAndCacheOperation", -1);
    make_dump_in("2_ReshapeAndCacheOperation", -1);
    (void)snprintf(g_victim, sizeof g_victim, "%s/after/outtensor0.bin",
                   g_call);
    g_nth = 1;
    g_seen = 0;
    (void)snprintf(out, sizeof out, "%s.out", g_root);
    (void)snprintf(err, sizeof err, "%s.err", g_root);
    argv[0] = g_root;
    argv[1] = (char *)"--jobs";
    argv[2] = (char *)"2";
    argv[3] = NULL;
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (freopen(out, "w", stdout) == NULL ||
            freopen(err, "w", stderr) == NULL || !kvg_map_guard_install(kvg_cli_file_shrank))
            _exit(4);
        kvg_map_test_hook = shrink_hook; /* the workers inherit it */
        status = kvg_cli_scan(3, argv);
        fflush(stdout);
        _exit(status);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    (void)read_all(err, text, sizeof text);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != KVG_EXIT_INVALID)
        fail_msg("scan --jobs 2 ended with status %d: %s", status, text);
    (void)snprintf(want, sizeof want,
                   "kvgold: %s: the file shrank while it was being read",
                   g_victim);
    if (strstr(text, want) == NULL)
        fail_msg("stderr lacks '%s': %s", want, text);
    assert_int_equal(read_all(out, text, sizeof text), 0); /* no report */
    (void)remove(out);
    (void)remove(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_region_map),
        cmocka_unit_test(test_mapped_call_judged),
        cmocka_unit_test(test_shrunk_post_call_dump),
        cmocka_unit_test(test_shrunk_cache_the_golden_writes),
        cmocka_unit_test(test_shrunk_in_a_worker),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
