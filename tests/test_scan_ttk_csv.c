/*
 * tests/test_scan_ttk_csv.c - ops-test-kit's testcase CSV as kvgold scan
 * reads it (tools/lib/scan/ttk_csv.c): Python's csv quoting, the Python
 * literals of its cells flattened onto tensor slots as ops-test-kit's e2e
 * testcase spreads them, attributes as JSON, rows found by name, and
 * every refusal naming the file, line, column and field; kernel-mode rows
 * (op_name, input_shapes, input_dtypes) as ops-test-kit's kernel testcase
 * normalises them; inplace_input_indexes; and each torch_npu form's
 * in-place slots. Expected values are written from Python's own reading
 * of the same text (csv.reader, ast.literal_eval), by hand, and from
 * ops-test-kit's code cited at each test.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdlib.h>
#include <string.h>

#include "binding.h"
#include "ttk_csv.h"

static kvg_ttk_csv *parse(const char *text)
{
    kvg_ttk_csv *t = NULL;
    kvg_diag diag;
    kvg_diag_clear(&diag);
    if (kvg_ttk_csv_parse(text, strlen(text), "t.csv", &t, &diag) != KVG_OK)
        fail_msg("refused: %s", diag.message);
    return t;
}

static void refused_n(const char *text, size_t len, const char *want)
{
    kvg_ttk_csv *t = (kvg_ttk_csv *)&t; /* poisoned: must come back NULL */
    kvg_diag diag;
    kvg_diag_clear(&diag);
    assert_int_equal(kvg_ttk_csv_parse(text, len, "t.csv", &t, &diag),
                     KVG_ERR_FILE_FORMAT);
    assert_null(t);
    if (strstr(diag.message, want) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", diag.message, want);
}

static void refused(const char *text, const char *want)
{
    refused_n(text, strlen(text), want);
}

static void test_slots_and_attrs(void **state)
{
    /* csv.reader: row 2 is ['kv_0', 'torch_npu.x', '((2, 3), None, (4,))',
     * "('float16', None, 'int64')", "{'epsilon': 1e-05, 'cache_mode':
     * 'Norm', 'is_output_kv': True, 'l': [1, -2], 'd': None}"] */
    static const char text[] =
        "testcase_name,api_name,tensor_view_shapes,tensor_dtypes,"
        "attributes\r\n"
        "kv_0,torch_npu.x,\"((2, 3), None, (4,))\","
        "\"('float16', None, 'int64')\","
        "\"{'epsilon': 1e-05, 'cache_mode': 'Norm', 'is_output_kv': True, "
        "'l': [1, -2], 'd': None}\"\r\n";
    kvg_ttk_csv *t = parse(text);
    kvg_ttk_row *r = (kvg_ttk_row *)malloc(sizeof *r);
    (void)state;
    assert_non_null(r);
    memset(r, 0x5a, sizeof *r);
    assert_int_equal(kvg_ttk_csv_count(t), 1);
    assert_int_equal(kvg_ttk_csv_find(t, "kv_0", r), 1);
    assert_string_equal(r->problem, "");
    assert_int_equal(r->line, 2);
    assert_int_equal(r->dup_line, 0);
    assert_string_equal(r->api, "torch_npu.x");
    assert_int_equal(r->n, 3);
    assert_int_equal(r->slot[0].none, 0);
    assert_int_equal(r->slot[0].rank, 2);
    assert_int_equal(r->slot[0].shape[0], 2);
    assert_int_equal(r->slot[0].shape[1], 3);
    assert_int_equal(r->slot[0].srank, -1);
    assert_string_equal(r->slot[0].dtype, "float16");
    assert_int_equal(r->slot[1].none, 1);
    assert_string_equal(r->slot[1].dtype, "");
    assert_int_equal(r->slot[2].rank, 1);
    assert_int_equal(r->slot[2].shape[0], 4);
    assert_string_equal(r->slot[2].dtype, "int64");
    /* None leaves the default: four attributes, as JSON */
    assert_int_equal(r->n_attrs, 4);
    assert_string_equal(r->key[0], "epsilon");
    assert_string_equal(r->value[0], "1e-05");
    assert_string_equal(r->key[1], "cache_mode");
    assert_string_equal(r->value[1], "\"Norm\"");
    assert_string_equal(r->key[2], "is_output_kv");
    assert_string_equal(r->value[2], "true");
    assert_string_equal(r->key[3], "l");
    assert_string_equal(r->value[3], "[1,-2]");
    assert_int_equal(kvg_ttk_csv_find(t, "kv", r), 0);
    assert_int_equal(kvg_ttk_csv_find(t, "kv_00", r), 0);
    free(r);
    kvg_ttk_csv_free(t);
}

static void test_spreading(void **state)
{
    /* a TensorList of two and a tensor: dtypes per top-level argument;
     * one dtype for all; storage shapes; (x) is x, not a tuple; quotes
     * inside a quoted cell; a blank line; duplicates */
    static const char text[] =
        "testcase_name,tensor_view_shapes,tensor_dtypes,"
        "tensor_storage_shapes,attributes\n"
        "g,\"(((2,3),(3,4)),(5,))\",\"(('int8','int32'),'float16')\",,"
        "\"{'s': 'a\"\"b', 'f': .5, 'x': +3, 'e': 1E3}\"\n"
        "\n"
        "g,\"((1,),)\",,,\n";
    kvg_ttk_csv *t = parse(text);
    kvg_ttk_row *r = (kvg_ttk_row *)malloc(sizeof *r);
    (void)state;
    assert_non_null(r);
    assert_int_equal(kvg_ttk_csv_count(t), 2);
    assert_int_equal(kvg_ttk_csv_find(t, "g", r), 1);
    assert_int_equal(r->line, 2);
    assert_int_equal(r->dup_line, 4);
    assert_int_equal(r->n, 3);
    assert_string_equal(r->slot[0].dtype, "int8");
    assert_string_equal(r->slot[1].dtype, "int32");
    assert_string_equal(r->slot[2].dtype, "float16");
    assert_int_equal(r->slot[1].shape[1], 4);
    assert_string_equal(r->value[0], "\"a\\\"b\"");
    assert_string_equal(r->value[1], "0.5");
    assert_string_equal(r->value[2], "3");
    assert_string_equal(r->value[3], "1e+03");
    /* ((7),(2,2)) is (7, (2, 2)): ops-test-kit refuses the 7 too */
    kvg_ttk_csv_free(t);
    refused("testcase_name,tensor_view_shapes\nb,\"((7),(2,2))\"\n",
            "t.csv: line 2, column 4 (tensor_view_shapes): an element is "
            "neither a shape nor None");
    t = parse("testcase_name,tensor_view_shapes,tensor_dtypes,"
              "tensor_storage_shapes\n"
              "b,\"((7,),(2,2))\",\"('bfloat16',)\",\"((7,),(4,))\"\n"
              "one,\"(6,1)\",'float32',\n");
    assert_int_equal(kvg_ttk_csv_find(t, "b", r), 1);
    assert_int_equal(r->n, 2);
    assert_string_equal(r->slot[0].dtype, "bfloat16");
    assert_string_equal(r->slot[1].dtype, "bfloat16");
    assert_int_equal(r->slot[1].srank, 1);
    assert_int_equal(r->slot[1].sshape[0], 4);
    assert_int_equal(kvg_ttk_csv_find(t, "one", r), 1);
    assert_int_equal(r->n, 1);
    assert_int_equal(r->slot[0].rank, 2);
    assert_string_equal(r->slot[0].dtype, "float32");
    free(r);
    kvg_ttk_csv_free(t);
}

static void test_problems_are_per_row(void **state)
{
    /* rows ops-test-kit reads but kvgold cannot use: said on the row */
    static const char text[] =
        "testcase_name,tensor_view_shapes,tensor_dtypes,attributes,"
        "output_tensor_indexes\n"
        "a,\"((1,2,3,4,5,6,7,8,9),)\",,,\n"
        "b,\"((1,),(2,))\",\"('a','b','c')\",,\n"
        "c,\"((1,),)\",,\"{'d': {'x': 1}}\",\n"
        "d,\"((1,),(2,))\",,,\"(1,)\"\n"
        "e,,,,\n";
    kvg_ttk_csv *t = parse(text);
    kvg_ttk_row *r = (kvg_ttk_row *)malloc(sizeof *r);
    (void)state;
    assert_non_null(r);
    assert_int_equal(kvg_ttk_csv_find(t, "a", r), 1);
    assert_non_null(strstr(r->problem, "more dimensions than kvgold takes"));
    assert_int_equal(kvg_ttk_csv_find(t, "b", r), 1);
    assert_non_null(strstr(r->problem, "3 dtypes for 2 tensors"));
    assert_int_equal(kvg_ttk_csv_find(t, "c", r), 1);
    assert_non_null(strstr(r->problem, "d: a value kvgold cannot take"));
    assert_int_equal(kvg_ttk_csv_find(t, "d", r), 1);
    assert_non_null(strstr(r->problem, "output_tensor_indexes"));
    assert_int_equal(kvg_ttk_csv_find(t, "e", r), 1);
    assert_non_null(strstr(r->problem, "tensor_view_shapes is empty"));
    free(r);
    kvg_ttk_csv_free(t);
}

static void test_refusals(void **state)
{
    (void)state;
    refused("", "t.csv: line 1 (header): no header");
    refused("\xEF\xBB\xBFtestcase_name,tensor_view_shapes\n",
            "t.csv: line 1, column 1 (csv): starts with a UTF-8 "
            "byte-order mark");
    refused("testcase_name,api_name\n", "no tensor_view_shapes column");
    refused("testcase_name,tensor_view_shapes,testcase_name\n",
            "t.csv: line 1, column 34 (header): column testcase_name "
            "given twice");
    refused("testcase_name,tensor_view_shapes\n,\"((1,),)\"\n",
            "t.csv: line 2 (testcase_name): empty");
    refused("testcase_name,tensor_view_shapes\na,\"((1,),)\n",
            "t.csv: line 2, column 3 (csv): a quoted field is not closed");
    refused("testcase_name,tensor_view_shapes\na,\"((1,),)\"x\n",
            "t.csv: line 2, column 12 (csv): text after a closing quote");
    {
        static const char nul[] = "testcase_name,tensor_view_shapes\na,b\0c\n";
        refused_n(nul, sizeof nul - 1,
                  "t.csv: line 2, column 4 (csv): a NUL byte");
    }
    /* a quoted cell over two lines: the fault's own line and column */
    refused("testcase_name,tensor_view_shapes\na,\"((1,),\n  (2,]\"\n",
            "t.csv: line 3, column 6 (tensor_view_shapes): not a value");
    refused("testcase_name,tensor_view_shapes\na,\"((007,),)\"\n",
            "column 6 (tensor_view_shapes): an integer with a leading zero");
    refused("testcase_name,tensor_view_shapes,attributes\n"
            "a,\"((1,),)\",\"{'x': 1e}\"\n",
            "column 21 (attributes): an exponent without digits");
    refused("testcase_name,tensor_view_shapes,attributes\n"
            "a,\"((1,),)\",\"{'x': 'y}\"\n",
            "(attributes): a string is not closed");
    refused("testcase_name,tensor_view_shapes,attributes\n"
            "a,\"((1,),)\",\"[1]\"\n",
            "t.csv: line 2, column 14 (attributes): not a dict");
    refused("testcase_name,tensor_view_shapes\n"
            "a,\"((1,),) (2,)\"\n",
            "column 12 (tensor_view_shapes): text after the value");
    refused("testcase_name,tensor_view_shapes\n"
            "a,\"(((((((((((((((((((((((((((((((((((1,)))))))))))))))))))))))"
            ")))))))))))))\"\n",
            "nested too deeply");
}

static void test_kernel_mode(void **state)
{
    /* ops-test-kit's kernel-mode CSV (examples/case_store/kernel/
     * mat_mul_v3.csv, concat_d.csv @3fec561a, add.csv @0719e69c): op_name,
     * input_shapes with None for an optional input left out, input_dtypes
     * one for all or one per input (TestcaseBase._normalize_field_by_dist
     * @202675b6: any other count is CASE_FIELD_AMBIGUOUS) */
    static const char text[] =
        "testcase_name,network_name,op_name,input_shapes,input_dtypes,"
        "input_formats,output_shapes,output_dtypes,output_formats,"
        "attributes,output_inplace_indexes\n"
        "mm,llama,mat_mul_v3,\"((512, 384), (384, 256), None, None)\","
        "\"('bfloat16', 'bfloat16', 'float32', None)\",\"('ND',)\","
        "\"((512, 256),)\",\"('bfloat16',)\",\"('ND',)\","
        "\"{'transpose_x1': False}\",()\n"
        "add,x,add,\"((969, 7188), (1,))\",\"('float16',)\",,,,,,\n"
        "cat,x,concat_d,\"(((29, 128), (754, 128)), (3,))\","
        "\"(('bfloat16',), 'int32')\",,,,,,\n"
        "amb,x,add,\"((1,), (2,), (3,))\",\"('float16', 'int32')\",,,,,,\n"
        "grp,x,add,\"((1,), (2,))\",\"(('float16', 'int32'),)\",,,,,,\n";
    kvg_ttk_csv *t = parse(text);
    kvg_ttk_row *r = (kvg_ttk_row *)malloc(sizeof *r);
    (void)state;
    assert_non_null(r);
    assert_int_equal(kvg_ttk_csv_find(t, "mm", r), 1);
    assert_string_equal(r->problem, "");
    assert_int_equal(r->kernel, 1);
    assert_string_equal(r->api, "mat_mul_v3");
    assert_int_equal(r->n, 4);
    assert_int_equal(r->slot[1].shape[0], 384);
    assert_int_equal(r->slot[2].none, 1);
    assert_int_equal(r->slot[3].none, 1);
    assert_string_equal(r->slot[0].dtype, "bfloat16");
    assert_string_equal(r->slot[3].dtype, "");
    assert_int_equal(r->n_inplace, -1);
    assert_int_equal(r->n_attrs, 1);
    assert_string_equal(r->key[0], "transpose_x1");
    assert_int_equal(kvg_ttk_csv_find(t, "add", r), 1);
    assert_string_equal(r->problem, "");
    assert_string_equal(r->slot[0].dtype, "float16");
    assert_string_equal(r->slot[1].dtype, "float16");
    assert_int_equal(kvg_ttk_csv_find(t, "cat", r), 1);
    assert_int_equal(r->n, 3);
    assert_string_equal(r->slot[0].dtype, "bfloat16");
    assert_string_equal(r->slot[1].dtype, "bfloat16");
    assert_string_equal(r->slot[2].dtype, "int32");
    assert_int_equal(kvg_ttk_csv_find(t, "amb", r), 1);
    assert_non_null(strstr(r->problem, "input_dtypes: 2 dtypes for 3 "
                                       "inputs"));
    assert_non_null(strstr(r->problem, "CASE_FIELD_AMBIGUOUS"));
    assert_int_equal(kvg_ttk_csv_find(t, "grp", r), 1);
    assert_non_null(strstr(r->problem, "input_dtypes: 1 dtypes for 2"));
    free(r);
    kvg_ttk_csv_free(t);
    refused("testcase_name,op_name\n", "no input_shapes column");
    refused("testcase_name,input_shapes,tensor_view_shapes\n",
            "both tensor_view_shapes (ops-test-kit's e2e CSV) and "
            "input_shapes");
    /* the e2e names mean nothing in a kernel-mode CSV: not read */
    t = parse("testcase_name,op_name,input_shapes,api_name,"
              "inplace_input_indexes\n"
              "k,concat_d,\"((1,),)\",torch.add,\"(0,)\"\n");
    r = (kvg_ttk_row *)malloc(sizeof *r);
    assert_non_null(r);
    assert_int_equal(kvg_ttk_csv_find(t, "k", r), 1);
    assert_string_equal(r->api, "concat_d"); /* op_name, not api_name */
    assert_int_equal(r->n_inplace, -1);
    free(r);
    kvg_ttk_csv_free(t);
}

static void test_inplace_input_indexes(void **state)
{
    /* ops-test-kit's int_container (field_parser.py @323ae6de): an empty
     * cell is (), an integer is (n,); _execute_eager appends the slots in
     * sorted() order */
    static const char text[] =
        "testcase_name,api_name,tensor_view_shapes,tensor_dtypes,"
        "inplace_input_indexes\n"
        "a,x,\"((1,),(2,),(3,))\",'float16',\"(2, 0)\"\n"
        "b,x,\"((1,),)\",'float16',3\n"
        "c,x,\"((1,),)\",'float16',\n"
        "d,x,\"((1,),)\",'float16',()\n"
        "e,x,\"((1,),)\",'float16',\"(None,)\"\n"
        "f,x,\"((1,),)\",'float16',\"(-1,)\"\n"
        "g,x,\"((1,),)\",'float16',\"[4, 4]\"\n";
    kvg_ttk_csv *t = parse(text);
    kvg_ttk_row *r = (kvg_ttk_row *)malloc(sizeof *r);
    (void)state;
    assert_non_null(r);
    assert_int_equal(kvg_ttk_csv_find(t, "a", r), 1);
    assert_int_equal(r->kernel, 0);
    assert_int_equal(r->n_inplace, 2);
    assert_int_equal(r->inplace[0], 0);
    assert_int_equal(r->inplace[1], 2);
    assert_int_equal(kvg_ttk_csv_find(t, "b", r), 1);
    assert_int_equal(r->n_inplace, 1);
    assert_int_equal(r->inplace[0], 3);
    assert_int_equal(kvg_ttk_csv_find(t, "c", r), 1);
    assert_int_equal(r->n_inplace, -1);
    assert_int_equal(kvg_ttk_csv_find(t, "d", r), 1);
    assert_int_equal(r->n_inplace, 0);
    assert_string_equal(r->problem, "");
    assert_int_equal(kvg_ttk_csv_find(t, "e", r), 1);
    assert_non_null(strstr(r->problem, "no slot index"));
    assert_int_equal(kvg_ttk_csv_find(t, "f", r), 1);
    assert_non_null(strstr(r->problem, "-1 is no input slot"));
    assert_int_equal(kvg_ttk_csv_find(t, "g", r), 1);
    assert_int_equal(r->n_inplace, 2);
    assert_int_equal(r->inplace[1], 4);
    free(r);
    kvg_ttk_csv_free(t);
    refused("testcase_name,tensor_view_shapes,inplace_input_indexes\n"
            "a,\"((1,),)\",'x'\n",
            "column 13 (inplace_input_indexes): not a tuple of slot "
            "indexes");
}

static void test_form_inplace(void **state)
{
    /* what each torch_npu API returns and writes in place (docs/<op>.md,
     * "In msprobe, ops-test-kit and scan"): ops-test-kit appends the
     * in-place slots to the returned list, which is [None] for None. The
     * rows are each operator's, tests/ops/<op>/ttk_inplace.inc, gathered
     * into ttk_inplace_rows.h by tests/CMakeLists.txt; every torch_npu
     * form of every binding must have one. */
    static const struct {
        const char *api;
        int returned, n, slot[3];
    } want[] = {
#include "ttk_inplace_rows.h"
    };
    const kvg_binding *const *b;
    size_t i, k, seen = 0;
    (void)state;
    for (b = kvg_bindings; *b != NULL; b++)
        for (i = 0; i < (*b)->n_calls; i++) {
            const kvg_binding_call *c = &(*b)->calls[i];
            int slot[KVG_SCAN_MAX_ARGS], returned = -1, n;
            if (c->kind != KVG_BINDING_TORCH_NPU)
                continue;
            for (k = 0; k < sizeof want / sizeof want[0]; k++)
                if (strcmp(want[k].api, c->api) == 0)
                    break;
            if (k == sizeof want / sizeof want[0])
                fail_msg("%s: not in this test's table", c->api);
            n = -1;
            assert_int_equal(kvg_ttk_form_inplace(c, slot, KVG_SCAN_MAX_ARGS,
                                                  &n, &returned, NULL),
                             KVG_OK);
            assert_int_equal(n, want[k].n);
            assert_int_equal(returned, want[k].returned);
            assert_memory_equal(slot, want[k].slot,
                                (size_t)n * sizeof slot[0]);
            seen++;
        }
    assert_int_equal(seen, sizeof want / sizeof want[0]);
}

/* ops-test-kit's dtype names (utilities/dtypes.py dtype_map): e8m0 is its
 * "float8_e8m0", both ways; fp4 has no name, since ops-test-kit's 4-bit
 * shapes count codes and kvgold's count bytes of two. */
static void test_ttk_dtype_names(void **state)
{
    (void)state;
    assert_string_equal(kvg_ttk_dtype_name(KVG_E8M0), "float8_e8m0");
    assert_int_equal(kvg_ttk_dtype_from_name("float8_e8m0"), KVG_E8M0);
    assert_string_equal(kvg_ttk_dtype_name(KVG_HIF8), "hifloat8");
    assert_null(kvg_ttk_dtype_name(KVG_FP4_E2M1));
    assert_null(kvg_ttk_dtype_name(KVG_FP4_E1M2));
    assert_int_equal(kvg_ttk_dtype_from_name("float4_e2m1"),
                     KVG_DTYPE_INVALID);
    assert_int_equal(kvg_ttk_dtype_from_name("float8_e8m0fnu"),
                     KVG_DTYPE_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slots_and_attrs),
        cmocka_unit_test(test_ttk_dtype_names),
        cmocka_unit_test(test_spreading),
        cmocka_unit_test(test_problems_are_per_row),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_kernel_mode),
        cmocka_unit_test(test_inplace_input_indexes),
        cmocka_unit_test(test_form_inplace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
