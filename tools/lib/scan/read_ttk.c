/*
 * tools/lib/scan/read_ttk.c - ops-test-kit's offline case directories
 * (docs/Offline_Data_Prepare_and_Import.md of hicann/ops-test-kit).
 *
 * A case directory (named after its testcase) holds, per flat slot index
 * counted from 0 per kind:
 *   input_<i>_<dtype>.<bin|npy|pt>     an input's final backing storage
 *   scalar_<i>_<dtype>.<...>           an ACLNN scalar
 *   golden_<i>_<dtype>.<npy|pt>        an output of the golden;
 *   golden_<i>_<dtype>__shape_<AxB>.bin   as .bin, its shape in the name
 *                                      ("scalar" for rank 0)
 *   <kind>_<i>_none.<ext>              a zero-byte marker: the slot is None
 * with dtype a NumPy name (float16, bfloat16, ...; float4_e2m1 /
 * float4_e1m2 count codes, kvgold's fp4 pairs: a .bin holds the packed
 * bytes, an .npy or .pt's raw-byte payload one code a byte, packed when
 * opened (read_codes); a torch 4-bit tensor in a .pt is refused, its
 * shape lost). One format per case
 * (bin before npy before pt). A .bin input records no shape (ops-test-kit
 * keeps it in the case CSV): it is read with the shape of the golden
 * output its operator writes in place (a cache), or the shape the
 * operator's binding's rule derives from the goldens and the files'
 * sizes (binding.h, kvg_bin_shapes); a call with any other .bin input
 * is not judged, saying so. output_<i>_... files (an
 * NPU's outputs, named as the goldens) are judged in place of the golden
 * when present; otherwise what is judged is the golden ops-test-kit
 * prepared (its CPU golden or plug-in) against kvgold's.
 * The operator is the one whose name the case directory contains (or
 * --op). A .pt file (torch.save of the tensor, or ops-test-kit's raw-byte
 * payload for a dtype torch lacks) is read without torch (read_pt.c):
 * its tensor's bytes where they lie in the archive.
 *
 * With ops-test-kit's testcase CSV (--csv; ttk_csv.c), the row whose
 * testcase_name is the case directory's name says what the files do not:
 * the API (which picks the operator and its call form from the
 * operator's binding), each input's shape (a .bin's), its dtype and
 * whether it is None (checked against the files), and the attributes
 * (its keyword names translated through the binding). A kernel-mode row
 * (op_name, input_shapes, input_dtypes) names the kernel: its inputs are
 * read in the kernel's order, as without the CSV. For a torch_npu form
 * that returns None the goldens may start with ops-test-kit's None of
 * that return (csv_form_outputs). A row the files contradict makes the
 * call NOT JUDGED, naming the CSV line and the file.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"
#include "fileio.h"
#include "kvgold/op.h"
#include "read_common.h"
#include "read_pt.h"
#include "ttk_csv.h"

#if defined(__GNUC__)
#define KVG_SCAN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define KVG_SCAN_PRINTF(f, a)
#endif

/* ext: 0 bin, 1 npy, 2 pt */
static int ext_of(const char *dot)
{
    return strcmp(dot, ".bin") == 0   ? 0
           : strcmp(dot, ".npy") == 0 ? 1
           : strcmp(dot, ".pt") == 0  ? 2
                                      : -1;
}

/* ops-test-kit's 4-bit float names (ttk/utilities/dtypes.py dtype_map,
 * hicann/ops-test-kit@23e69087), read here and nowhere else: its files
 * and CSV count such a tensor in codes, one element a code, where
 * kvgold's fp4 element is a byte of two, so the name is no entry of
 * kvg_ttk_dtype_from_name's table (which `kvgold prepare` writes from). */
static kvg_dtype fp4_dtype(const char *name)
{
    return strcmp(name, "float4_e2m1") == 0   ? KVG_FP4_E2M1
           : strcmp(name, "float4_e1m2") == 0 ? KVG_FP4_E1M2
                                              : KVG_DTYPE_INVALID;
}

/* An fp4 shape in ops-test-kit's codes becomes kvgold's packed pairs
 * (kvg_scan_fp4_pairs halves its last dim). Its .bin holds pack_4bits'
 * bytes (ttk/utilities/file_utils.py _dump_bin, @202675b6), codes 2k
 * and 2k + 1 of the
 * flattened array in the low and high nibble of byte k (dtypes.py
 * pack_4bits, shift [0, 4], @23e69087) - kvgold's packing - so with an
 * even last dim no byte straddles two rows and the bytes are kvgold's as
 * they lie. */

int kvg_scan_ttk_name(const char *name, char *role, int *index,
                      kvg_scan_arg *a)
{
    static const char *const k_roles[] = {"input_", "scalar_", "golden_",
                                          "output_"};
    const char *p = name, *dot = strrchr(name, '.'), *us, *shape;
    char dt[32];
    int r, ext;
    long idx = 0;

    if (dot == NULL || (ext = ext_of(dot)) < 0)
        return 0;
    for (r = 0; r < 4; r++)
        if (strncmp(p, k_roles[r], strlen(k_roles[r])) == 0)
            break;
    if (r == 4)
        return 0;
    p += strlen(k_roles[r]);
    if (*p < '0' || *p > '9')
        return 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        idx = idx * 10 + (*p - '0');
        if (idx > 4096)
            return 0;
    }
    if (*p != '_')
        return 0;
    p++;
    shape = strstr(p, "__shape_");
    us = shape != NULL ? shape : dot;
    if ((size_t)(us - p) >= sizeof dt || us == p)
        return 0;
    memcpy(dt, p, (size_t)(us - p));
    dt[us - p] = '\0';
    memset(a, 0, sizeof *a);
    *role = "isgo"[r];
    *index = (int)idx;
    (void)snprintf(a->file, sizeof a->file, "%s", name);
    (void)snprintf(a->name, sizeof a->name, "%.*s", (int)(dot - name), name);
    a->rank = -1; /* unknown until a header or the name says */
    a->offset = (uint64_t)ext; /* the extension, until the file is read */
    if (strcmp(dt, "none") == 0) {
        a->kind = KVG_SCAN_NONE;
        return shape == NULL;
    }
    a->kind = KVG_SCAN_TENSOR;
    a->dtype = kvg_ttk_dtype_from_name(dt);
    if (a->dtype == KVG_DTYPE_INVALID)
        a->dtype = fp4_dtype(dt);
    if (shape != NULL) {
        const char *q = shape + strlen("__shape_");
        if (ext != 0)
            return 0;
        a->rank = 0;
        if (strncmp(q, "scalar.", 7) == 0)
            return 1;
        while (q < dot) {
            long long v = 0;
            if (*q < '0' || *q > '9' || a->rank == KVG_MAX_RANK)
                return 0;
            for (; *q >= '0' && *q <= '9'; q++) {
                if (v > (INT64_MAX - 9) / 10)
                    return 0;
                v = v * 10 + (*q - '0');
            }
            a->shape[a->rank++] = v;
            if (*q == 'x')
                q++;
            else if (q != dot)
                return 0;
        }
        if (a->rank == 0)
            return 0;
    }
    return 1;
}

typedef struct slots {
    kvg_scan_arg a[KVG_SCAN_MAX_ARGS];
    int n;
} slots;

/* The slots of one kind and extension, contiguous from 0. */
static kvg_status gather(kvg_scan_call *c, char **names, size_t count,
                         char role, int ext, slots *s, kvg_diag *diag)
{
    int seen[KVG_SCAN_MAX_ARGS] = {0};
    size_t i;
    int k;

    s->n = 0;
    for (i = 0; i < count; i++) {
        kvg_scan_arg a;
        char r;
        int idx;
        if (!kvg_scan_ttk_name(names[i], &r, &idx, &a) || r != role ||
            (int)a.offset != ext)
            continue;
        if (idx >= KVG_SCAN_MAX_ARGS)
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "index", -1, -1,
                                "%s/%s: index %d: more slots than kvgold "
                                "reads (%d)",
                                c->dir, names[i], idx, KVG_SCAN_MAX_ARGS);
        if (seen[idx])
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "index", -1, -1,
                                "%s/%s: slot %d given twice", c->dir,
                                names[i], idx);
        seen[idx] = 1;
        s->a[idx] = a;
        if (idx + 1 > s->n)
            s->n = idx + 1;
    }
    for (k = 0; k < s->n; k++)
        if (!seen[k])
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "index", -1, -1,
                                "%s: %s slot %d is missing (the indices must "
                                "run from 0 without a gap; None is a *_none "
                                "marker)", c->dir, role == 'i'   ? "input"
                                : role == 's' ? "scalar"
                                : role == 'g' ? "golden"
                                              : "output",
                                k);
    return KVG_OK;
}

/* An fp4 .npy or .pt: ops-test-kit saves a 4-bit array one code a byte,
 * in the array's shape (counted in codes) - an .npy as a void of width 1
 * (core_modules/manual_data.py _write_array @055fae80), a .pt as the
 * raw-byte payload of the codes flattened, ttk_shape the array's, when
 * the writing torch has no 4-bit dtype (ibid.; with one, the tensor is
 * pack_4bits' bytes flattened to 1-D, its shape lost: refused, see
 * KVG_SCAN_PT_TTK_RAW_ONLY). Read header-first as raw bytes - the .npy
 * as hif8, kvgold's raw one-byte type, whose descrs (|u1, |V1, <V1) are
 * what such a file carries; .npy's own fp4 entry stays packed bytes -,
 * the shape as kvgold's pairs; the codes are packed when opened
 * (fp4_codes, kvg_scan_open). */
static kvg_status read_codes(kvg_scan_call *c, kvg_scan_arg *a, int ext,
                             kvg_diag *diag)
{
    kvg_scan_arg r = *a;
    int64_t pairs[KVG_MAX_RANK];

    r.dtype = KVG_UINT8;
    KVG_TRY(ext == 1 ? kvg_scan_npy_arg(c->dir, a->file, KVG_HIF8, &r, diag)
                     : kvg_scan_pt_tensor(c->dir, a->file,
                                          KVG_SCAN_PT_TTK_RAW |
                                              KVG_SCAN_PT_TTK_RAW_ONLY,
                                          &r, diag));
    memcpy(pairs, r.shape, sizeof pairs);
    if (!kvg_scan_fp4_pairs(r.rank, pairs))
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "shape", -1, -1,
                            "%s/%s: %s codes whose last dim is odd or "
                            "absent: kvgold reads fp4 in pairs along the "
                            "last dim",
                            c->dir, a->file, kvg_dtype_name(a->dtype));
    memcpy(r.shape, pairs, sizeof pairs);
    r.dtype = a->dtype;
    r.fp4_codes = 1;
    *a = r;
    return KVG_OK;
}

/* Header-first: an .npy's header, a .bin's size against its shape. */
static kvg_status read_arg(kvg_scan_call *c, kvg_scan_arg *a, int ext,
                           kvg_diag *diag)
{
    unsigned char none[1];
    uint64_t need, size;
    size_t len;
    char *path;
    int ok;

    if (a->kind != KVG_SCAN_TENSOR)
        return KVG_OK;
    if (a->dtype == KVG_DTYPE_INVALID)
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "dtype", -1, -1,
                            "%s/%s: dtype: not one kvgold reads", c->dir,
                            a->file);
    if (kvg_dtype_is_fp4(a->dtype) && ext != 0)
        return read_codes(c, a, ext, diag);
    if (ext == 1)
        return kvg_scan_npy_arg(c->dir, a->file, a->dtype, a, diag);
    if (ext == 2) /* the file name's dtype wins for one-byte codes */
        return kvg_scan_pt_tensor(c->dir, a->file, KVG_SCAN_PT_TTK_RAW, a,
                                  diag);
    if (a->rank < 0)
        return KVG_OK; /* a .bin input: its shape comes from its cache */
    if (!kvg_scan_nbytes(a->dtype, a->rank, a->shape, &need))
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "shape", -1, -1,
                            "%s/%s: shape: no valid byte size", c->dir,
                            a->file);
    if ((path = kvg_path_join(c->dir, a->file, NULL, diag)) == NULL)
        return KVG_ERR_NOMEM;
    ok = kvg_scan_head(path, none, 0, &len, &size, diag) == KVG_OK;
    free(path);
    if (!ok)
        return diag->status;
    if (size != need)
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "shape", -1, -1,
                            "%s/%s: %llu bytes, its dtype and shape say %llu",
                            c->dir, a->file, (unsigned long long)size,
                            (unsigned long long)need);
    a->offset = 0;
    a->nbytes = need;
    return KVG_OK;
}

/* A .bin input takes the shape of the golden output of the same kvgold
 * tensor (an in-place cache); 0 when there is none. */
static int shape_from_outputs(const kvg_scan_call *c, int i,
                              const kvg_scan_sig *sig, kvg_scan_arg *a)
{
    int n, j;
    const char *name = NULL;
    for (n = 0; sig->inputs[n] != NULL; n++)
        if (n == i)
            name = sig->inputs[n];
    for (j = 0; name != NULL && sig->outputs[j] != NULL && j < c->n_out; j++)
        if (strcmp(sig->outputs[j], name) == 0 &&
            c->out[j].kind == KVG_SCAN_TENSOR && c->out[j].rank >= 0) {
            a->rank = c->out[j].rank;
            memcpy(a->shape, c->out[j].shape, sizeof a->shape);
            return 1;
        }
    return 0;
}

/* A .bin's size into a->nbytes. */
static kvg_status file_size(kvg_scan_call *c, kvg_scan_arg *a,
                            kvg_diag *diag)
{
    unsigned char none[1];
    uint64_t size;
    size_t len;
    kvg_status st;
    char *path = kvg_path_join(c->dir, a->file, NULL, diag);
    if (path == NULL)
        return KVG_ERR_NOMEM;
    st = kvg_scan_head(path, none, 0, &len, &size, diag);
    free(path);
    a->nbytes = size;
    return st;
}


/* ---- the testcase CSV's row ------------------------------------------ */

/* kvgold's name of keyword argument `key` of call form f (its keyword
 * pair's "=attr", or an attribute of the form by that name), or NULL. */
static const char *attr_of(const kvg_binding_call *f, const char *key)
{
    size_t j;
    for (j = 0; f->keywords != NULL && f->keywords[j] != NULL &&
                f->keywords[j + 1] != NULL;
         j += 2)
        if (strcmp(f->keywords[j], key) == 0)
            return f->keywords[j + 1][0] == '=' ? f->keywords[j + 1] + 1
                                                : NULL;
    return kvg_binding_has(f->attrs, key) ? key : NULL;
}

static void shape_text(char *out, size_t cap, int rank, const int64_t *shape)
{
    size_t used = (size_t)snprintf(out, cap, "(");
    int i;
    for (i = 0; i < rank && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%lld",
                                 i ? ", " : "", (long long)shape[i]);
    if (used < cap)
        (void)snprintf(out + used, cap - used, "%s)", rank == 1 ? "," : "");
}

/* The call NOT JUDGED for what its CSV row says: returns 1. */
static int say(kvg_scan_call *c, const kvg_ttk_row *row, const char *fmt,
               ...) KVG_SCAN_PRINTF(3, 4);
static int say(kvg_scan_call *c, const kvg_ttk_row *row, const char *fmt,
               ...)
{
    char what[KVG_SCAN_REASON_MAX];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    (void)snprintf(c->unreadable, sizeof c->unreadable,
                   "%s: line %ld (testcase %s): %s", row->file, row->line,
                   row->name, what);
    return 1;
}

/* A row whose api_name is no call form kvgold reads: another API's call
 * (0), or - when its last component names a kvgold operator
 * ("torch.ops.<other namespace>.<op>") - that operator's call in a
 * spelling kvgold has no form of: NOT JUDGED (1), never counted as
 * another operator's. */
static int other_api(kvg_scan_call *c, const kvg_ttk_row *row)
{
    const char *dot = strrchr(row->api, '.');
    const char *op = kvg_scan_op_of_name(dot != NULL ? dot + 1 : row->api);

    if (op == NULL) {
        (void)snprintf(c->api, sizeof c->api, "%s", row->api);
        return 0;
    }
    (void)snprintf(c->api, sizeof c->api, KVG_SCAN_API_UNKNOWN);
    return say(c, row, "api_name %s names operator %s, but no call form "
                       "of that name is in kvgold's bindings (tools/lib/"
                       "bindings), so its argument order is unknown",
               row->api, op);
}

/* The dtype the file name of input a gives ("float16"). */
static const char *file_dtype(const kvg_scan_arg *a)
{
    const char *p = strchr(a->name, '_');
    p = p != NULL ? strchr(p + 1, '_') : NULL;
    return p != NULL ? p + 1 : "?";
}

/* kvgold's name of attribute `key` of a kernel-mode row: an attribute of
 * operator m's (the kernel's attributes are the operator's), else one of
 * a call form's; NULL if none. */
static const char *kernel_attr(const kvg_scan_opmap *m, const char *key)
{
    const kvg_op *op = kvg_op_find(kvg_scan_op(m));
    const char *name = NULL;
    size_t j;
    for (j = 0; op != NULL && j < kvg_op_attr_count(op); j++)
        if (!kvg_op_attr_at(op, j)->is_option &&
            strcmp(kvg_op_attr_at(op, j)->name, key) == 0)
            return kvg_op_attr_at(op, j)->name;
    for (j = 0; name == NULL && j < m->binding->n_calls; j++)
        name = attr_of(&m->binding->calls[j], key);
    return name;
}

/* A tuple of slot indexes as Python writes it: "(2, 3)", "(5,)", "()". */
static void slots_text(char *out, size_t cap, int n, const int *slot)
{
    size_t used = (size_t)snprintf(out, cap, "(");
    int i;
    for (i = 0; i < n && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%d",
                                 i ? ", " : "", slot[i]);
    if (used < cap)
        (void)snprintf(out + used, cap - used, "%s)", n == 1 ? "," : "");
}

/* The goldens (or device outputs) of torch_npu form f as ops-test-kit's
 * e2e run lists them: what the API returns as backend.result_to_numpy
 * makes it a list - [None] for an API that returns None -, then the
 * tensors it writes in place, which it appends for the slots of the row's
 * inplace_input_indexes (kvg_ttk_form_inplace). A leading None of an API
 * that returns None is dropped here (kvgold prepare writes it, and so
 * does kvgold.ttk's golden); inplace_input_indexes other than f's
 * in-place slots are said: ops-test-kit would compare other tensors with
 * the goldens. 0, or 1 with c->unreadable said. */
static int csv_form_outputs(kvg_scan_call *c, const kvg_ttk_row *row,
                            const kvg_binding_call *f)
{
    int slot[KVG_SCAN_MAX_ARGS], returned, n, n_out = 0;
    char want[96], got[96];
    kvg_diag diag;

    if (kvg_ttk_form_inplace(f, slot, KVG_SCAN_MAX_ARGS, &n, &returned,
                             &diag) != KVG_OK)
        return say(c, row, "%s", diag.message);
    while (f->outputs[n_out] != NULL)
        n_out++;
    if (row->n_inplace >= 0 &&
        (row->n_inplace != n ||
         memcmp(row->inplace, slot, (size_t)n * sizeof slot[0]) != 0)) {
        slots_text(want, sizeof want, n, slot);
        slots_text(got, sizeof got, row->n_inplace, row->inplace);
        return say(c, row, "inplace_input_indexes is %s; %s writes slots %s "
                           "in place (ops-test-kit appends the slots it "
                           "names to what the API returns and compares "
                           "them with the goldens)",
                   got, f->api, want);
    }
    if (returned == 0 && c->n_out == n_out + 1 &&
        c->out[0].kind == KVG_SCAN_NONE) {
        memmove(c->out, c->out + 1, (size_t)n_out * sizeof c->out[0]);
        c->n_out = n_out;
    }
    return 0;
}

/* Which operator and call form the row's call is: 1 with c->unreadable
 * said; else 0, with *done set when the call is not a kvgold operator's
 * (nothing to translate), or *m and *f (NULL: no torch_npu form, the
 * kernel's slots) set. */
static int row_operator(kvg_scan_call *c, const kvg_ttk_row *row,
                        const kvg_scan_opmap **m, const kvg_binding_call **f,
                        int *done)
{
    *m = NULL;
    *f = kvg_scan_form_named(row->api, m);
    *done = 1;
    /* a row of another API is that API's, whatever else it holds */
    if (row->api[0] != '\0' && *f == NULL &&
        kvg_scan_find(row->api, KVG_SCAN_TTK, NULL) == NULL &&
        row->dup_line == 0)
        return other_api(c, row);
    if (row->dup_line != 0)
        return say(c, row, "line %ld has the same testcase_name: which row "
                           "describes %s is ambiguous",
                   row->dup_line, c->dir);
    if (row->problem[0] != '\0')
        return say(c, row, "%s", row->problem);
    if (row->api[0] != '\0') {
        if (*f == NULL && !row->kernel) {
            if (kvg_scan_find(row->api, KVG_SCAN_TTK, NULL) != NULL)
                return say(c, row, "api_name %s: no call form of that name "
                                   "in kvgold's bindings (tools/lib/"
                                   "bindings), so its argument order is "
                                   "unknown",
                           row->api);
        }
        (void)snprintf(c->api, sizeof c->api, "%s", row->api);
        /* a kernel-mode row's op_name names the kernel, whose inputs are
         * the slots in the order scan reads ops-test-kit's directories */
        if (*f == NULL && (!row->kernel ||
                           (*m = kvg_scan_find(row->api, KVG_SCAN_TTK,
                                               NULL)) == NULL))
            return 0; /* another API: the call is not a kvgold operator's */
    } else if ((*m = kvg_scan_find(c->api, KVG_SCAN_TTK, NULL)) == NULL) {
        return 0; /* the operator is --op's; nothing to translate with */
    }
    *done = 0;
    return 0;
}

/* The row's tensor slots onto the call's inputs: None slots, dtypes, and
 * the shape a .bin lacks. 0, or 1 with c->unreadable said. */
static int csv_slots(kvg_scan_call *c, const kvg_ttk_row *row)
{
    char s1[96], s2[96];
    int i;

    for (i = 0; i < c->n_in; i++) {
        kvg_scan_arg *a = &c->in[i];
        const kvg_ttk_slot *sl = &row->slot[i];
        int rank = sl->srank >= 0 ? sl->srank : sl->rank;
        const int64_t *shape = sl->srank >= 0 ? sl->sshape : sl->shape;
        if (sl->none != (a->kind == KVG_SCAN_NONE))
            return say(c, row, "tensor %d is %s, %s/%s %s", i,
                       sl->none ? "None" : "a tensor", c->dir, a->file,
                       sl->none ? "holds one" : "is a None marker");
        if (sl->none)
            continue;
        if (sl->dtype[0] != '\0' && strcmp(sl->dtype, file_dtype(a)) != 0)
            return say(c, row, "tensor %d is %s, %s/%s says %s", i,
                       sl->dtype, c->dir, a->file, file_dtype(a));
        if (sl->srank >= 0 &&
            (sl->srank != sl->rank ||
             memcmp(sl->shape, sl->sshape,
                    (size_t)sl->rank * sizeof sl->shape[0]) != 0)) {
            shape_text(s1, sizeof s1, sl->srank, sl->sshape);
            shape_text(s2, sizeof s2, sl->rank, sl->shape);
            return say(c, row, "tensor %d is a strided view (storage shape "
                               "%s, view %s): kvgold reads whole contiguous "
                               "tensors",
                       i, s1, s2);
        }
        if (a->rank < 0) { /* a .bin: the CSV's shape */
            a->rank = rank;
            memcpy(a->shape, shape, (size_t)rank * sizeof a->shape[0]);
            if (kvg_dtype_is_fp4(a->dtype) && !kvg_scan_fp4_pairs(a->rank, a->shape)) {
                shape_text(s1, sizeof s1, rank, shape);
                return say(c, row, "tensor %d is %s codes of %s: kvgold "
                                   "reads fp4 in pairs along the last dim, "
                                   "which must be even",
                           i, s1, sl->dtype);
            }
        }
    }
    return 0;
}

/* The row's attributes onto the call's parameters, under kvgold's names.
 * 0, or 1 with c->unreadable said. */
static int csv_attrs(kvg_scan_call *c, const kvg_ttk_row *row,
                     const kvg_scan_opmap *m, const kvg_binding_call *f)
{
    int i;

    for (i = 0; i < row->n_attrs; i++) {
        const char *name = NULL;
        size_t j;
        if (f != NULL) {
            name = attr_of(f, row->key[i]);
        } else if (row->kernel && m != NULL) {
            /* a kernel's attributes are the operator's own */
            name = kernel_attr(m, row->key[i]);
        } else {
            for (j = 0; m != NULL && name == NULL && j < m->binding->n_calls;
                 j++)
                name = attr_of(&m->binding->calls[j], row->key[i]);
        }
        if (name == NULL)
            return say(c, row, "attributes: %s is no argument of %s that "
                               "kvgold models",
                       row->key[i],
                       f != NULL ? f->api
                       : m != NULL ? kvg_scan_op(m)
                                   : c->api);
        if (c->n_params == KVG_SCAN_MAX_ARGS)
            return say(c, row, "attributes: more than kvgold takes");
        memset(&c->params[c->n_params], 0, sizeof c->params[0]);
        c->params[c->n_params].kind = KVG_SCAN_SCALAR;
        (void)snprintf(c->params[c->n_params].name, KVG_SCAN_NAME_MAX, "%s",
                       name);
        (void)snprintf(c->params[c->n_params].value, KVG_SCAN_VALUE_MAX,
                       "%s", row->value[i]);
        c->n_params++;
    }
    return 0;
}

/* The row onto the call before its files are read: its API, the None
 * slots, dtypes and (the shape a .bin lacks) shapes of its inputs, its
 * attributes. 0, or 1 with c->unreadable said. */
static int csv_apply(kvg_scan_call *c, const kvg_ttk_row *row)
{
    const kvg_scan_opmap *m;
    const kvg_binding_call *f;
    int done;

    if (row_operator(c, row, &m, &f, &done))
        return 1;
    if (done)
        return 0;
    if (f != NULL && csv_form_outputs(c, row, f))
        return 1;
    if (row->n != c->n_in)
        return say(c, row, "%s declares %d tensors, %s has %d input slots",
                   row->kernel ? "input_shapes" : "tensor_view_shapes",
                   row->n, c->dir, c->n_in);
    if (csv_slots(c, row))
        return 1;
    return csv_attrs(c, row, m, f);
}

/* After the files are read: each input's shape against the row's. 0, or
 * 1 with c->unreadable said. */
static int csv_check(kvg_scan_call *c, const kvg_ttk_row *row, int bin)
{
    char want[96], got[96];
    int i;
    for (i = 0; i < c->n_in && i < row->n; i++) {
        const kvg_scan_arg *a = &c->in[i];
        const kvg_ttk_slot *sl = &row->slot[i];
        int rank = sl->srank >= 0 ? sl->srank : sl->rank;
        const int64_t *shape = sl->srank >= 0 ? sl->sshape : sl->shape;
        uint64_t need = 0;
        int64_t pairs[KVG_MAX_RANK];
        if (a->kind != KVG_SCAN_TENSOR || sl->none)
            continue;
        shape_text(want, sizeof want, rank, shape);
        if (kvg_dtype_is_fp4(a->dtype) && rank <= KVG_MAX_RANK) {
            /* the row counts codes (its want text says so) */
            memcpy(pairs, shape, (size_t)rank * sizeof pairs[0]);
            if (!kvg_scan_fp4_pairs(rank, pairs))
                return say(c, row, "tensor %d is %s codes of %s: kvgold "
                                   "reads fp4 in pairs along the last dim, "
                                   "which must be even",
                           i, want, sl->dtype);
            shape = pairs;
        }
        if (bin) {
            if (!kvg_scan_nbytes(a->dtype, rank, shape, &need) ||
                need != a->nbytes)
                return say(c, row, "tensor %d is %s of %s, %llu bytes; "
                                   "%s/%s has %llu",
                           i, want, kvg_dtype_name(a->dtype),
                           (unsigned long long)need, c->dir, a->file,
                           (unsigned long long)a->nbytes);
        } else if (a->rank != rank ||
                   memcmp(a->shape, shape,
                          (size_t)rank * sizeof shape[0]) != 0) {
            shape_text(got, sizeof got, a->rank, a->shape);
            return say(c, row, "tensor %d is %s; %s/%s holds %s", i, want,
                       c->dir, a->file, got);
        }
    }
    return 0;
}

/* The first output_* file of `names` whose extension is not `ext`, or
 * NULL. */
static const char *output_in_other_format(char **names, size_t count,
                                          int ext)
{
    size_t i;
    for (i = 0; i < count; i++) {
        kvg_scan_arg a;
        char r;
        int idx;
        if (kvg_scan_ttk_name(names[i], &r, &idx, &a) && r == 'o' &&
            (int)a.offset != ext)
            return names[i];
    }
    return NULL;
}

/* The case's files of one whole format (bin before npy before pt) into
 * s[0..3] (inputs, scalars, goldens, device outputs); *found the format,
 * -1 when the directory has no input of any. */
static kvg_status gather_case(kvg_scan_call *c, char **names, size_t count,
                              slots *s, int *found, kvg_diag *diag)
{
    int ext;

    *found = -1;
    for (ext = 0; ext < 3 && *found < 0; ext++) {
        KVG_TRY(gather(c, names, count, 'i', ext, &s[0], diag));
        if (s[0].n > 0)
            *found = ext;
    }
    if (*found < 0)
        return KVG_OK;
    KVG_TRY(gather(c, names, count, 's', *found, &s[1], diag));
    KVG_TRY(gather(c, names, count, 'g', *found, &s[2], diag));
    return gather(c, names, count, 'o', *found, &s[3], diag);
}

/* The call's arguments from the gathered slots: the NPU's outputs when
 * the directory has them, else the goldens; the scalars as parameters. */
static void take_slots(kvg_scan_call *c, slots *s)
{
    int i;

    if (s[3].n > 0)
        s[2] = s[3];
    c->n_in = s[0].n;
    c->n_out = s[2].n;
    memcpy(c->in, s[0].a, sizeof c->in);
    memcpy(c->out, s[2].a, sizeof c->out);
    for (i = 0; i < s[1].n; i++) {
        c->params[c->n_params] = s[1].a[i];
        (void)snprintf(c->params[c->n_params].name,
                       sizeof c->params[0].name, "scalar%d", i);
        c->n_params++;
    }
}

/* .bin inputs: their sizes, for the CSV row's or the operator's shape
 * rules. *done when the CSV check found the row unusable (said). */
static kvg_status bin_sizes(kvg_scan_call *c, const kvg_ttk_row *row,
                            const kvg_scan_opmap *m, int *done,
                            kvg_diag *diag)
{
    int i;

    *done = 0;
    for (i = 0; i < c->n_in; i++)
        if (c->in[i].kind == KVG_SCAN_TENSOR &&
            (c->in[i].rank < 0 || row != NULL))
            KVG_TRY(file_size(c, &c->in[i], diag));
    if (row != NULL && csv_check(c, row, 1)) {
        *done = 1;
        return KVG_OK;
    }
    if (m != NULL && m->binding->bin_shapes == KVG_BIN_SHAPES_PAGED)
        kvg_scan_paged_bin_shapes(c);
    return KVG_OK;
}

/* Each input read; a .bin input whose shape nothing determines makes the
 * call unreadable (said in c->unreadable, *done set). */
static kvg_status read_inputs(kvg_scan_call *c, int found,
                              const kvg_scan_sig *sig,
                              const kvg_scan_opmap *m, int have_csv,
                              int *done, kvg_diag *diag)
{
    int i;

    *done = 0;
    for (i = 0; i < c->n_in; i++) {
        kvg_scan_arg *a = &c->in[i];
        if (found == 0 && a->kind == KVG_SCAN_TENSOR && a->rank < 0 &&
            (m == NULL || !shape_from_outputs(c, i, sig, a))) {
            (void)snprintf(c->unreadable, sizeof c->unreadable,
                           "%s/%s: a .bin input records no shape (ops-test-"
                           "kit keeps it in the case CSV%s) and %s's "
                           "goldens do not determine it; give the CSV with "
                           "--csv, or prepare the case with --dump-format "
                           "npy",
                           c->dir, a->file,
                           have_csv ? ", which has no row of it" : "",
                           m != NULL ? kvg_scan_op(m) : "the operator");
            *done = 1;
            return KVG_OK;
        }
        KVG_TRY(read_arg(c, a, found, diag));
    }
    return KVG_OK;
}

/* A .bin golden's (or device output's) fp4 shape, which its name gives
 * in codes (manual_data.py _write_single: `__shape_` of the saved array),
 * as kvgold's pairs: 0, or 1 with c->unreadable said. */
static int fp4_golden_shapes(kvg_scan_call *c)
{
    int i;
    for (i = 0; i < c->n_out; i++) {
        kvg_scan_arg *a = &c->out[i];
        if (a->kind != KVG_SCAN_TENSOR || !kvg_dtype_is_fp4(a->dtype) || a->rank < 0)
            continue;
        if (!kvg_scan_fp4_pairs(a->rank, a->shape)) {
            (void)snprintf(c->unreadable, sizeof c->unreadable,
                           "unreadable: %s/%s: %s codes whose last dim is "
                           "odd or absent: kvgold reads fp4 in pairs along "
                           "the last dim",
                           c->dir, a->file, kvg_dtype_name(a->dtype));
            return 1;
        }
    }
    return 0;
}

static kvg_status read_case(kvg_scan_call *c, char **names, size_t count,
                            const kvg_ttk_row *row, int have_csv,
                            kvg_diag *diag)
{
    kvg_scan_sig sig;
    const kvg_scan_opmap *m;
    slots *s = (slots *)calloc(4, sizeof *s);
    const char *other;
    int i, found = -1, done = 0;
    kvg_status st;

    if (s == NULL)
        return kvg_diag_set(diag, KVG_ERR_NOMEM, "scan", -1, -1,
                            "out of memory");
    st = gather_case(c, names, count, s, &found, diag);
    if (st != KVG_OK || found < 0) {
        free(s);
        return st;
    }
    /* device outputs in another format than the inputs are never passed
     * over for the goldens (that would judge the goldens) */
    if (s[3].n == 0 && (other = output_in_other_format(names, count, found))
                           != NULL) {
        (void)snprintf(c->unreadable, sizeof c->unreadable,
                       "unreadable: %s/%s: a device output in another "
                       "format than the case's inputs; kvgold reads a "
                       "case in one format",
                       c->dir, other);
        free(s);
        return KVG_OK;
    }
    take_slots(c, s);
    free(s);
    (void)snprintf(c->out_pattern, sizeof c->out_pattern, "golden_%%d");
    if (row != NULL && csv_apply(c, row))
        return KVG_OK;
    if (fp4_golden_shapes(c))
        return KVG_OK;
    for (i = 0; i < c->n_out; i++)
        KVG_TRY(read_arg(c, &c->out[i], found, diag));
    m = kvg_scan_find(c->api, KVG_SCAN_TTK, &sig);
    if (found == 0) {
        KVG_TRY(bin_sizes(c, row, m, &done, diag));
        if (done)
            return KVG_OK;
    }
    KVG_TRY(read_inputs(c, found, &sig, m, have_csv, &done, diag));
    if (!done && row != NULL && found != 0)
        (void)csv_check(c, row, 0);
    return KVG_OK;
}

typedef struct ttk_walk {
    kvg_scan_list *l;
    const kvg_ttk_csv *csv; /* or NULL */
    kvg_ttk_row *row;       /* scratch for the case's row */
} ttk_walk;

static int visit(const char *dir, const char *rel, void *user,
                 kvg_diag *diag)
{
    ttk_walk *w = (ttk_walk *)user;
    char **names;
    size_t n, i;
    int is_case = 0, found;
    const char *base = strrchr(dir, '/');
    kvg_scan_call *c;

    if (kvg_scan_names(dir, &names, &n, diag) != KVG_OK)
        return -1;
    for (i = 0; i < n && !is_case; i++) {
        kvg_scan_arg a;
        char r;
        int idx;
        is_case = kvg_scan_ttk_name(names[i], &r, &idx, &a) && r == 'i';
    }
    if (!is_case) {
        kvg_scan_names_free(names, n);
        return 0;
    }
    if ((c = kvg_scan_list_push(w->l, diag)) == NULL) {
        kvg_scan_names_free(names, n);
        return -1;
    }
    c->format = KVG_SCAN_TTK;
    (void)snprintf(c->dir, sizeof c->dir, "%s", dir);
    (void)snprintf(c->id, sizeof c->id, "%s", rel[0] ? rel : ".");
    (void)snprintf(c->api, sizeof c->api, "%s", base ? base + 1 : dir);
    /* ops-test-kit names a case's directory after its testcase_name */
    found = w->csv != NULL &&
            kvg_ttk_csv_find(w->csv, base ? base + 1 : dir, w->row);
    if (found && w->row->api[0] != '\0')
        (void)snprintf(c->api, sizeof c->api, "%s", w->row->api);
    if (w->csv != NULL && !found) {
        /* the CSV says what each case is: a case it does not describe
         * is unknown, never "another operator" */
        if (kvg_scan_find(c->api, KVG_SCAN_TTK, NULL) == NULL)
            (void)snprintf(c->api, sizeof c->api, KVG_SCAN_API_UNKNOWN);
        (void)snprintf(c->unreadable, sizeof c->unreadable,
                       "unreadable: %s: the testcase CSV has no row whose "
                       "testcase_name is %s",
                       dir, base ? base + 1 : dir);
    } else if (read_case(c, names, n, found ? w->row : NULL, w->csv != NULL,
                         diag) != KVG_OK) {
        (void)snprintf(c->unreadable, sizeof c->unreadable, "unreadable: %s",
                       diag->message);
        kvg_diag_clear(diag);
    }
    kvg_scan_names_free(names, n);
    return 1;
}

/* A link to a directory below the root: it might be a case. */
static int link_entry(const char *path, const char *rel, void *user,
                      kvg_diag *diag)
{
    char why[KVG_SCAN_REASON_MAX];
    const char *base = strrchr(path, '/');
    kvg_scan_odd_entry(path, NULL, why, sizeof why);
    return kvg_scan_list_unreadable(((ttk_walk *)user)->l, KVG_SCAN_TTK,
                                    base != NULL ? base + 1 : path, rel,
                                    path, why, diag) == KVG_OK
               ? 0
               : -1;
}

kvg_status kvg_scan_read_ttk_csv(const char *path, const char *csv,
                                 kvg_scan_list *l, kvg_diag *diag)
{
    ttk_walk w;
    kvg_ttk_csv *t = NULL;
    kvg_status st;

    w.l = l;
    w.csv = NULL;
    w.row = NULL;
    if (kvg_scan_kind(path, 0) != 1)
        return kvg_diag_set(diag, KVG_ERR_IO, "scan", -1, -1,
                            "%s: not a directory (ops-test-kit data is a "
                            "directory of case directories)", path);
    if (csv != NULL) {
        if ((st = kvg_ttk_csv_load(csv, &t, diag)) != KVG_OK)
            return st;
        if ((w.row = (kvg_ttk_row *)malloc(sizeof *w.row)) == NULL) {
            kvg_ttk_csv_free(t);
            return kvg_diag_set(diag, KVG_ERR_NOMEM, "scan", -1, -1,
                                "out of memory");
        }
        w.csv = t;
    }
    st = kvg_scan_walk_links(path, visit, link_entry, &w, diag);
    free(w.row);
    kvg_ttk_csv_free(t);
    return st;
}

kvg_status kvg_scan_read_ttk(const char *path, kvg_scan_list *l,
                             kvg_diag *diag)
{
    return kvg_scan_read_ttk_csv(path, NULL, l, diag);
}
