/*
 * tools/lib/scan/cann_aclnn.c - the aclnn operator dump's file names and
 * the pairing of a launch's input file with its output file.
 *
 * Names. A dump file is "<op type>.<op name>.<task id>.<stream id>.
 * <timestamp>", each of type and name with ' ', '.', '/', '\' made '_'
 * (hicann/runtime@681ef761 src/aicpu_sched/aicpu_schedule/core/dfx/
 * dump_task.cpp:1333-1365, dump_task.h:61-68). The aclnn operator dump
 * gives the runtime (Adx::AdumpDumpTensorV2) an op type and name of its
 * own, not the kernel's:
 *   - an individual op: type "L2DfxAbscent_<n>", name "_L0<OpType>", n a
 *     new OpGetLogSequence() for each of the two dumps of a launch
 *     (hicann/opbase@aa3cd74b src/nnopbase/individual_op/executor/
 *     indv_dump.cpp:147-149; the counter, a process-wide atomic,
 *     src/nnopbase/composite_op/aclnn_engine/op_dfx.cpp:37,148-152);
 *   - a composite API's kernel: type "<aclnn API>_<n>_L0" ("L2DfxAbscent"
 *     for no API name), name the L0 function's name ("L0DfxAbscent" for
 *     none), n the API call's l2SequenceCounter, the same for both dumps
 *     of a launch (op_dfx.cpp:1132-1143, DumpL0; the launcher's one
 *     opLogInfo_, src/nnopbase/common/inc/kernel_launcher.h:158-180).
 *
 * Pairing. Each launch writes its inputs to one file, dumped before the
 * kernel, and its outputs to another, after it, both on the launch's
 * stream (indv_executor.cpp:1408-1425, kernel_launcher.h:168-180); each
 * file holds only its kind (hicann/runtime@681ef761 src/dfx/adump/adump/
 * manage/dump_manager/dump_manager.cpp:433-456 splits the tensors by
 * type, :519-551; operator/operator_dumper.cpp:294-302 writes the kinds
 * given). Nothing in the names ties the two together: the task id of the
 * input file is the thread's last task before its dump kernel
 * (rtsGetThreadLastTaskId, operator_dumper.cpp:261-293, read before
 * LaunchDumpKernel), not the kernel's. What is provable: in a
 * group - the files of one op name (and, for a composite, one API call)
 * on one stream - a launch's input file comes before its output file, by
 * the individual op's sequence number (taken on the host, input first,
 * from one counter) or by the composite's timestamp (dump tasks run in
 * stream order). So when a group's files, in that order, alternate
 * input, output, input, output with no tie, each output file is the
 * output of the input file just before it: the first file is an input
 * (an output's own input comes before it), the next an output whose
 * input is before it, so this one; and so on. A group that does not
 * alternate (two threads launching onto one stream, a file lost, a
 * tie) is not paired: its files are NOT JUDGED, none guessed. This holds
 * when every launch of the group left both files; two lost files of
 * different launches could pair wrongly and cannot be seen (docs/
 * scan.md, "CANN operator dumps").
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cann_aclnn.h"
#include "read_common.h"

/* ---- names ----------------------------------------------------------- */

typedef struct span {
    const char *p;
    size_t n;
} span;

static int starts(span s, const char *w)
{
    size_t k = strlen(w);
    return s.n >= k && memcmp(s.p, w, k) == 0;
}

static int ends(span s, const char *w)
{
    size_t k = strlen(w);
    return s.n >= k && memcmp(s.p + s.n - k, w, k) == 0;
}

/* A decimal number of at most 19 digits into *v. */
static int number(span s, uint64_t *v)
{
    size_t i;
    *v = 0;
    if (s.n == 0 || s.n > 19)
        return 0;
    for (i = 0; i < s.n; i++) {
        if (s.p[i] < '0' || s.p[i] > '9')
            return 0;
        *v = *v * 10 + (uint64_t)(s.p[i] - '0');
    }
    return 1;
}

static int bad(kvg_cann_name *n, const char *why)
{
    n->kind = KVG_CANN_ACLNN_BAD;
    (void)snprintf(n->why, sizeof n->why, "%s", why);
    return 1;
}

static void copy(char *dst, size_t cap, span s)
{
    (void)snprintf(dst, cap, "%.*s", (int)s.n, s.p);
}

/* "L2DfxAbscent_<n>" with op name "_L0<OpType>". */
static int individual(span f[5], kvg_cann_name *n)
{
    span seq, op;
    if (!starts(f[1], "_L0") || f[1].n == 3)
        return bad(n, "op type L2DfxAbscent_<n> goes with op name "
                      "_L0<op type> (hicann/opbase@aa3cd74b indv_dump.cpp:"
                      "147-148), this op name is not one");
    seq.p = f[0].p + 13; /* after "L2DfxAbscent_" */
    seq.n = f[0].n - 13;
    op.p = f[1].p + 3; /* after "_L0" */
    op.n = f[1].n - 3;
    if (op.n >= KVG_SCAN_NAME_MAX)
        return bad(n, "its op type is longer than kvgold reads");
    n->kind = KVG_CANN_ACLNN_INDV;
    (void)number(seq, &n->order);
    copy(n->type, sizeof n->type, op);
    (void)snprintf(n->group, sizeof n->group, "%.*s on stream %.*s",
                   (int)f[1].n, f[1].p, (int)f[3].n, f[3].p);
    return 1;
}

/* "<aclnn API>_<n>_L0" with op name the L0 function's. */
static int composite(span f[5], kvg_cann_name *n)
{
    span head = {f[0].p, f[0].n - 3}; /* without "_L0" */
    size_t k = head.n;
    uint64_t seq;
    while (k > 0 && head.p[k - 1] >= '0' && head.p[k - 1] <= '9')
        k--;
    if (k < 2 || k == head.n || head.p[k - 1] != '_' ||
        !number((span){head.p + k, head.n - k}, &seq))
        return bad(n, "op type ..._L0 is <aclnn API>_<n>_L0 (hicann/opbase"
                      "@aa3cd74b op_dfx.cpp:1137-1138), this one is not");
    if (f[1].n == 0 || starts(f[1], "_L0"))
        return bad(n, "op type <aclnn API>_<n>_L0 goes with the L0 "
                      "function's name as op name (op_dfx.cpp:1139), "
                      "this op name is not one");
    if (f[1].n == 12 && memcmp(f[1].p, "L0DfxAbscent", 12) == 0)
        return bad(n, "op name L0DfxAbscent names no kernel (the API "
                      "recorded no L0 name: op_dfx.cpp:1139)");
    if (f[1].n >= KVG_SCAN_NAME_MAX)
        return bad(n, "its op name is longer than kvgold reads");
    n->kind = KVG_CANN_ACLNN_L2;
    n->order = 0;
    copy(n->type, sizeof n->type, f[1]);
    (void)snprintf(n->group, sizeof n->group, "%.*s.%.*s on stream %.*s",
                   (int)f[0].n, f[0].p, (int)f[1].n, f[1].p, (int)f[3].n,
                   f[3].p);
    return 1;
}

/* A name that is an aclnn operator dump's by its first two fields. */
static int aclnn(span f[5], int dots, kvg_cann_name *n)
{
    uint64_t v;
    span exact = {NULL, 0}; /* the number of "L2DfxAbscent_<n>" */
    if (starts(f[0], "L2DfxAbscent_")) {
        exact.p = f[0].p + 13;
        exact.n = f[0].n - 13;
    }
    if (dots != 4)
        return bad(n, "an aclnn operator dump file name has 5 fields "
                      "(hicann/runtime@681ef761 dump_task.cpp:1361), "
                      "this one has another count");
    if (!number(f[2], &v) || !number(f[3], &v) || !number(f[4], &v))
        return bad(n, "its task id, stream id and timestamp are not all "
                      "numbers");
    if (exact.p != NULL && number(exact, &v))
        return individual(f, n);
    if (ends(f[0], "_L0")) {
        int r = composite(f, n);
        if (n->kind == KVG_CANN_ACLNN_L2)
            (void)number(f[4], &n->order);
        return r;
    }
    return bad(n, "it is neither L2DfxAbscent_<n>._L0<op type>... nor "
                  "<aclnn API>_<n>_L0.<op type>... (hicann/opbase@aa3cd74b "
                  "indv_dump.cpp:147-148, op_dfx.cpp:1137-1139)");
}

int kvg_scan_cann_parse(const char *base, kvg_cann_name *n)
{
    span f[5];
    const char *p = base;
    int dots = kvg_scan_dots(base), i;

    memset(n, 0, sizeof *n);
    if (dots < 4)
        return 0;
    for (i = 0; i < 5; i++) {
        const char *dot = strchr(p, '.');
        f[i].p = p;
        f[i].n = dot != NULL ? (size_t)(dot - p) : strlen(p);
        p = dot != NULL ? dot + 1 : p + f[i].n;
    }
    if (f[0].n == 0 || f[0].n >= KVG_SCAN_NAME_MAX)
        return 0;
    if (starts(f[0], "L2DfxAbscent") || ends(f[0], "_L0") ||
        starts(f[1], "_L0"))
        return aclnn(f, dots, n);
    n->kind = KVG_CANN_PLAIN;
    copy(n->type, sizeof n->type, f[0]);
    return 1;
}

int kvg_scan_cann_kernel(const char *base, char *type, size_t cap)
{
    kvg_cann_name n;
    if (!kvg_scan_cann_parse(base, &n) || n.kind == KVG_CANN_ACLNN_BAD ||
        strlen(n.type) >= cap)
        return 0;
    (void)snprintf(type, cap, "%s", n.type);
    return 1;
}

/* ---- pairing --------------------------------------------------------- */

enum { ROLE_NONE, ROLE_IN, ROLE_OUT };

typedef struct member {
    size_t call;      /* index into l->calls */
    kvg_cann_name name;
    int role;         /* ROLE_IN / ROLE_OUT; ROLE_NONE unreadable */
} member;

static const char *base_of(const char *id)
{
    const char *s = strrchr(id, '/');
    return s != NULL ? s + 1 : id;
}

static int same_group(const member *a, const member *b)
{
    return a->name.kind == b->name.kind &&
           strcmp(a->name.group, b->name.group) == 0;
}

/* Groups together, each in its order. */
static int by_group(const void *x, const void *y)
{
    const member *a = (const member *)x, *b = (const member *)y;
    int c = (int)a->name.kind - (int)b->name.kind;
    if (c == 0)
        c = strcmp(a->name.group, b->name.group);
    if (c == 0)
        c = a->name.order < b->name.order ? -1
                                          : a->name.order > b->name.order;
    return c;
}

/* Why group g (k members, by order) cannot be paired; NULL if it can. */
static const char *unpairable(const member *g, size_t k)
{
    size_t i;
    for (i = 0; i < k; i++) {
        if (g[i].role == ROLE_NONE)
            return "one of them cannot be read (an input or an output file?)";
        if (i > 0 && g[i].name.order == g[i - 1].name.order)
            return "two of them have one place in that order";
        if (g[i].role != (i % 2 == 0 ? ROLE_IN : ROLE_OUT))
            return "they do not alternate input file, output file";
    }
    return k % 2 != 0 ? "they end with an input file" : NULL;
}

/* The output file's call `o` joins input file call `c`: its outputs
 * (each naming its own file) and any attribute c lacks. */
static void join(kvg_scan_call *c, const kvg_scan_call *o)
{
    int i, j;
    char id[sizeof c->id];
    memcpy(c->out, o->out, sizeof c->out);
    c->n_out = o->n_out;
    for (i = 0; i < o->n_params && c->n_params < KVG_SCAN_MAX_ARGS; i++) {
        for (j = 0; j < c->n_params; j++)
            if (strcmp(c->params[j].name, o->params[i].name) == 0)
                break;
        if (j == c->n_params)
            c->params[c->n_params++] = o->params[i];
    }
    (void)snprintf(id, sizeof id, "%s + %s", c->id, base_of(o->id));
    memcpy(c->id, id, sizeof id);
    c->inputs_after = NULL; /* the inputs were read before the launch */
}

static void refuse(kvg_scan_call *c, const member *m, const char *why,
                   size_t k)
{
    const char *order = m->name.kind == KVG_CANN_ACLNN_INDV
                            ? "sequence number"
                            : "timestamp";
    if (c->unreadable[0] != '\0')
        return; /* its own reason stands */
    if (k == 1)
        (void)snprintf(c->unreadable, sizeof c->unreadable,
                       "unpaired: %s is an aclnn operator dump %s file "
                       "with no %s file of its launch here (docs/scan.md, "
                       "\"CANN operator dumps\")",
                       base_of(c->id), m->role == ROLE_IN ? "input"
                                                          : "output",
                       m->role == ROLE_IN ? "output" : "input");
    else
        (void)snprintf(c->unreadable, sizeof c->unreadable,
                       "unpaired: %s: of %lu aclnn operator dump files of "
                       "%s, by %s, %s: which input file is which output "
                       "file's is not proved (docs/scan.md, \"CANN "
                       "operator dumps\")",
                       base_of(c->id), (unsigned long)k, m->name.group,
                       order, why);
}

/* The group g[0..k) (in its order): pair it, or refuse every member.
 * drop[call - first] marks an output file joined to its input's call. */
static void group(kvg_scan_list *l, member *g, size_t k, size_t first,
                  unsigned char *drop)
{
    const char *why = unpairable(g, k);
    size_t i;
    for (i = 0; i < k; i++) {
        if (why != NULL) {
            refuse(&l->calls[g[i].call], &g[i], why, k);
        } else if (i % 2 == 1) {
            join(&l->calls[g[i - 1].call], &l->calls[g[i].call]);
            drop[g[i].call - first] = 1;
        }
    }
}

/* A call of calls[first..] that may pair: an aclnn name, and one kind of
 * tensors (a file holding both, an overflow dump, is read as one). */
static int member_of(const kvg_scan_call *c, member *m)
{
    if (!kvg_scan_cann_parse(base_of(c->id), &m->name) ||
        (m->name.kind != KVG_CANN_ACLNN_INDV &&
         m->name.kind != KVG_CANN_ACLNN_L2))
        return 0;
    if (c->unreadable[0] != '\0')
        m->role = ROLE_NONE;
    else if (c->n_in > 0 && c->n_out == 0)
        m->role = ROLE_IN;
    else if (c->n_out > 0 && c->n_in == 0)
        m->role = ROLE_OUT;
    else
        return 0;
    return 1;
}

kvg_status kvg_scan_cann_pair(kvg_scan_list *l, size_t first,
                              kvg_diag *diag)
{
    size_t n = 0, i, j, w;
    member *m;
    unsigned char *drop;
    if (first >= l->count)
        return KVG_OK;
    m = (member *)malloc((l->count - first) * sizeof *m);
    drop = (unsigned char *)calloc(l->count - first, 1);
    if (m == NULL || drop == NULL) {
        free(m);
        free(drop);
        return kvg_diag_set(diag, KVG_ERR_NOMEM, "scan", -1, -1,
                            "out of memory");
    }
    for (i = first; i < l->count; i++)
        if (member_of(&l->calls[i], &m[n]))
            m[n++].call = i;
    if (n > 1)
        qsort(m, n, sizeof *m, by_group);
    for (i = 0; i < n; i = j) {
        for (j = i + 1; j < n && same_group(&m[i], &m[j]); j++)
            ;
        group(l, m + i, j - i, first, drop);
    }
    /* the joined output files leave the list; the order stays */
    for (i = first, w = first; i < l->count; i++)
        if (!drop[i - first])
            l->calls[w++] = l->calls[i];
    l->count = w;
    free(m);
    free(drop);
    return KVG_OK;
}
