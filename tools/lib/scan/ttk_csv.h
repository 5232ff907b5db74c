/*
 * tools/lib/scan/ttk_csv.h - ops-test-kit's testcase CSV, as far as
 * `kvgold scan` needs it: per testcase (its `testcase_name`, which is its
 * case directory's name) the API it calls, the shape and dtype of each
 * flat tensor slot, and its attributes. Both of ops-test-kit's forms:
 * the e2e CSV (api_name, tensor_view_shapes, tensor_dtypes, ...,
 * inplace_input_indexes) and the kernel-mode CSV (op_name, input_shapes,
 * input_dtypes, ...), told apart by the header.
 *
 * The table is read as ops-test-kit reads it (Python's csv module, excel
 * dialect: ',' separated, '"' quoted with "" for a quote; every cell
 * stripped; blank lines dropped; the first line the header), and each
 * cell is a Python literal ops-test-kit evaluates ("((2,3),None)",
 * "('float16',)", "{'epsilon':1e-05}"): this file has a small parser of
 * the literals those columns use (tuples, lists, dicts, strings, numbers,
 * True / False / None). A malformed file is an error naming the file,
 * line, column and field; every row is checked when the file is loaded.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_SCAN_TTK_CSV_H
#define KVGOLD_TOOLS_SCAN_TTK_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "scan.h"

typedef struct kvg_ttk_csv kvg_ttk_csv;

/* ops-test-kit's name of a dtype in its file names and CSV ("float16",
 * "bfloat16", "hifloat8", "uint16"...), NULL for one it has none of (the
 * packed fp4 types); and back, KVG_DTYPE_INVALID for an unknown name. One
 * table for `kvgold prepare`, its CSV rows and scan's reading of both. */
const char *kvg_ttk_dtype_name(kvg_dtype dt);
kvg_dtype kvg_ttk_dtype_from_name(const char *name);

/* One flat tensor slot of a row. */
typedef struct kvg_ttk_slot {
    int none;                     /* None: an optional tensor left out */
    int rank;                     /* the view shape */
    int64_t shape[KVG_MAX_RANK];
    int srank;                    /* the storage shape (-1: the view's) */
    int64_t sshape[KVG_MAX_RANK];
    char dtype[32];               /* NumPy name, "" when not given */
} kvg_ttk_slot;

/* One testcase row, parsed. */
typedef struct kvg_ttk_row {
    const char *file;  /* the CSV's path */
    long line;         /* where the row starts (1-based) */
    long dup_line;     /* another row with the same name, or 0 */
    int kernel;        /* a kernel-mode row: api is its op_name, the slots
                          its input_shapes / input_dtypes */
    char name[256];
    char api[KVG_SCAN_NAME_MAX];
    int n;
    kvg_ttk_slot slot[KVG_SCAN_MAX_ARGS];
    /* inplace_input_indexes (e2e): the input slots ops-test-kit appends,
     * ascending, to the device outputs after what the API returns;
     * n_inplace -1 when the row gives none */
    int n_inplace;
    int inplace[KVG_SCAN_MAX_ARGS];
    int n_attrs;
    char key[KVG_SCAN_MAX_ARGS][KVG_SCAN_NAME_MAX];
    char value[KVG_SCAN_MAX_ARGS][KVG_SCAN_VALUE_MAX]; /* JSON text */
    /* what makes the row unusable for kvgold though ops-test-kit reads it
     * (a TensorList too long, an attribute value kvgold cannot take, an
     * out= tensor), "" if nothing */
    char problem[KVG_SCAN_REASON_MAX];
} kvg_ttk_row;

/* Read the CSV at `path` (at most 256 MiB) and check every row. */
kvg_status kvg_ttk_csv_load(const char *path, kvg_ttk_csv **out,
                            kvg_diag *diag);
/* The same from memory; `file` names it in messages (kept by pointer). */
kvg_status kvg_ttk_csv_parse(const char *text, size_t len, const char *file,
                             kvg_ttk_csv **out, kvg_diag *diag);
void kvg_ttk_csv_free(kvg_ttk_csv *t);

/* The number of testcase rows. */
size_t kvg_ttk_csv_count(const kvg_ttk_csv *t);

/* The row of testcase `name` into *row: 1 found, 0 none. */
int kvg_ttk_csv_find(const kvg_ttk_csv *t, const char *name,
                     kvg_ttk_row *row);

/* The i-th row (in file order) into *row. */
void kvg_ttk_csv_row(const kvg_ttk_csv *t, size_t i, kvg_ttk_row *row);

/* ---- writing (kvgold prepare --csv) ---------------------------------- */

struct kvg_case;
struct kvg_binding_call;

/* The header line of the rows below (ops-test-kit's e2e columns). */
extern const char kvg_ttk_csv_header[];

/* How call form `api` hands ops-test-kit its outputs. ops-test-kit's e2e
 * run compares the list `backend.result_to_numpy(<what the API returns>)`
 * - [None] when it returns None - followed by the input slots its CSV
 * names in inplace_input_indexes, ascending (ttk/core_modules/
 * framework_api/profiling.py `_execute_eager`). The form's outputs are
 * what the API returns, then the tensors it writes in place: the longest
 * tail of `outputs` that are tensor arguments. Into *returned the number
 * of outputs it returns (0: it returns None), into slot[] the in-place
 * tensors' argument slots, into *count the number of those. KVG_OK, or
 * KVG_ERR_PARAM_INVALID ("API: its in-place outputs are not in the order
 * of their arguments") when they are not in ascending slot order
 * (ops-test-kit would append them in another order than the goldens) or
 * more than cap. */
kvg_status kvg_ttk_form_inplace(const struct kvg_binding_call *api, int *slot,
                                int cap, int *count, int *returned,
                                kvg_diag *diag);

/* Case c's testcase row, called through form `api`, as testcase `name`:
 * one CSV line (with its newline), the shapes and dtypes of the form's
 * tensors in signature order (None for one the case leaves out), every
 * attribute of the form under its keyword name, with the case's value or
 * kvgold's default, as Python literals, and the form's in-place slots as
 * inplace_input_indexes (kvg_ttk_form_inplace). A malloc'd string in
 * *out and KVG_OK; or a status with the diag saying why (an input dtype
 * or an attribute with no ops-test-kit spelling, no memory). */
kvg_status kvg_ttk_csv_format_row(const struct kvg_case *c,
                                  const struct kvg_binding_call *api,
                                  const char *name, char **out,
                                  kvg_diag *diag);

#endif /* KVGOLD_TOOLS_SCAN_TTK_CSV_H */
