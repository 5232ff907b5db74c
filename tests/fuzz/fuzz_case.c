/*
 * tests/fuzz/fuzz_case.c - the case.json loader (and, for a document it
 * accepts, the operator it names) on arbitrary text. The input becomes
 * case.json in a scratch case directory that also holds a few small valid
 * .npy files (t_f16.npy, t_bf16.npy, t_i8.npy, t_i32.npy, t_i64.npy,
 * t_f32.npy, t_u8.npy; and t_f16_key.npy [4, 1, 32], t_f16_cache.npy
 * [2, 4, 1, 32], t_i32_{0,1,4}.npy [1] filled with that value, for a
 * valid per-head copy case the fuzzer can start from) for the
 * document to refer to. Loading must succeed
 * or fail with a message; running must succeed or fail with a message;
 * neither may crash or touch memory it does not own.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case.h"
#include "kvgold/npy.h"
#include "npy_file.h"

static char g_dir[64];

/* A .npy of the byte pattern i*37+11, or (int32 files named t_i32_<v>)
 * every element v, so that index tensors of a valid call exist. */
static void write_npy(const char *name, kvg_dtype dtype, int rank,
                      const int64_t *shape)
{
    char path[128];
    size_t bytes = kvg_dtype_size(dtype), i;
    unsigned char *buf;
    kvg_tensor t;
    int d;
    for (d = 0; d < rank; d++)
        bytes *= (size_t)shape[d];
    buf = (unsigned char *)malloc(bytes);
    if (buf == NULL)
        abort();
    for (i = 0; i < bytes; i++)
        buf[i] = (unsigned char)(i * 37u + 11u);
    if (strncmp(name, "t_i32_", 6) == 0) {
        const int32_t v = (int32_t)(name[6] - '0');
        for (i = 0; i < bytes; i += 4)
            memcpy(buf + i, &v, 4);
    }
    t = kvg_tensor_make(buf, bytes, dtype, rank, shape);
    (void)snprintf(path, sizeof path, "%s/%s", g_dir, name);
    if (kvg_npy_save(path, &t, NULL) != KVG_OK)
        abort();
    free(buf);
}

static const char *const k_files[] = {
    "t_f16.npy", "t_bf16.npy", "t_f32.npy", "t_i8.npy", "t_u8.npy",
    "t_i32.npy", "t_i64.npy", "t_f16_key.npy", "t_f16_cache.npy",
    "t_i32_0.npy", "t_i32_1.npy", "t_i32_4.npy", "case.json"};

/* Remove the scratch directory at exit (libFuzzer and the replay runner
 * both exit normally), so runs do not pile up directories in /tmp. */
static void cleanup(void)
{
    char path[128];
    size_t i;
    for (i = 0; i < sizeof k_files / sizeof k_files[0]; i++) {
        (void)snprintf(path, sizeof path, "%s/%s", g_dir, k_files[i]);
        (void)remove(path);
    }
    (void)rmdir(g_dir);
}

static void setup(void)
{
    static const int64_t s1[] = {64}, s2[] = {4, 32}, s4[] = {2, 1, 4, 32};
    static const int64_t s3[] = {4, 1, 32}, sc[] = {2, 4, 1, 32}, one[] = {1};
    strcpy(g_dir, "/tmp/kvg_fuzz_case_XXXXXX");
    if (mkdtemp(g_dir) == NULL)
        abort();
    (void)atexit(cleanup);
    write_npy("t_f16.npy", KVG_FP16, 2, s2);
    write_npy("t_bf16.npy", KVG_BF16, 2, s2);
    write_npy("t_f32.npy", KVG_FP32, 1, s1);
    write_npy("t_i8.npy", KVG_INT8, 4, s4);
    write_npy("t_u8.npy", KVG_HIF8, 4, s4);
    write_npy("t_i32.npy", KVG_INT32, 1, s1);
    write_npy("t_i64.npy", KVG_INT64, 1, s1);
    /* a valid call of an operator on the per-head copy engine: key and
     * value [4, 1, 32], caches [2, 4, 1, 32], per-head indices of 0, 1
     * and 4 */
    write_npy("t_f16_key.npy", KVG_FP16, 3, s3);
    write_npy("t_f16_cache.npy", KVG_FP16, 4, sc);
    write_npy("t_i32_0.npy", KVG_INT32, 1, one);
    write_npy("t_i32_1.npy", KVG_INT32, 1, one);
    write_npy("t_i32_4.npy", KVG_INT32, 1, one);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[128];
    FILE *f;
    kvg_case c;
    kvg_case_set out;
    kvg_diag diag;
    kvg_status st;

    if (g_dir[0] == '\0')
        setup();
    (void)snprintf(path, sizeof path, "%s/case.json", g_dir);
    f = fopen(path, "wb");
    if (f == NULL)
        abort();
    if (size != 0 && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    kvg_diag_clear(&diag);
    st = kvg_case_load(g_dir, &c, &diag);
    if (st != KVG_OK) {
        if (diag.message[0] == '\0')
            abort();
        return 0;
    }
    memset(&out, 0, sizeof out);
    kvg_diag_clear(&diag);
    st = kvg_case_run(&c, &out, &diag);
    if (st != KVG_OK && diag.message[0] == '\0')
        abort();
    kvg_case_set_free(&out);
    kvg_case_free(&c);
    return 0;
}
