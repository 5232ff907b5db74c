/*
 * tests/test_fsio.c - the tools' file layer (tools/lib/fsio): the .npy/.bin
 * reader's refusals (special files, sizes that disagree with the header,
 * the memory limit) and the all-or-nothing output writer (kvg_outset):
 * nothing new and nothing old lost on every failure, symlinks and hard
 * links at a target replaced rather than written through.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "membudget.h"
#include "npy_file.h"
#include "map_guard.h"
#include "npy_map.h"
#include "outset.h"
#include "tensor_file.h"

static char g_root[64];

static void path_of(char *buf, size_t cap, const char *leaf)
{
    (void)snprintf(buf, cap, "%s/%s", g_root, leaf);
}

static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* The whole content of a file (at most cap bytes); its size. */
static size_t read_bytes(const char *path, void *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n;
    assert_non_null(f);
    n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

/* Names in `dir` other than . and .. (so stray temporary files show). */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static void assert_contains(const char *msg, const char *fragment)
{
    if (strstr(msg, fragment) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", msg, fragment);
}

/* A 1-d fp32 .npy header for `n` elements, written by hand (NumPy's
 * layout: 10-byte preamble, dict, spaces, newline; 128 bytes in all). */
#define HDR 128
static size_t npy_header_f4(unsigned char *h, long n)
{
    char dict[100];
    int len = snprintf(dict, sizeof dict,
                       "{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (%ld,), }", n);
    memcpy(h, "\x93NUMPY\x01\x00\x76\x00", 10);
    memset(h + 10, ' ', HDR - 10);
    memcpy(h + 10, dict, (size_t)len);
    h[HDR - 1] = '\n';
    return HDR;
}

static int setup(void **state)
{
    (void)state;
    strcpy(g_root, "/tmp/kvg_test_fsio_XXXXXX");
    return mkdtemp(g_root) != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];
    (void)state;
    (void)snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---- reading ---------------------------------------------------------- */

static void expect_load_error(const char *path, kvg_status want,
                              const char *fragment)
{
    kvg_tensor t;
    kvg_diag diag;
    kvg_diag_clear(&diag);
    assert_int_equal(kvg_npy_load(path, KVG_FP32, &t, &diag), want);
    assert_null(t.data);
    assert_contains(diag.message, path);
    assert_contains(diag.message, fragment);
    assert_true(kvg_mem_held() == 0);
}

static void test_special_files_refused(void **state)
{
    char fifo[128], dir[128], zero[128];
    (void)state;
    path_of(fifo, sizeof fifo, "fifo.npy");
    path_of(dir, sizeof dir, "dir.npy");
    path_of(zero, sizeof zero, "zero.npy");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_int_equal(symlink("/dev/zero", zero), 0);
    /* a FIFO with no writer would block a plain open forever */
    expect_load_error(fifo, KVG_ERR_IO, "a FIFO");
    expect_load_error(dir, KVG_ERR_IO, "a directory");
    expect_load_error(zero, KVG_ERR_IO, "a character device");
    path_of(dir, sizeof dir, "missing.npy");
    expect_load_error(dir, KVG_ERR_IO, "No such file or directory");
}

/* Sizes are judged from the header and fstat alone: a 2 GiB sparse file
 * whose header says 4 elements is refused with nothing reserved, and a
 * header that claims 2^40 elements over a 16-byte file is refused too. */
static void test_sizes_checked_before_reading(void **state)
{
    unsigned char h[HDR + 16];
    char path[128];
    int fd;
    (void)state;
    path_of(path, sizeof path, "junk.npy");
    npy_header_f4(h, 4);
    kvgt_poison(h + HDR, 16, 1);
    write_bytes(path, h, sizeof h);
    fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)1 << 31), 0);
    close(fd);
    expect_load_error(path, KVG_ERR_FILE_FORMAT, "trailing data");

    path_of(path, sizeof path, "huge.npy");
    npy_header_f4(h, 1099511627776L);
    write_bytes(path, h, sizeof h);
    expect_load_error(path, KVG_ERR_FILE_FORMAT, "short data");
}

static void test_memory_limit(void **state)
{
    unsigned char h[HDR + 400];
    char path[128];
    kvg_tensor t;
    kvg_diag diag;
    (void)state;
    path_of(path, sizeof path, "f100.npy");
    npy_header_f4(h, 100);
    kvgt_poison(h + HDR, 400, 2);
    write_bytes(path, h, sizeof h);
    kvg_mem_set_limit(399, "--max-memory");
    kvg_diag_clear(&diag);
    assert_int_equal(kvg_npy_load(path, KVG_FP32, &t, &diag), KVG_ERR_NOMEM);
    assert_contains(diag.message, "needs 400 bytes");
    assert_contains(diag.message, "limit of 399 bytes");
    assert_true(kvg_mem_held() == 0);
    kvg_mem_set_limit(400, "--max-memory");
    assert_int_equal(kvg_npy_load(path, KVG_FP32, &t, &diag), KVG_OK);
    assert_true(kvg_mem_held() == 400);
    kvgt_assert_bytes_equal(t.data, h + HDR, 400, "data");
    kvg_npy_free(&t);
    assert_true(kvg_mem_held() == 0);
    kvg_mem_set_limit(0, NULL);
}

static void test_parse_size(void **state)
{
    uint64_t v = 0;
    (void)state;
    assert_true(kvg_mem_parse_size("4096", &v) && v == 4096);
    assert_true(kvg_mem_parse_size("512K", &v) && v == 524288);
    assert_true(kvg_mem_parse_size("3m", &v) && v == 3145728);
    assert_true(kvg_mem_parse_size("1.5G", &v) && v == 1610612736u);
    assert_true(kvg_mem_parse_size("2GiB", &v) && v == 2147483648u);
    assert_false(kvg_mem_parse_size("", &v));
    assert_false(kvg_mem_parse_size("G", &v));
    assert_false(kvg_mem_parse_size("12x", &v));
    assert_false(kvg_mem_parse_size("1.5", &v));
    assert_false(kvg_mem_parse_size("99999999999999999999", &v));
    assert_false(kvg_mem_parse_size("20000000T", &v));
    /* every 64-bit count is accepted, UINT64_MAX itself included; one
     * more is not */
    assert_true(kvg_mem_parse_size("18446744073709551615", &v) &&
                v == UINT64_MAX);
    assert_true(kvg_mem_parse_size("18446744073709551614", &v) &&
                v == UINT64_MAX - 1);
    assert_false(kvg_mem_parse_size("18446744073709551616", &v));
    assert_false(kvg_mem_parse_size("18446744073709551620", &v));
    assert_true(kvg_mem_parse_size("16777215T", &v) &&
                v == (uint64_t)16777215 << 40);
    assert_false(kvg_mem_parse_size("16777216T", &v));
}

/* mkdir -p of g_root/rel, then write `text` to g_root/rel/leaf. */
static void fake_file(const char *rel, const char *leaf, const char *text)
{
    char path[512];
    char *s;
    (void)snprintf(path, sizeof path, "%s/%s/", g_root, rel);
    for (s = path + strlen(g_root) + 1; *s != '\0'; s++)
        if (*s == '/') {
            *s = '\0';
            assert_true(mkdir(path, 0700) == 0 || errno == EEXIST);
            *s = '/';
        }
    (void)snprintf(path, sizeof path, "%s/%s/%s", g_root, rel, leaf);
    write_bytes(path, text, strlen(text));
}

/* The default memory limit takes the cgroup's room (limit minus usage, of
 * the process's own cgroup and every ancestor) into account, v1 and v2,
 * read from a fake root. */
static void test_cgroup_limit(void **state)
{
    const char *source = NULL;
    char root[256];
    uint64_t room = 0;
    (void)state;

    /* v2: the parent's limit (100 MiB, 4 MiB used) binds; the leaf has
     * none, the machine has 8 GiB available */
    fake_file("cg2/proc", "meminfo", "MemTotal: 16000000 kB\n"
                                      "MemAvailable: 8388608 kB\n");
    fake_file("cg2/proc/self", "cgroup", "0::/user/app\n");
    fake_file("cg2/sys/fs/cgroup", "memory.max", "max\n");
    fake_file("cg2/sys/fs/cgroup/user", "memory.max", "104857600\n");
    fake_file("cg2/sys/fs/cgroup/user", "memory.current", "4194304\n");
    fake_file("cg2/sys/fs/cgroup/user/app", "memory.max", "max\n");
    fake_file("cg2/sys/fs/cgroup/user/app", "memory.current", "4000\n");
    path_of(root, sizeof root, "cg2");
    assert_int_equal(kvg_mem_cgroup_room(root, &room), 1);
    assert_true(room == 104857600u - 4194304u);
    fake_file("cg2/sys/fs/cgroup/user", "memory.stat",
              "anon 1048576\nfile 3145728\nactive_file 1048576\n"
              "inactive_file 2097152\n");
    assert_int_equal(kvg_mem_cgroup_room(root, &room), 1);
    assert_true(room == 104857600u - (4194304u - 2097152u));
    fake_file("cg2/sys/fs/cgroup/user", "memory.stat", "inactive_file 0\n");
    assert_true(kvg_mem_default_limit_at(root, &source) ==
                104857600u - 4194304u);
    assert_non_null(strstr(source, "cgroup"));

    /* v1: the memory controller's own path; 200 MiB with 10 MiB used;
     * the top level's 2^63 - 4096 means no limit */
    fake_file("cg1/proc", "meminfo", "MemAvailable: 8388608 kB\n");
    fake_file("cg1/proc/self", "cgroup",
              "5:cpu,cpuacct:/x\n4:memory:/process_api/abc\n0::/\n");
    fake_file("cg1/sys/fs/cgroup/memory", "memory.limit_in_bytes",
              "9223372036854771712\n");
    fake_file("cg1/sys/fs/cgroup/memory/process_api/abc",
              "memory.limit_in_bytes", "209715200\n");
    fake_file("cg1/sys/fs/cgroup/memory/process_api/abc",
              "memory.usage_in_bytes", "10485760\n");
    path_of(root, sizeof root, "cg1");
    assert_int_equal(kvg_mem_cgroup_room(root, &room), 1);
    assert_true(room == 209715200u - 10485760u);
    assert_true(kvg_mem_default_limit_at(root, &source) ==
                209715200u - 10485760u);
    /* inactive page cache is reclaimable: not counted as used */
    fake_file("cg1/sys/fs/cgroup/memory/process_api/abc", "memory.stat",
              "cache 8388608\ninactive_file 1\n"
              "total_inactive_file 6291456\n");
    assert_int_equal(kvg_mem_cgroup_room(root, &room), 1);
    assert_true(room == 209715200u - (10485760u - 6291456u));

    /* a cgroup with more room than the machine: MemAvailable binds */
    fake_file("cg1/sys/fs/cgroup/memory/process_api/abc",
              "memory.limit_in_bytes", "68719476736\n");
    assert_true(kvg_mem_default_limit_at(root, &source) ==
                (uint64_t)8388608 * 1024);
    assert_non_null(strstr(source, "MemAvailable"));

    /* a namespace: the own path is not visible, the mount is the cgroup */
    fake_file("cgns/proc", "meminfo", "MemAvailable: 8388608 kB\n");
    fake_file("cgns/proc/self", "cgroup", "0::/docker/feed\n");
    fake_file("cgns/sys/fs/cgroup", "memory.max", "52428800\n");
    fake_file("cgns/sys/fs/cgroup", "memory.current", "60000000\n");
    path_of(root, sizeof root, "cgns");
    assert_int_equal(kvg_mem_cgroup_room(root, &room), 1);
    assert_true(room == 0); /* over its limit already: no room */
    assert_true(kvg_mem_default_limit_at(root, &source) == 1);

    /* no limit anywhere: MemAvailable */
    fake_file("cgnone/proc", "meminfo", "MemAvailable: 1024 kB\n");
    fake_file("cgnone/proc/self", "cgroup", "0::/\n");
    fake_file("cgnone/sys/fs/cgroup", "memory.max", "max\n");
    path_of(root, sizeof root, "cgnone");
    assert_int_equal(kvg_mem_cgroup_room(root, &room), 0);
    assert_true(kvg_mem_default_limit_at(root, &source) == 1048576u);
}

/* The default --jobs: the affinity mask's CPUs, lowered to the CPU quota
 * of the process's cgroup or any ancestor (rounded up), v1 and v2, read
 * from a fake root; at least 1. */
static void test_available_cores(void **state)
{
    const char *source = NULL;
    char root[256];
    (void)state;

    /* no cgroup files at all: the affinity count; unknown affinity: 1 */
    path_of(root, sizeof root, "cpunone");
    assert_int_equal(kvg_available_cores_at(root, 6, &source), 6);
    assert_non_null(strstr(source, "sched_getaffinity"));
    assert_int_equal(kvg_available_cores_at(root, 0, &source), 1);

    /* v2: the leaf has no quota, its parent 2.5 CPUs (rounded up: 3), the
     * top none */
    fake_file("cpu2/proc/self", "cgroup", "0::/user/app\n");
    fake_file("cpu2/sys/fs/cgroup", "cpu.max", "max 100000\n");
    fake_file("cpu2/sys/fs/cgroup/user", "cpu.max", "250000 100000\n");
    fake_file("cpu2/sys/fs/cgroup/user/app", "cpu.max", "max 100000\n");
    path_of(root, sizeof root, "cpu2");
    assert_int_equal(kvg_available_cores_at(root, 64, &source), 3);
    assert_non_null(strstr(source, "quota"));
    /* fewer CPUs in the mask than the quota: the mask binds */
    assert_int_equal(kvg_available_cores_at(root, 2, &source), 2);
    assert_non_null(strstr(source, "sched_getaffinity"));
    /* a quota below one CPU still allows one worker */
    fake_file("cpu2/sys/fs/cgroup/user/app", "cpu.max", "20000 100000\n");
    assert_int_equal(kvg_available_cores_at(root, 64, &source), 1);

    /* v1: cpu,cpuacct controller, quota 400 ms per 100 ms: 4 CPUs; -1 at
     * the top is no quota */
    fake_file("cpu1/proc/self", "cgroup",
              "5:cpu,cpuacct:/kubepods/pod1\n4:memory:/x\n0::/\n");
    fake_file("cpu1/sys/fs/cgroup/cpu,cpuacct", "cpu.cfs_quota_us", "-1\n");
    fake_file("cpu1/sys/fs/cgroup/cpu,cpuacct", "cpu.cfs_period_us",
              "100000\n");
    fake_file("cpu1/sys/fs/cgroup/cpu,cpuacct/kubepods/pod1",
              "cpu.cfs_quota_us", "400000\n");
    fake_file("cpu1/sys/fs/cgroup/cpu,cpuacct/kubepods/pod1",
              "cpu.cfs_period_us", "100000\n");
    path_of(root, sizeof root, "cpu1");
    assert_int_equal(kvg_available_cores_at(root, 16, &source), 4);
    fake_file("cpu1/sys/fs/cgroup/cpu,cpuacct/kubepods/pod1",
              "cpu.cfs_quota_us", "-1\n");
    assert_int_equal(kvg_available_cores_at(root, 16, &source), 16);

    /* this machine: at least one, never more than the online CPUs */
    assert_true(kvg_available_cores(&source) >= 1);
    assert_true(kvg_available_cores(NULL) <= sysconf(_SC_NPROCESSORS_ONLN));
}

static void test_raw_bin(void **state)
{
    static const int64_t shape[2] = {3, 4};
    unsigned char raw[24];
    char path[128];
    kvg_tensor t;
    kvg_diag diag;
    (void)state;
    path_of(path, sizeof path, "x.bin");
    kvgt_poison(raw, sizeof raw, 3);
    write_bytes(path, raw, sizeof raw);
    assert_int_equal(kvg_raw_load(path, KVG_BF16, 2, shape, &t, &diag),
                     KVG_OK);
    assert_int_equal(t.rank, 2);
    assert_true(t.shape[1] == 4 && t.nbytes == 24 && t.dtype == KVG_BF16);
    kvgt_assert_bytes_equal(t.data, raw, 24, "bin data");
    kvg_npy_free(&t);
    write_bytes(path, raw, 23);
    assert_int_equal(kvg_raw_load(path, KVG_BF16, 2, shape, &t, &diag),
                     KVG_ERR_FILE_FORMAT);
    assert_contains(diag.message, "raw file is 23 bytes");
    assert_contains(diag.message, "need 24");
}

/* ---- the all-or-nothing writer ---------------------------------------- */

/* A poisoned fp16 tensor of n elements (freed by the caller). */
/* kvg_pread_full / kvg_write_full: a read past the end is short, not an
 * error; an OS refusal (EBADF: reading a write-only descriptor, writing a
 * read-only one) is KVG_ERR_IO naming the file, the diag tensor and
 * strerror's reason, with errno still the OS's. */
static void test_full_io(void **state)
{
    const char text[] = "0123456789";
    char path[256], want[512], buf[16];
    kvg_diag diag;
    size_t got = 99;
    int fd;
    (void)state;
    path_of(path, sizeof path, "full_io.bin");
    write_bytes(path, text, 10);

    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    memset(buf, 'x', sizeof buf);
    assert_int_equal(kvg_pread_full(fd, buf, 8, 4, &got, path, "t", &diag),
                     KVG_OK);
    assert_int_equal(got, 6); /* bytes 4..9, then end of file */
    assert_memory_equal(buf, "456789xx", 8);
    assert_int_equal(kvg_write_full(fd, "ab", 2, path, "out", &diag),
                     KVG_ERR_IO);
    assert_int_equal(errno, EBADF);
    (void)snprintf(want, sizeof want, "%s: write error: %s", path,
                   strerror(EBADF));
    assert_string_equal(diag.message, want);
    assert_string_equal(diag.tensor, "out");
    close(fd);

    fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(kvg_pread_full(fd, buf, 4, 0, &got, path, "t", &diag),
                     KVG_ERR_IO);
    assert_int_equal(errno, EBADF);
    (void)snprintf(want, sizeof want, "%s: cannot read: %s", path,
                   strerror(EBADF));
    assert_string_equal(diag.message, want);
    assert_string_equal(diag.tensor, "t");
    assert_int_equal(kvg_write_full(fd, "AB", 2, path, "out", &diag), KVG_OK);
    close(fd);
    assert_int_equal(read_bytes(path, buf, sizeof buf), 10);
    assert_memory_equal(buf, "AB23456789", 10);
}

static kvg_tensor tensor_of(int64_t n, uint64_t seed)
{
    return kvgt_tensor_new(KVG_FP16, 1, &n, seed);
}

/* dir/name holds exactly t as .npy. */
static void assert_npy_holds(const char *path, const kvg_tensor *t)
{
    kvg_tensor back;
    kvg_diag diag;
    if (kvg_npy_load(path, t->dtype, &back, &diag) != KVG_OK)
        fail_msg("%s", diag.message);
    assert_true(back.nbytes == t->nbytes);
    kvgt_assert_bytes_equal(back.data, t->data, t->nbytes, path);
    kvg_npy_free(&back);
}

static void assert_file_is(const char *path, const char *text)
{
    char buf[64];
    size_t n = read_bytes(path, buf, sizeof buf);
    assert_true(n == strlen(text));
    assert_memory_equal(buf, text, n);
}

static void test_outset_commit(void **state)
{
    char dir[128], a[160], b[160], victim[128], other[128];
    kvg_tensor ta = tensor_of(5, 11), tb = tensor_of(300, 12);
    kvg_outset *o;
    kvg_diag diag;
    struct stat sb;
    (void)state;
    path_of(dir, sizeof dir, "made/by/run");
    path_of(victim, sizeof victim, "victim.txt");
    path_of(other, sizeof other, "other_link.txt");
    assert_int_equal(kvg_outset_begin(&o, dir, &diag), KVG_OK);
    (void)snprintf(a, sizeof a, "%s/a.npy", dir);
    (void)snprintf(b, sizeof b, "%s/b.npy", dir);
    /* a.npy has a second hard link; b.npy is a symlink to a victim */
    write_bytes(a, "OLD-A", 5);
    assert_int_equal(link(a, other), 0);
    write_bytes(victim, "VICTIM", 6);
    assert_int_equal(symlink(victim, b), 0);
    assert_int_equal(kvg_outset_check(o, "a.npy", NULL, 0, &diag), KVG_OK);
    assert_int_equal(kvg_outset_check(o, "b.npy", NULL, 0, &diag), KVG_OK);
    assert_int_equal(kvg_outset_add_npy(o, "a.npy", &ta, &diag), KVG_OK);
    assert_int_equal(kvg_outset_add_npy(o, "b.npy", &tb, &diag), KVG_OK);
    /* before the commit the targets are untouched (temporaries beside) */
    assert_file_is(a, "OLD-A");
    assert_int_equal(count_entries(dir), 4);
    assert_int_equal(kvg_outset_commit(o, &diag), KVG_OK);
    assert_string_equal(kvg_outset_path(o, 1), b);
    kvg_outset_end(o);
    assert_npy_holds(a, &ta);
    assert_npy_holds(b, &tb);
    assert_file_is(other, "OLD-A");  /* the hard link kept the old bytes */
    assert_file_is(victim, "VICTIM"); /* the symlink was not followed */
    assert_int_equal(lstat(b, &sb), 0);
    assert_true(S_ISREG(sb.st_mode));
    assert_int_equal(count_entries(dir), 2); /* no temporaries, no backups */
    kvgt_tensor_free(&ta);
    kvgt_tensor_free(&tb);
}

static void test_outset_refusals(void **state)
{
    char dir[128], p[160], prot[160];
    const char *protect[1];
    kvg_outset *o;
    kvg_diag diag;
    (void)state;
    assert_int_equal(kvg_outset_begin(&o, "", &diag), KVG_ERR_PARAM_INVALID);
    assert_null(o);
    assert_contains(diag.message, "empty path");
    path_of(p, sizeof p, "plain_file");
    write_bytes(p, "x", 1);
    assert_int_equal(kvg_outset_begin(&o, p, &diag), KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "not a directory");

    path_of(dir, sizeof dir, "refuse");
    assert_int_equal(kvg_outset_begin(&o, dir, &diag), KVG_OK);
    assert_int_equal(kvg_outset_forbid_dir(o, dir, "the case directory",
                                           &diag), KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "the case directory");
    (void)snprintf(p, sizeof p, "%s/d.npy", dir);
    assert_int_equal(mkdir(p, 0700), 0);
    assert_int_equal(kvg_outset_check(o, "d.npy", NULL, 0, &diag), KVG_ERR_IO);
    assert_contains(diag.message, "is a directory");
    (void)snprintf(p, sizeof p, "%s/ro.npy", dir);
    write_bytes(p, "RO", 2);
    assert_int_equal(chmod(p, 0444), 0);
    assert_int_equal(kvg_outset_check(o, "ro.npy", NULL, 0, &diag),
                     KVG_ERR_IO);
    assert_contains(diag.message, "read-only");
    /* a target that is (a hard link to) one of the case's files */
    path_of(prot, sizeof prot, "case_input.npy");
    write_bytes(prot, "CASE", 4);
    (void)snprintf(p, sizeof p, "%s/k.npy", dir);
    assert_int_equal(link(prot, p), 0);
    protect[0] = prot;
    assert_int_equal(kvg_outset_check(o, "k.npy", protect, 1, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "is the case's file");
    assert_int_equal(kvg_outset_check(o, "new.npy", protect, 1, &diag),
                     KVG_OK);
    assert_int_equal(kvg_outset_check(o, "../x.npy", NULL, 0, &diag),
                     KVG_ERR_PARAM_INVALID);
    kvg_outset_end(o);
    assert_file_is(prot, "CASE");
}

/* Delete the file of `dir` whose name starts with `prefix`. */
static void remove_temp_of(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[256];
    int removed = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            (void)snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            assert_int_equal(unlink(path), 0);
            removed++;
        }
    closedir(d);
    assert_int_equal(removed, 1);
}

/* A rename that fails during the commit (a directory appeared at the
 * second target): the first target gets its old bytes back, the new
 * files vanish, nothing stray is left. */
static void test_outset_rollback(void **state)
{
    char dir[128], a[160], b[160];
    kvg_tensor ta = tensor_of(7, 21), tb = tensor_of(9, 22);
    kvg_outset *o;
    kvg_diag diag;
    (void)state;
    path_of(dir, sizeof dir, "rollback");
    assert_int_equal(kvg_outset_begin(&o, dir, &diag), KVG_OK);
    (void)snprintf(a, sizeof a, "%s/a.npy", dir);
    (void)snprintf(b, sizeof b, "%s/b.npy", dir);
    write_bytes(a, "OLD-A", 5);
    assert_int_equal(kvg_outset_add_npy(o, "a.npy", &ta, &diag), KVG_OK);
    assert_int_equal(kvg_outset_add_npy(o, "b.npy", &tb, &diag), KVG_OK);
    assert_int_equal(mkdir(b, 0700), 0);
    assert_int_equal(kvg_outset_commit(o, &diag), KVG_ERR_IO);
    assert_contains(diag.message, "b.npy");
    kvg_outset_end(o);
    assert_file_is(a, "OLD-A");
    assert_int_equal(count_entries(dir), 2); /* a.npy and the directory */
    assert_int_equal(rmdir(b), 0);

    /* Now the rename of b itself fails (its temporary file vanished) after
     * a was already renamed: both old files must come back. */
    write_bytes(b, "OLD-B", 5);
    assert_int_equal(kvg_outset_begin(&o, dir, &diag), KVG_OK);
    assert_int_equal(kvg_outset_add_npy(o, "a.npy", &ta, &diag), KVG_OK);
    assert_int_equal(kvg_outset_add_npy(o, "b.npy", &tb, &diag), KVG_OK);
    remove_temp_of(dir, ".b.npy.kvgold-");
    assert_int_equal(kvg_outset_commit(o, &diag), KVG_ERR_IO);
    assert_contains(diag.message, "cannot move the new file into place");
    kvg_outset_end(o);
    assert_file_is(a, "OLD-A");
    assert_file_is(b, "OLD-B");
    assert_int_equal(count_entries(dir), 2);
    kvgt_tensor_free(&ta);
    kvgt_tensor_free(&tb);
}

/* The second file cannot be written (file size limit, as a full disk):
 * the first, complete, temporary file goes too; the old target stays. */
static void test_outset_write_failure(void **state)
{
    char dir[128], a[160];
    kvg_tensor ta = tensor_of(8, 31), tb = tensor_of(4096, 32);
    struct rlimit old, small;
    void (*old_handler)(int);
    kvg_outset *o;
    kvg_diag diag;
    kvg_status st;
    (void)state;
    path_of(dir, sizeof dir, "full");
    assert_int_equal(kvg_outset_begin(&o, dir, &diag), KVG_OK);
    (void)snprintf(a, sizeof a, "%s/a.npy", dir);
    write_bytes(a, "OLD-A", 5);
    assert_int_equal(kvg_outset_add_npy(o, "a.npy", &ta, &diag), KVG_OK);
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small = old;
    small.rlim_cur = 4096;
    old_handler = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    st = kvg_outset_add_npy(o, "b.npy", &tb, &diag);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    (void)signal(SIGXFSZ, old_handler);
    assert_int_equal(st, KVG_ERR_IO);
    assert_contains(diag.message, "b.npy: write error: File too large");
    kvg_outset_end(o); /* the caller gives up: no commit */
    assert_file_is(a, "OLD-A");
    assert_int_equal(count_entries(dir), 1);
    kvgt_tensor_free(&ta);
    kvgt_tensor_free(&tb);
}

/* ---- temporary names and concurrent commits ---------------------------- */

static int g_bits_calls;
static uint64_t g_bits_first, g_bits_after;
static int g_bits_switch; /* calls returning g_bits_first */

static uint64_t fixed_bits(void)
{
    return g_bits_calls++ < g_bits_switch ? g_bits_first : g_bits_after;
}

/* dir/.leaf.kvgold-<this pid>-<bits>.ext: the name the writer would pick. */
static void side_path(char *buf, size_t cap, const char *dir,
                      const char *leaf, uint64_t bits, const char *ext)
{
    (void)snprintf(buf, cap, "%s/.%s.kvgold-%ld-%016llx.%s", dir, leaf,
                   (long)getpid(), (unsigned long long)bits, ext);
}

/* A leftover temporary or backup at the very name a writer picks (a
 * killed run of the same PID) neither blocks the run nor is touched: the
 * writer takes another name. */
static void test_outset_stale_names(void **state)
{
    char dir[128], a[160], tmp[256], old[256];
    kvg_tensor ta = tensor_of(6, 41), tb = tensor_of(7, 42);
    kvg_outset *o;
    kvg_diag diag;
    (void)state;
    path_of(dir, sizeof dir, "stale");
    assert_int_equal(mkdir(dir, 0700), 0);
    (void)snprintf(a, sizeof a, "%s/a.npy", dir);
    side_path(tmp, sizeof tmp, dir, "a.npy", 0x1111, "tmp");
    side_path(old, sizeof old, dir, "a.npy", 0x1111, "old");
    write_bytes(tmp, "STALE-TMP", 9);
    write_bytes(old, "STALE-OLD", 9);
    write_bytes(a, "OLD-A", 5);

    /* the first two names drawn are taken (temporary, then backup) */
    kvg_outset_random_hook = fixed_bits;
    g_bits_calls = 0;
    g_bits_switch = 1;
    g_bits_first = 0x1111;
    g_bits_after = 0x2222;
    assert_int_equal(kvg_outset_begin(&o, dir, &diag), KVG_OK);
    assert_int_equal(kvg_outset_add_npy(o, "a.npy", &ta, &diag), KVG_OK);
    assert_int_equal(g_bits_calls, 2); /* 0x1111 taken, 0x2222 used */
    g_bits_calls = 0;
    g_bits_after = 0x3333;
    assert_int_equal(kvg_outset_commit(o, &diag), KVG_OK);
    kvg_outset_end(o);
    assert_npy_holds(a, &ta);
    assert_file_is(tmp, "STALE-TMP");
    assert_file_is(old, "STALE-OLD");
    assert_int_equal(count_entries(dir), 3);

    /* every name drawn is taken: a clear error, nothing written */
    g_bits_calls = 0;
    g_bits_switch = 1000;
    assert_int_equal(kvg_outset_begin(&o, dir, &diag), KVG_OK);
    assert_int_equal(kvg_outset_add_npy(o, "a.npy", &tb, &diag), KVG_ERR_IO);
    assert_contains(diag.message, "every name tried is taken");
    kvg_outset_end(o);
    kvg_outset_random_hook = NULL;
    assert_npy_holds(a, &ta);
    assert_file_is(tmp, "STALE-TMP");
    assert_int_equal(count_entries(dir), 3);

    /* real random names: two sets in a row leave no temporary behind */
    assert_int_equal(kvg_outset_begin(&o, dir, &diag), KVG_OK);
    assert_int_equal(kvg_outset_add_npy(o, "a.npy", &tb, &diag), KVG_OK);
    assert_int_equal(kvg_outset_commit(o, &diag), KVG_OK);
    kvg_outset_end(o);
    assert_npy_holds(a, &tb);
    assert_int_equal(count_entries(dir), 3);
    kvgt_tensor_free(&ta);
    kvgt_tensor_free(&tb);
}

static int g_race_fd = -1;

/* After the first rename of the commit: let the other writer go, and give
 * it time to do its whole commit if nothing stops it. */
static void race_hook(const char *final_path)
{
    struct timespec ts = {0, 300000000L};
    (void)final_path;
    if (g_race_fd < 0)
        return;
    assert_int_equal(write(g_race_fd, "g", 1), 1);
    close(g_race_fd);
    g_race_fd = -1;
    (void)nanosleep(&ts, NULL);
}

/* Two processes commit sets of the same names into one directory, the
 * second starting while the first is between two renames: the directory
 * ends with one whole set (the second), never a mix. */
static void test_outset_concurrent_commits(void **state)
{
    char dir[128], x[160], y[160];
    kvg_tensor ax = tensor_of(10, 51), ay = tensor_of(11, 52);
    kvg_tensor bx = tensor_of(10, 53), by = tensor_of(11, 54);
    kvg_outset *o;
    kvg_diag diag;
    int go[2], status = -1;
    pid_t child;
    (void)state;
    path_of(dir, sizeof dir, "race");
    assert_int_equal(mkdir(dir, 0700), 0);
    (void)snprintf(x, sizeof x, "%s/x.npy", dir);
    (void)snprintf(y, sizeof y, "%s/y.npy", dir);
    assert_int_equal(pipe(go), 0);
    child = fork();
    assert_true(child >= 0);
    if (child == 0) { /* writer B: its set ready, commits on the signal */
        char c;
        int ok;
        close(go[1]);
        ok = kvg_outset_begin(&o, dir, &diag) == KVG_OK &&
             kvg_outset_add_npy(o, "x.npy", &bx, &diag) == KVG_OK &&
             kvg_outset_add_npy(o, "y.npy", &by, &diag) == KVG_OK &&
             read(go[0], &c, 1) == 1 &&
             kvg_outset_commit(o, &diag) == KVG_OK;
        kvg_outset_end(o);
        _exit(ok ? 0 : 1);
    }
    close(go[0]);
    g_race_fd = go[1];
    kvg_outset_commit_hook = race_hook;
    assert_int_equal(kvg_outset_begin(&o, dir, &diag), KVG_OK);
    assert_int_equal(kvg_outset_add_npy(o, "x.npy", &ax, &diag), KVG_OK);
    assert_int_equal(kvg_outset_add_npy(o, "y.npy", &ay, &diag), KVG_OK);
    assert_int_equal(kvg_outset_commit(o, &diag), KVG_OK);
    kvg_outset_end(o);
    kvg_outset_commit_hook = NULL;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_npy_holds(x, &bx);
    assert_npy_holds(y, &by);
    assert_int_equal(count_entries(dir), 2);
    kvgt_tensor_free(&ax);
    kvgt_tensor_free(&ay);
    kvgt_tensor_free(&bx);
    kvgt_tensor_free(&by);
}

/* ---- a mapped file truncated by another process ------------------------ */

static char g_shrink[256]; /* the file the hook truncates */

static void shrink_hook(const char *path, int fd)
{
    (void)fd;
    if (strcmp(path, g_shrink) == 0)
        assert_int_equal(truncate(path, 0), 0);
}

/* What a child did: its exit status and what it wrote to stderr. */
typedef struct child_result {
    int status;
    char err[1024];
} child_result;

typedef void (*child_fn)(const char *dir);

static child_result run_child(child_fn fn, const char *dir)
{
    child_result r;
    int p[2];
    ssize_t got;
    size_t used = 0;
    pid_t pid;
    memset(&r, 0, sizeof r);
    assert_int_equal(pipe(p), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        (void)dup2(p[1], 2);
        fn(dir);
        _exit(3); /* got past the read of the truncated data */
    }
    close(p[1]);
    while (used < sizeof r.err - 1 &&
           (got = read(p[0], r.err + used, sizeof r.err - 1 - used)) > 0)
        used += (size_t)got;
    close(p[0]);
    assert_int_equal(waitpid(pid, &r.status, 0), pid);
    return r;
}

/* The program's answer to a shrunk mapping (the kvgold command's is
 * kvg_cli_file_shrank, tested through the command in test_rac_scan_mapped):
 * what the guard must make possible - name the file the fault is in, and
 * remove the run's temporaries - then exit 2. */
static void on_shrunk(const char *path)
{
    kvg_outset_discard_temps();
    (void)write(2, path, strlen(path));
    (void)write(2, ": the file shrank while it was being read\n", 42);
    _exit(2);
}

/* A run in progress (one output's temporary written), then a mapped input
 * is read after another process truncated it. */
static void read_shrunk(const char *dir, kvg_map_mode mode, int write_it)
{
    kvg_tensor t, out = tensor_of(9, 61);
    kvg_file_map map;
    kvg_outset *o;
    kvg_diag diag;
    volatile unsigned char sink = 0;
    size_t i;
    if (!kvg_map_guard_install(on_shrunk) ||
        kvg_outset_begin(&o, dir, &diag) != KVG_OK ||
        kvg_outset_add_npy(o, "out.npy", &out, &diag) != KVG_OK)
        _exit(4);
    kvg_map_test_hook = shrink_hook;
    if (kvg_tensor_file_open(g_root, "big.npy", KVG_FP32, -1, NULL, mode, 0,
                             &t, &map, &diag) != KVG_OK || map.base == NULL)
        _exit(5);
    for (i = 0; i < t.nbytes; i += 997) {
        if (write_it)
            ((unsigned char *)t.data)[i] ^= 1; /* the golden updates it */
        sink ^= ((const unsigned char *)t.data)[i];
    }
    (void)sink;
}

static void child_reads(const char *dir) { read_shrunk(dir, KVG_MAP_READ, 0); }

static void child_updates(const char *dir)
{
    read_shrunk(dir, KVG_MAP_PRIVATE, 1);
}

/* The kernel reads the truncated mapping for write(): no signal, EFAULT;
 * the writer's message still names the file that shrank. */
static void child_writes_from(const char *dir)
{
    kvg_tensor t;
    kvg_file_map map;
    kvg_outset *o;
    kvg_diag diag;
    kvg_status st;
    kvg_map_test_hook = shrink_hook;
    if (kvg_tensor_file_open(g_root, "big.npy", KVG_FP32, -1, NULL,
                             KVG_MAP_PRIVATE, 0, &t, &map, &diag) != KVG_OK ||
        map.base == NULL || kvg_outset_begin(&o, dir, &diag) != KVG_OK)
        _exit(5);
    st = kvg_outset_add_npy(o, "cache.npy", &t, &diag);
    kvg_outset_end(o);
    if (st != KVG_ERR_IO)
        _exit(6);
    (void)write(2, diag.message, strlen(diag.message));
    _exit(2);
}

static void assert_shrunk(child_result r, const char *dir, const char *path)
{
    char want[400];
    if (!WIFEXITED(r.status))
        fail_msg("the child died of signal %d: %s", WTERMSIG(r.status),
                 r.err);
    if (WEXITSTATUS(r.status) != 2)
        fail_msg("the child exited %d: %s", WEXITSTATUS(r.status), r.err);
    (void)snprintf(want, sizeof want,
                   "%s: the file shrank while it was being read", path);
    assert_contains(r.err, want);
    assert_int_equal(count_entries(dir), 0); /* no temporary left */
}

static void test_map_shrunk(void **state)
{
    enum { N = 40000 }; /* 160000 bytes: many pages */
    char dir[128], big[160];
    kvg_tensor t = kvgt_tensor_new(KVG_FP32, 1, (const int64_t[]){N}, 71);
    kvg_diag diag;
    child_fn fns[3];
    int k;
    (void)state;
    fns[0] = child_reads;
    fns[1] = child_updates;
    fns[2] = child_writes_from;
    path_of(dir, sizeof dir, "shrunk");
    assert_int_equal(mkdir(dir, 0700), 0);
    path_of(big, sizeof big, "big.npy");
    (void)snprintf(g_shrink, sizeof g_shrink, "%s", big);
    for (k = 0; k < 3; k++) {
        assert_int_equal(kvg_npy_save(big, &t, &diag), KVG_OK);
        assert_shrunk(run_child(fns[k], dir), dir, big);
    }
    /* a SIGBUS outside any mapped file is not taken for one */
    {
        pid_t pid = fork();
        int status = 0;
        assert_true(pid >= 0);
        if (pid == 0) {
            (void)kvg_map_guard_install(on_shrunk);
            (void)raise(SIGBUS);
            _exit(0);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS);
    }
    kvgt_tensor_free(&t);
}

/* ---- a file rendered through a stream (the report files) ---------------- */

static kvg_status render_hello(FILE *out, void *user, kvg_diag *diag)
{
    (void)user;
    (void)diag;
    fputs("hello\n", out);
    return KVG_OK;
}

static kvg_status render_fails(FILE *out, void *user, kvg_diag *diag)
{
    (void)user;
    fputs("half a rep", out);
    diag->status = KVG_ERR_NOMEM;
    (void)snprintf(diag->message, sizeof diag->message, "renderer gave up");
    return KVG_ERR_NOMEM;
}

static void read_small(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n;
    assert_non_null(f);
    n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* One streamed file into `dir` as its own set: the status of the add or
 * the commit. */
static kvg_status stream_one(const char *dir, const char *name,
                             kvg_outset_writer render, kvg_diag *d)
{
    kvg_outset *set = NULL;
    kvg_status st = kvg_outset_begin(&set, dir, d);
    if (st == KVG_OK)
        st = kvg_outset_add_stream(set, name, render, NULL, d);
    if (st == KVG_OK)
        st = kvg_outset_commit(set, d);
    kvg_outset_end(set);
    return st;
}

static void test_outset_stream(void **state)
{
    char dir[] = "/tmp/kvg_stream_XXXXXX", path[128], link[128], other[128];
    char sub[128], buf[64];
    kvg_outset *sets[2] = {NULL, NULL};
    kvg_diag d;
    (void)state;
    assert_non_null(mkdtemp(dir));
    (void)snprintf(path, sizeof path, "%s/r.html", dir);
    assert_int_equal(stream_one(dir, "r.html", render_hello, &d), KVG_OK);
    read_small(path, buf, sizeof buf);
    assert_string_equal(buf, "hello\n");
    /* a failing renderer: its status and reason, naming the file; the old
     * file stays and no temporary is left behind */
    assert_int_equal(stream_one(dir, "r.html", render_fails, &d),
                     KVG_ERR_NOMEM);
    assert_non_null(strstr(d.message, "renderer gave up"));
    assert_non_null(strstr(d.message, path));
    read_small(path, buf, sizeof buf);
    assert_string_equal(buf, "hello\n");
    /* a symlink at the target is replaced, the file it points to kept */
    (void)snprintf(other, sizeof other, "%s/other", dir);
    (void)snprintf(link, sizeof link, "%s/link.html", dir);
    {
        FILE *f = fopen(other, "wb");
        assert_non_null(f);
        fputs("keep", f);
        fclose(f);
    }
    assert_int_equal(symlink(other, link), 0);
    assert_int_equal(stream_one(dir, "link.html", render_hello, &d), KVG_OK);
    read_small(other, buf, sizeof buf);
    assert_string_equal(buf, "keep");
    read_small(link, buf, sizeof buf);
    assert_string_equal(buf, "hello\n");
    /* two directories committed as one: the second file cannot be
     * rendered, so the first target keeps its old contents */
    (void)snprintf(sub, sizeof sub, "%s/sub", dir);
    assert_int_equal(kvg_outset_begin(&sets[0], dir, &d), KVG_OK);
    assert_int_equal(kvg_outset_begin(&sets[1], sub, &d), KVG_OK);
    assert_int_equal(kvg_outset_add_stream(sets[0], "other", render_hello,
                                           NULL, &d), KVG_OK);
    assert_int_equal(kvg_outset_add_stream(sets[1], "r.html", render_fails,
                                           NULL, &d), KVG_ERR_NOMEM);
    kvg_outset_end(sets[0]);
    kvg_outset_end(sets[1]);
    read_small(other, buf, sizeof buf);
    assert_string_equal(buf, "keep");
    assert_int_equal(unlink(link), 0);
    assert_int_equal(unlink(other), 0);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(sub), 0); /* fails if a temporary was left */
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_special_files_refused),
        cmocka_unit_test(test_sizes_checked_before_reading),
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_cgroup_limit),
        cmocka_unit_test(test_raw_bin),
        cmocka_unit_test(test_full_io),
        cmocka_unit_test(test_outset_commit),
        cmocka_unit_test(test_outset_refusals),
        cmocka_unit_test(test_outset_rollback),
        cmocka_unit_test(test_outset_write_failure),
        cmocka_unit_test(test_outset_stale_names),
        cmocka_unit_test(test_outset_concurrent_commits),
        cmocka_unit_test(test_map_shrunk),
        cmocka_unit_test(test_available_cores),
        cmocka_unit_test(test_outset_stream),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
