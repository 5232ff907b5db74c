/*
 * tools/lib/scan/read_cann.c - CANN's operator dump files (acl dump / adump):
 * one file per kernel launch (two for an aclnn operator dump's launch:
 * cann_aclnn.c, which also reads its names), named "<op type>.<op
 * name>.<task id>.<stream id>.<timestamp>", holding an 8-byte little-endian length, then that many
 * bytes of a protobuf message toolkit.dump.DumpData, then the raw payloads
 * of its inputs, outputs, buffers and workspaces in that order, each as
 * long as its `size` field.
 *
 * The message is decoded here from the protobuf wire format (varints,
 * length-delimited fields; no protobuf library) using the field numbers
 * of the public schema (hicann/ge graph_metadef/proto/dump_task.proto):
 *   DumpData   1 version, 2 dump_time, 3 output (OpOutput), 4 input
 *              (OpInput), 5 buffer (OpBuffer), 6 op_name, 7 attr (OpAttr),
 *              8 space (Workspace), 9 dfx_message
 *   OpOutput   1 data_type, 2 format, 3 shape, 5 data, 6 size
 *   OpInput    1 data_type, 2 format, 3 shape, 4 data, 5 size,
 *              10 arg_index (its kernel position; see place_inputs)
 *   OpBuffer / Workspace   3 size
 *   Shape      1 dim (repeated uint64, packed or not)
 *   OpAttr     1 name, 2 value
 *   data_type  1 float, 2 float16, 3 int8, 4 uint8, 7 int32, 8 int64,
 *              27 bf16, 33 hifloat8, 34 float8_e5m2, 35 float8_e4m3fn,
 *              36 float8_e8m0 (DUMP_DT_* of the dump protocol)
 *   format     2 ND, 29 FRACTAL_NZ
 * Unknown fields are skipped by their wire type, as protobuf readers do.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _DEFAULT_SOURCE /* realpath: the one dump file named may be a link */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "cann_aclnn.h"
#include "read_common.h"

#define CANN_HEADER_MAX ((uint64_t)64 << 20)

/*
 * A file this reader reads holds a kernel's inputs and outputs together,
 * and every writer of such a file reads the inputs from device memory
 * after the kernel ran: a GE graph's dump task runs on the runtime's dump
 * event for the finished task (hicann/runtime@681ef761
 * src/aicpu_sched/aicpu_schedule/core/aicpusd_event_process.cpp:457-486),
 * a dynamic-shape graph's on the node-done callback
 * (mindspore-ai/graphengine@9f0ee552
 * ge/hybrid/executor/worker/execution_engine.cc, NodeDoneCallback::
 * OnNodeDone -> DumpDynamicNode), and an aclnn overflow dump after a
 * stream sync that follows the kernel (hicann/opbase@aa3cd74b
 * src/nnopbase/composite_op/aclnn_engine/op_dfx.cpp:1211-1231). So an
 * in-place cache's "pre-call" input here already holds the kernel's
 * writes (docs/scan.md, "When each format records a call's inputs"). The
 * aclnn operator dump, which does dump inputs before the launch, writes
 * them to a file of their own (src/nnopbase/individual_op/executor/
 * indv_executor.cpp:1408-1425): cann_aclnn.c pairs it with the launch's
 * output file, and the pair's call has no inputs_after.
 */
static const char k_inputs_after[] =
    "CANN writes a kernel's inputs to its dump file after the kernel ran "
    "(docs/scan.md, \"When each format records a call's inputs\"): the "
    "pre-call cache already holds the kernel's writes, so a stray write "
    "outside them cannot be seen";

typedef struct pb {
    const unsigned char *p, *end;
} pb;

static int varint(pb *b, uint64_t *v)
{
    int shift = 0;
    *v = 0;
    while (b->p < b->end && shift < 64) {
        unsigned char c = *b->p++;
        *v |= (uint64_t)(c & 0x7F) << shift;
        if ((c & 0x80) == 0)
            return shift < 63 || (c & 0x7E) == 0;
        shift += 7;
    }
    return 0;
}

/* The next field: its number, wire type, and value (varint / fixed) or
 * the bytes of a length-delimited one. 0 at the end, -1 malformed. */
static int field(pb *b, uint32_t *num, int *wt, uint64_t *v, pb *sub)
{
    uint64_t key;
    if (b->p == b->end)
        return 0;
    if (!varint(b, &key) || (key >> 3) == 0 || (key >> 3) > 0x1FFFFFFF)
        return -1;
    *num = (uint32_t)(key >> 3);
    *wt = (int)(key & 7);
    switch (*wt) {
    case 0:
        return varint(b, v) ? 1 : -1;
    case 1:
    case 5: {
        size_t n = *wt == 1 ? 8 : 4, i;
        if ((size_t)(b->end - b->p) < n)
            return -1;
        *v = 0;
        for (i = 0; i < n; i++)
            *v |= (uint64_t)b->p[i] << (8 * i);
        b->p += n;
        return 1;
    }
    case 2:
        if (!varint(b, v) || *v > (uint64_t)(b->end - b->p))
            return -1;
        sub->p = b->p;
        sub->end = b->p + *v;
        b->p += *v;
        return 1;
    default:
        return -1; /* groups (3, 4) are not in this schema */
    }
}

static kvg_status bad(kvg_diag *diag, const char *file, const char *field,
                      const char *what)
{
    return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, field, -1, -1,
                        "%s: DumpData.%s: %s", file, field, what);
}

static kvg_dtype cann_dtype(uint64_t code)
{
    switch (code) {
    case 1: return KVG_FP32;
    case 2: return KVG_FP16;
    case 3: return KVG_INT8;
    case 4: return KVG_UINT8;
    case 7: return KVG_INT32;
    case 8: return KVG_INT64;
    case 27: return KVG_BF16;
    case 33: return KVG_HIF8;
    case 34: return KVG_FP8_E5M2;
    case 35: return KVG_FP8_E4M3FN;
    case 36: return KVG_E8M0;
    /* fp4 e2m1 / e1m2 (hicann/ge@0d77e9fd graph_metadef/proto/
     * dump_task.proto:54-55; GE's 40 / 41 map to them, hicann/runtime
     * @681ef761 src/dfx/adump/adump/impl/dump_datatype.cpp:58-59): the
     * shape counts codes, see fp4_pairs */
    case 39: return KVG_FP4_E2M1;
    case 40: return KVG_FP4_E1M2;
    default: return KVG_DTYPE_INVALID;
    }
}

static kvg_status shape_of(pb sub, kvg_scan_arg *a, const char *file,
                           const char *where, kvg_diag *diag)
{
    uint32_t num;
    int wt, r;
    uint64_t v;
    pb inner;

    a->rank = 0;
    while ((r = field(&sub, &num, &wt, &v, &inner)) > 0) {
        if (num != 1)
            continue;
        if (wt == 0) {
            inner.p = inner.end = NULL;
            if (a->rank == KVG_MAX_RANK || v > (uint64_t)INT64_MAX)
                return bad(diag, file, where, "too many or too large dims");
            a->shape[a->rank++] = (int64_t)v;
        } else if (wt == 2) {
            while (inner.p < inner.end) {
                if (!varint(&inner, &v))
                    return bad(diag, file, where, "a malformed packed dim");
                if (a->rank == KVG_MAX_RANK || v > (uint64_t)INT64_MAX)
                    return bad(diag, file, where,
                               "too many or too large dims");
                a->shape[a->rank++] = (int64_t)v;
            }
        } else {
            return bad(diag, file, where, "dim of the wrong wire type");
        }
    }
    return r < 0 ? bad(diag, file, where, "malformed") : KVG_OK;
}

/* One OpInput (is_input) or OpOutput; *arg_index gets OpInput.arg_index
 * (field 10) when the input has one, else stays -1. */
/* An fp4 tensor's shape as kvgold's packed pairs. An aclnn operator dump
 * records the aclTensor's storage shape, which counts fp4 codes, and as
 * size the bytes op::CalcShapeBytes gives it, 4 bits a code rounded up
 * (hicann/opbase@aa3cd74b src/nnopbase/composite_op/aclnn_engine/
 * op_dfx.cpp:721-738, src/nnopbase/common/utils/data_type_utils.cpp:47-66,
 * include/nnopbase/opdev/data_type_utils.h:122-123); its data is that many
 * bytes copied from the device as they lie (hicann/runtime@681ef761
 * src/dfx/adump/adump/operator/operator_dumper.cpp:320-371,
 * src/aicpu_sched/aicpu_schedule/core/dfx/dump_task.cpp:464-500): the
 * kernel's packed pairs, kvgold's fp4. So the last dim is halved (it must
 * be even: an odd one pairs codes across rows), and the size is then
 * checked against the halved shape's bytes like any tensor's: a dump that
 * held one code a byte, or counted bytes in its shape, is refused there. */
static kvg_status fp4_pairs(kvg_scan_arg *a, const char *what,
                            const char *file, kvg_diag *diag)
{
    char where[32];
    if (a->kind != KVG_SCAN_TENSOR ||
        (a->dtype != KVG_FP4_E2M1 && a->dtype != KVG_FP4_E1M2))
        return KVG_OK;
    (void)snprintf(where, sizeof where, "%s.shape", what);
    if (!kvg_scan_fp4_pairs(a->rank, a->shape))
        return bad(diag, file, where,
                   "fp4 codes whose last dim is odd or absent: kvgold "
                   "reads fp4 in pairs along the last dim");
    return KVG_OK;
}

static kvg_status tensor_of(pb sub, int is_input, kvg_scan_arg *a,
                            long *arg_index, const char *file,
                            kvg_diag *diag)
{
    const char *what = is_input ? "input" : "output";
    char where[32];
    uint32_t num;
    int wt, r, have_size = 0, have_type = 0;
    uint64_t v, code = 0;
    pb inner;

    memset(a, 0, sizeof *a);
    a->kind = KVG_SCAN_TENSOR;
    while ((r = field(&sub, &num, &wt, &v, &inner)) > 0) {
        if (num == 1 && wt == 0) {
            code = v;
            have_type = 1;
        } else if (num == 2 && wt == 0) {
            a->layout = v == 29 ? KVG_SCAN_LAYOUT_NZ : KVG_SCAN_LAYOUT_ND;
        } else if (num == 3 && wt == 2) {
            (void)snprintf(where, sizeof where, "%s.shape", what);
            KVG_TRY(shape_of(inner, a, file, where, diag));
        } else if (num == (uint32_t)(is_input ? 5 : 6) && wt == 0) {
            a->nbytes = v;
            have_size = 1;
        } else if (is_input && num == 10 && wt == 0) {
            if (v >= KVG_SCAN_MAX_ARGS)
                return bad(diag, file, "input.arg_index",
                           "past the inputs kvgold reads");
            *arg_index = (long)v;
        }
    }
    if (r < 0)
        return bad(diag, file, what, "malformed");
    if (!have_size)
        return bad(diag, file, what, "no size");
    a->dtype = cann_dtype(code);
    if (code == 0 && a->nbytes == 0) {
        a->kind = KVG_SCAN_NONE; /* an optional input left out */
    } else if (!have_type || a->dtype == KVG_DTYPE_INVALID) {
        /* a tensor kvgold has no use for keeps its bytes' place */
        a->kind = KVG_SCAN_SCALAR;
        (void)snprintf(a->value, sizeof a->value, "null");
    }
    return fp4_pairs(a, what, file, diag);
}

/* A string attribute value as JSON: numbers, true / false and lists as
 * they are, anything else quoted. */
static void attr_json(const pb *v, char *out, size_t cap)
{
    size_t n = (size_t)(v->end - v->p), i, k = 0;
    char text[KVG_SCAN_VALUE_MAX];
    int plain = n > 0 && n < sizeof text;

    if (n >= sizeof text)
        n = sizeof text - 1;
    memcpy(text, v->p, n);
    text[n] = '\0';
    for (i = 0; plain && i < n; i++)
        plain = strchr("0123456789+-.eE[], ", text[i]) != NULL;
    if (plain || strcmp(text, "true") == 0 || strcmp(text, "false") == 0) {
        (void)snprintf(out, cap, "%s", text);
        return;
    }
    out[k++] = '"';
    for (i = 0; i < n && k + 3 < cap; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\')
            out[k++] = '\\';
        out[k++] = c < 0x20 ? '?' : (char)c;
    }
    out[k++] = '"';
    out[k] = '\0';
}

/*
 * CANN leaves an absent optional input out of DumpData without a
 * placeholder and records each input's kernel position in
 * OpInput.arg_index (hicann/ge graph_metadef/proto/dump_task.proto), so a
 * missing k_rope_scale would shift c_kv_scale into its place were inputs
 * taken by order. When any input carries an arg_index, each goes to its
 * position (proto3 writes no field for 0: an input without one is at
 * position 0) and the positions left are None. Two inputs at one
 * position are an error. The payload offsets were found in the file's
 * order before this.
 */
static kvg_status place_inputs(kvg_scan_call *c, const long *place,
                               const char *file, kvg_diag *diag)
{
    kvg_scan_arg moved[KVG_SCAN_MAX_ARGS];
    int i, any = 0, n = 0;
    for (i = 0; i < c->n_in; i++)
        any |= place[i] >= 0;
    if (!any)
        return KVG_OK;
    memset(moved, 0, sizeof moved);
    for (i = 0; i < KVG_SCAN_MAX_ARGS; i++)
        moved[i].kind = KVG_SCAN_ABSENT;
    for (i = 0; i < c->n_in; i++) {
        long k = place[i] >= 0 ? place[i] : 0;
        if (moved[k].kind != KVG_SCAN_ABSENT) {
            char msg[96];
            (void)snprintf(msg, sizeof msg, "inputs %d and another are both "
                                            "at position %ld", i, k);
            return bad(diag, file, "input.arg_index", msg);
        }
        moved[k] = c->in[i];
        (void)snprintf(moved[k].name, sizeof moved[k].name, "input %ld", k);
        if (k + 1 > n)
            n = (int)k + 1;
    }
    for (i = 0; i < n; i++)
        if (moved[i].kind == KVG_SCAN_ABSENT) {
            moved[i].kind = KVG_SCAN_NONE; /* left out: its default */
            (void)snprintf(moved[i].name, sizeof moved[i].name, "input %d",
                           i);
        }
    memcpy(c->in, moved, sizeof moved);
    c->n_in = n;
    return KVG_OK;
}

/* Field 3 (an output) or 4 (an input) of the header: the next tensor of
 * the call, its kernel position in place[] (inputs only). */
static kvg_status take_tensor(pb sub, int is_input, kvg_scan_call *c,
                              long *place, const char *file, kvg_diag *diag)
{
    long ignored = -1;
    int *n = is_input ? &c->n_in : &c->n_out;
    kvg_scan_arg *a;

    if (*n == KVG_SCAN_MAX_ARGS)
        return bad(diag, file, is_input ? "input" : "output",
                   "more than kvgold reads");
    a = is_input ? &c->in[*n] : &c->out[*n];
    place[*n] = -1;
    KVG_TRY(tensor_of(sub, is_input, a, is_input ? &place[*n] : &ignored,
                      file, diag));
    (void)snprintf(a->name, KVG_SCAN_NAME_MAX, "%s %d",
                   is_input ? "input" : "output", *n);
    ++*n;
    return KVG_OK;
}

/* Fields 5 (buffers) and 8 (workspaces): only their sizes count, for the
 * end of the file. */
static kvg_status add_sizes(pb sub, uint32_t num, uint64_t *extra,
                            const char *file, kvg_diag *diag)
{
    uint32_t n2;
    int w2, r2;
    uint64_t v2;
    pb in2;

    while ((r2 = field(&sub, &n2, &w2, &v2, &in2)) > 0)
        if (n2 == 3 && w2 == 0 && *extra + v2 >= *extra)
            *extra += v2;
    if (r2 < 0)
        return bad(diag, file, num == 5 ? "buffer" : "space", "malformed");
    return KVG_OK;
}

/* Field 7: one attribute (name, value) of the call. */
static kvg_status take_attr(pb sub, kvg_scan_call *c, const char *file,
                            kvg_diag *diag)
{
    kvg_scan_arg *a = &c->params[c->n_params];
    pb in2, name = {NULL, NULL}, value = {NULL, NULL};
    uint32_t n2;
    int w2, r2;
    uint64_t v2;

    /* an attribute dropped could be the one the call was computed with:
     * more than fit is no call kvgold judges */
    if (c->n_params == KVG_SCAN_MAX_ARGS) {
        char msg[96];
        (void)snprintf(msg, sizeof msg, "more than %d attributes; kvgold "
                                        "reads %d and never leaves one out",
                       KVG_SCAN_MAX_ARGS, KVG_SCAN_MAX_ARGS);
        return bad(diag, file, "attr", msg);
    }
    while ((r2 = field(&sub, &n2, &w2, &v2, &in2)) > 0) {
        if (n2 == 1 && w2 == 2)
            name = in2;
        else if (n2 == 2 && w2 == 2)
            value = in2;
    }
    if (r2 < 0 || name.p == NULL)
        return bad(diag, file, "attr", "malformed");
    memset(a, 0, sizeof *a);
    a->kind = KVG_SCAN_SCALAR;
    (void)snprintf(a->name, sizeof a->name, "%.*s", (int)(name.end - name.p),
                   (const char *)name.p);
    if (value.p == NULL)
        value.p = value.end = name.end;
    attr_json(&value, a->value, sizeof a->value);
    c->n_params++;
    return KVG_OK;
}

/* Field 6: the op name, the call's id. */
static void take_id(pb sub, kvg_scan_call *c)
{
    size_t n = (size_t)(sub.end - sub.p);
    if (n >= sizeof c->id)
        n = sizeof c->id - 1;
    memcpy(c->id, sub.p, n);
    c->id[n] = '\0';
}

/* The header's fields: tensors, sizes of buffers and workspaces, the id,
 * the attributes; others skipped. */
static kvg_status read_fields(pb b, kvg_scan_call *c, long *place,
                              uint64_t *extra, const char *file,
                              kvg_diag *diag)
{
    uint64_t v;
    uint32_t num;
    int wt, r;
    pb sub;

    while ((r = field(&b, &num, &wt, &v, &sub)) > 0) {
        if (wt != 2)
            continue;
        if (num == 3 || num == 4)
            KVG_TRY(take_tensor(sub, num == 4, c, place, file, diag));
        else if (num == 5 || num == 8)
            KVG_TRY(add_sizes(sub, num, extra, file, diag));
        else if (num == 6)
            take_id(sub, c);
        else if (num == 7)
            KVG_TRY(take_attr(sub, c, file, diag));
    }
    if (r < 0)
        return bad(diag, file, "header", "not a protobuf message (a "
                                         "malformed field)");
    return KVG_OK;
}

/* The payloads follow the header (which ends at `at`) in input, output
 * order: each tensor's offset, its size checked against its dtype and
 * shape, and the buffers and workspaces (`extra` bytes) after them. */
static kvg_status place_payloads(kvg_scan_call *c, uint64_t at,
                                 uint64_t size, uint64_t extra,
                                 const char *file, kvg_diag *diag)
{
    int i;

    for (i = 0; i < c->n_in + c->n_out; i++) {
        kvg_scan_arg *a = i < c->n_in ? &c->in[i] : &c->out[i - c->n_in];
        uint64_t need;
        if (at > size || a->nbytes > size - at)
            return bad(diag, file, i < c->n_in ? "input" : "output",
                       "its data run past the end of the file");
        a->offset = at;
        at += a->nbytes;
        if (a->kind != KVG_SCAN_TENSOR)
            continue;
        if (!kvg_scan_nbytes(a->dtype, a->rank, a->shape, &need) ||
            need != a->nbytes) {
            char msg[160];
            (void)snprintf(msg, sizeof msg,
                           "size %llu, its data_type and shape say %llu",
                           (unsigned long long)a->nbytes,
                           (unsigned long long)need);
            return bad(diag, file, i < c->n_in ? "input.size" : "output.size",
                       msg);
        }
    }
    if (extra > size - at)
        return bad(diag, file, "buffer", "the buffers and workspaces run "
                                         "past the end of the file");
    return KVG_OK;
}

kvg_status kvg_scan_cann_header(const unsigned char *buf, size_t len,
                                uint64_t size, const char *file,
                                kvg_scan_call *c, kvg_diag *diag)
{
    uint64_t hlen = 0, extra = 0;
    long place[KVG_SCAN_MAX_ARGS];
    int i;
    pb b;

    if (len < 8)
        return bad(diag, file, "length", "shorter than the 8-byte header "
                                         "length");
    for (i = 0; i < 8; i++)
        hlen |= (uint64_t)buf[i] << (8 * i);
    if (hlen > len - 8 || hlen > size - 8)
        return bad(diag, file, "length", "the header length is past the "
                                         "end of the file");
    b.p = buf + 8;
    b.end = buf + 8 + hlen;
    c->n_in = c->n_out = 0;
    KVG_TRY(read_fields(b, c, place, &extra, file, diag));
    KVG_TRY(place_payloads(c, 8 + hlen, size, extra, file, diag));
    return place_inputs(c, place, file, diag);
}

/* A dump file whose op type names no kernel form kvgold reads: another
 * kernel (counted), or a kvgold operator kvgold has no kernel form of
 * (listed NOT JUDGED, never counted as another operator's). */
static kvg_status other_kernel(kvg_scan_list *l, const char *type,
                               const char *path, const char *base,
                               const char *rel, kvg_diag *diag)
{
    const char *op = kvg_scan_op_of_name(type);
    char dir[KVG_SCAN_DIR_MAX], why[KVG_SCAN_REASON_MAX];

    if (op == NULL) {
        l->others++; /* its header not read */
        return KVG_OK;
    }
    (void)snprintf(dir, sizeof dir, "%.*s",
                   base == path ? 1 : (int)(base - path - 1),
                   base == path ? "." : path);
    (void)snprintf(why, sizeof why,
                   "op type %s is operator %s, which kvgold reads no "
                   "kernel call form of", type, op);
    return kvg_scan_list_unreadable(l, KVG_SCAN_CANN, type, rel, dir, why,
                                    diag);
}

/* A dump file listed NOT JUDGED for `why` (its name, not its header). */
static kvg_status list_odd(kvg_scan_list *l, const char *base,
                           const char *path, const char *rel,
                           const char *why, kvg_diag *diag)
{
    char dir[KVG_SCAN_DIR_MAX];
    (void)snprintf(dir, sizeof dir, "%.*s",
                   base == path ? 1 : (int)(base - path - 1),
                   base == path ? "." : path);
    return kvg_scan_list_unreadable(l, KVG_SCAN_CANN, "?", rel, dir, why,
                                    diag);
}

/* The dump file at `path` (id `rel`) of a kvgold kernel, as a call. A
 * file that cannot be read is listed NOT JUDGED with the field said, not
 * left out (strict, the one file the user named: the error itself). */
static kvg_status read_file(const char *path, const char *rel, int strict,
                            kvg_scan_list *l, kvg_diag *diag)
{
    const char *base = strrchr(path, '/');
    char type[KVG_SCAN_NAME_MAX];
    char why[KVG_SCAN_REASON_MAX];
    kvg_cann_name name;
    unsigned char first[8];
    unsigned char *buf;
    uint64_t size = 0, hlen = 0;
    size_t len = 0;
    kvg_scan_call *c;
    kvg_status st;
    int i;

    base = base ? base + 1 : path;
    if (!kvg_scan_cann_parse(base, &name)) {
        if (strict)
            (void)snprintf(type, sizeof type, "?");
        else
            return KVG_OK; /* not a dump file: not ours to judge */
    } else if (name.kind == KVG_CANN_ACLNN_BAD) {
        /* an aclnn operator dump's, maybe a kvgold kernel's: never
         * counted as another operator's on a guess */
        (void)snprintf(why, sizeof why, "%s looks like an aclnn "
                                        "operator dump file's name, but "
                                        "%s",
                       base, name.why);
        return list_odd(l, base, path, rel, why, diag);
    } else {
        (void)snprintf(type, sizeof type, "%s", name.type);
    }
    if (!strict && kvg_scan_find(type, KVG_SCAN_CANN, NULL) == NULL)
        return other_kernel(l, type, path, base, rel, diag);
    if ((c = kvg_scan_list_push(l, diag)) == NULL)
        return KVG_ERR_NOMEM;
    c->format = KVG_SCAN_CANN;
    c->inputs_after = k_inputs_after;
    (void)snprintf(c->api, sizeof c->api, "%s", type);
    (void)snprintf(c->id, sizeof c->id, "%s", rel);
    if (base == path)
        (void)snprintf(c->dir, sizeof c->dir, ".");
    else
        (void)snprintf(c->dir, sizeof c->dir, "%.*s",
                       (int)(base - path - 1), path);
    (void)snprintf(c->out_pattern, sizeof c->out_pattern, "output %%d");
    if (!strict && kvg_scan_kind(path, 1) != 2) {
        kvg_scan_odd_entry(path, "a dump file", why, sizeof why);
        (void)snprintf(c->unreadable, sizeof c->unreadable, "unreadable: %s",
                       why);
        return KVG_OK;
    }
    st = kvg_scan_head(path, first, 8, &len, &size, diag);
    for (i = 0; st == KVG_OK && i < 8 && (size_t)i < len; i++)
        hlen |= (uint64_t)first[i] << (8 * i);
    if (st == KVG_OK && len < 8)
        st = bad(diag, path, "length", size == 0 ? "empty (no 8-byte header "
                                                   "length)"
                                                 : "shorter than the 8-byte "
                                                   "header length");
    else if (st == KVG_OK && hlen > size - 8)
        st = bad(diag, path, "length", "the header length is past the end "
                                       "of the file");
    else if (st == KVG_OK && hlen > CANN_HEADER_MAX)
        st = bad(diag, path, "length", "the header length is over 64 MiB; "
                                       "kvgold reads headers up to 64 MiB");
    if (st == KVG_OK) {
        if ((buf = (unsigned char *)malloc((size_t)hlen + 8)) == NULL)
            return kvg_diag_set(diag, KVG_ERR_NOMEM, "scan", -1, -1,
                                "out of memory");
        st = kvg_scan_head(path, buf, (size_t)hlen + 8, &len, &size, diag);
        if (st == KVG_OK)
            st = kvg_scan_cann_header(buf, len, size, path, c, diag);
        free(buf);
    }
    for (i = 0; st == KVG_OK && i < c->n_in + c->n_out; i++)
        (void)snprintf(i < c->n_in ? c->in[i].file : c->out[i - c->n_in].file,
                       KVG_SCAN_FILE_MAX, "%s", base);
    (void)snprintf(c->id, sizeof c->id, "%s", rel);
    if (st != KVG_OK) {
        if (strict)
            return st;
        (void)snprintf(c->unreadable, sizeof c->unreadable, "unreadable: %s",
                       diag->message);
        kvg_diag_clear(diag);
    }
    return KVG_OK;
}

/* Launch order: by the timestamp the name ends with, then the name. */
static int by_time(const void *x, const void *y)
{
    const char *a = *(char *const *)x, *b = *(char *const *)y;
    const char *ta = strrchr(a, '.'), *tb = strrchr(b, '.');
    int c = kvg_scan_natcmp(ta ? ta : a, tb ? tb : b);
    return c ? c : kvg_scan_natcmp(a, b);
}

typedef struct cann_walk {
    kvg_scan_list *l;
} cann_walk;

/* A link to a directory below the root, or leading nowhere: it might
 * hold dump files (one named as a dump file is visit's). */
static int link_entry(const char *path, const char *rel, void *user,
                      kvg_diag *diag)
{
    char why[KVG_SCAN_REASON_MAX], type[KVG_SCAN_NAME_MAX];
    const char *base = strrchr(path, '/');
    if (kvg_scan_cann_name(base != NULL ? base + 1 : path, type, sizeof type))
        return 0;
    kvg_scan_odd_entry(path, NULL, why, sizeof why);
    return kvg_scan_list_unreadable(((cann_walk *)user)->l, KVG_SCAN_CANN,
                                    "?", rel, path, why, diag) == KVG_OK
               ? 0
               : -1;
}

static int visit(const char *dir, const char *rel, void *user,
                 kvg_diag *diag)
{
    cann_walk *w = (cann_walk *)user;
    char **names;
    size_t n, i, first;
    kvg_status st = KVG_OK;

    if (kvg_scan_names(dir, &names, &n, diag) != KVG_OK)
        return -1;
    if (n > 1)
        qsort(names, n, sizeof *names, by_time);
    first = w->l->count;
    for (i = 0; i < n && st == KVG_OK; i++) {
        char *path = kvg_path_join(dir, names[i], NULL, diag);
        char *r = kvg_path_join(rel, names[i], NULL, diag);
        if (path == NULL || r == NULL)
            st = KVG_ERR_NOMEM;
        else if (kvg_scan_kind(path, 1) != 1) /* a file, a link, a FIFO.. */
            st = read_file(path, r, 0, w->l, diag);
        free(path);
        free(r);
    }
    kvg_scan_names_free(names, n);
    /* an aclnn operator dump's launch is two files of this directory */
    if (st == KVG_OK)
        st = kvg_scan_cann_pair(w->l, first, diag);
    return st == KVG_OK ? 0 : -1;
}

kvg_status kvg_scan_read_cann(const char *path, kvg_scan_list *l,
                              kvg_diag *diag)
{
    cann_walk w;
    int kind = kvg_scan_kind(path, 0);
    if (kind == 2) {
        /* the file the user named may be a link: read what it leads to */
        const char *base = strrchr(path, '/');
        char *real = realpath(path, NULL);
        size_t first = l->count;
        kvg_status st;
        if (real == NULL)
            return kvg_diag_set(diag, KVG_ERR_IO, "scan", -1, -1, "%s: %s",
                                path,
                                strerror(errno));
        st = read_file(real, base ? base + 1 : path, 1, l, diag);
        free(real);
        /* one file of an aclnn launch's two is unpaired: said so */
        return st == KVG_OK ? kvg_scan_cann_pair(l, first, diag) : st;
    }
    if (kind != 1)
        return kvg_diag_set(diag, KVG_ERR_IO, "scan", -1, -1,
                            "%s: neither a dump file nor a directory", path);
    w.l = l;
    return kvg_scan_walk_links(path, visit, link_entry, &w, diag);
}
