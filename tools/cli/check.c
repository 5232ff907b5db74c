/*
 * tools/cli/check.c - `kvgold check`: bit-for-bit comparison with the case's
 * expected tensors, reported as an aligned table.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "cli.h"

static void shape_text(const kvg_tensor *t, char *buf, size_t size)
{
    size_t used = 0;
    int i;
    buf[0] = '\0';
    for (i = 0; i < t->rank && used + 1 < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld",
                                 i ? "x" : "", (long long)t->shape[i]);
    if (t->rank == 0)
        (void)snprintf(buf, size, "scalar");
}

static int check_error_case(const kvg_case *c, kvg_status st,
                            const kvg_diag *diag, FILE *out)
{
    int ok = st == c->expect_status &&
             (c->expect_tensor[0] == '\0' ||
              strcmp(c->expect_tensor, diag->tensor) == 0);
    fprintf(out, "case %s (%s): expects error %d%s%s%s\n", c->dir, c->op,
            (int)c->expect_status, c->expect_tensor[0] ? " naming \"" : "",
            c->expect_tensor, c->expect_tensor[0] ? "\"" : "");
    fprintf(out, "  got %s (%d)%s%s\n", kvg_status_name(st), (int)st,
            diag->message[0] ? ": " : "", diag->message);
    fprintf(out, "%s\n", ok ? "PASS" : "FAIL");
    return ok ? KVG_EXIT_PASS : KVG_EXIT_MISMATCH;
}

int kvg_cli_check(const kvg_case *c, FILE *out)
{
    kvg_case_set got;
    kvg_diag diag;
    kvg_status st;
    int i, failed = 0;

    memset(&got, 0, sizeof got);
    kvg_diag_clear(&diag);
    st = kvg_case_run(c, &got, &diag);
    if (c->expect_error) {
        int rc = check_error_case(c, st, &diag, out);
        kvg_case_set_free(&got);
        return rc;
    }
    if (st != KVG_OK) {
        kvg_cli_run_error(c->dir, st, &diag);
        kvg_case_set_free(&got);
        return KVG_EXIT_INVALID;
    }
    if (c->expected.count == 0) {
        fprintf(stderr, "kvgold: %s: the case lists no expected tensors\n",
                c->dir);
        kvg_case_set_free(&got);
        return KVG_EXIT_INVALID;
    }
    fprintf(out, "case %s (%s): bit-for-bit check of %d tensors\n", c->dir,
            c->op, c->expected.count);
    fprintf(out, "  %-22s %-10s %-18s %12s %12s  %s\n", "tensor", "dtype",
            "shape", "elements", "differing", "verdict");
    for (i = 0; i < c->expected.count; i++) {
        const kvg_case_tensor *e = &c->expected.items[i];
        kvg_case_verdict v;
        char shape[64];
        size_t elems = e->t.nbytes / kvg_dtype_size(e->t.dtype);

        shape_text(&e->t, shape, sizeof shape);
        if (kvg_case_verify_tensor_streamed(c, &got, i, &v)) {
            fprintf(out, "  %-22s %-10s %-18s %12lu %12d  PASS\n", e->name,
                    kvg_dtype_name(e->t.dtype), shape, (unsigned long)elems,
                    0);
        } else if (!v.same_geometry) {
            fprintf(out, "  %-22s %-10s %-18s %12lu %12s  FAIL (%s)\n",
                    e->name, kvg_dtype_name(e->t.dtype), shape,
                    (unsigned long)elems, "-",
                    v.got == NULL ? "not produced" : "shape/dtype differ");
            failed++;
        } else {
            fprintf(out, "  %-22s %-10s %-18s %12lu %12lld  FAIL (first at "
                         "element %lld)\n", e->name,
                    kvg_dtype_name(e->t.dtype), shape, (unsigned long)elems,
                    v.differing, v.first);
            failed++;
        }
    }
    fprintf(out, "%s: %d of %d tensors bit-exact\n", failed ? "FAIL" : "PASS",
            c->expected.count - failed, c->expected.count);
    kvg_case_set_free(&got);
    return failed ? KVG_EXIT_MISMATCH : KVG_EXIT_PASS;
}
