/*
 * tools/lib/bindings/kv_compress_epilog.c - how KvCompressEpilog is called:
 * five torch APIs of one name, one per implementation (`impl`), each
 * writing `cache` in place and returning nothing:
 *   torch.ops.npu.kv_compress_epilog (sgk: sgl-kernel-npu@064559ba
 *     csrc/pytorch_extensions.cpp:157-158, every argument required),
 *   torch.ops._C_ascend.kv_compress_epilog (va: vllm-ascend; its schema
 *     was not readable - the arguments are the meta function's
 *     (torch_binding_meta.cpp kv_compress_epilog_meta) and its callers'
 *     keywords (vllm_ascend/device/device_op.py), the same as sgk's),
 *   torch.ops.custom.kv_compress_epilog (cr: cann-recipes-infer@fbc225d
 *     ops/ascendc/torch_ops_extension/custom_ops/csrc/
 *     ops_def_registration.cpp:95-96),
 *   torch.ops.custom.kv_compress_epilog_v2 (cr_v2: cann-recipes-infer
 *     @5fda5b8b ops/ascendc/docs/custom-npu_kv_compress_epilog_v2.md:40,
 *     the schema as its page states it),
 *   cann_ops_transformer.kv_compress_epilog (ot: ops-transformer
 *     @25fb6b928 torch_extension/cann_ops_transformer/ops/
 *     kv_compress_epilog.py:55-58), and the same op under the spelling
 *     ops-test-kit's testcase CSVs and cann-recipes-infer's DeepSeek-V4
 *     use, torch.ops.cann_ops_transformer.kv_compress_epilog (the schema
 *     the package registers, ops/kv_compress_epilog.py:47-52, is the
 *     wrapper's signature: a second form, after ot's, which `kvgold
 *     prepare` therefore never picks).
 * The tensors are the same in all five, so a case's `impl` attribute
 * selects the form (binding.h, "attr=value" selectors); ot, the
 * operator's default implementation, comes last without one.
 * The kernels (CANN dumps, ops-test-kit aclnn cases): aclnnKvCompressEpilog
 * (op type KvCompressEpilog; ops-transformer@25fb6b928 attention/
 * kv_compress_epilog/op_host/kv_compress_epilog_def.cpp:24-48 and
 * op_api/aclnn_kv_compress_epilog.h: cacheRef, x, slotMapping,
 * quantGroupSize, quantMode 0..2, roundScale, xScale; output cache) and
 * aclnnKvCompressEpilogV2 (op type KvCompressEpilogV2, cann-recipes-infer
 * @5fda5b8b ops/ascendc/src/kv_compress_epilog_v2/op_host/
 * kv_compress_epilog_v2_def.cpp: the same inputs, quant_mode 2 / 4). The
 * op type KvCompressEpilog is not ot's alone: cann-recipes-infer's cr op
 * (its kv_compress_epilog_def.cpp: attrs quant_group_size, quant_mode,
 * round_scale as an int, scale) and the sgl-kernel-npu / vllm-ascend ops
 * (EXEC_NPU_CMD(aclnnKvCompressEpilog, ... layout, block stride)) are
 * registered under the same name, so a dump is taken as ot's only when
 * its attributes say so (x_scale, none of the others' scale / layout /
 * block_stride); else the implementation is the user's `--attr impl`.
 * Spellings: sgk / va / cr call round_scale `round_scale_flag`, cr calls
 * x_scale `scale`; ot and cr_v2 take quant_mode as a string ("fp8_bf16" 0,
 * "fp8_e8m0" 1, "hifloat8_fp4" 2; "mxfp8_bf16" 2, "mxfp4_bf16" 4), and a
 * case's quant_group_size 0 (the implementation's default) is written as
 * that default, since the kernels refuse 0 (sgk's MXFP8 wants 64 or 128).
 * What the frameworks set themselves: the impl each form implies (for a
 * dumped call); cr's torch defaults quant_mode 2 and
 * quant_group_size 64 (not the op's 1 and 128); cr_v2's layout from the
 * cache's rank (4-D: 2, as its paged cache); sgk / va pass the cache's
 * dim-0 stride as the block stride (a dense cache's is the natural one,
 * which kvgold's C operator accepts). docs/kv_compress_epilog.md,
 * "Python functions".
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "binding.h"

static const char *const k_in[] = {"cache", "x", "slot_mapping", NULL};
static const char *const k_out[] = {"cache", NULL};
static const char *const k_attrs_sgk[] = {
    "quant_group_size", "quant_mode", "round_scale", "layout", NULL};
static const char *const k_attrs_cr[] = {
    "quant_group_size", "quant_mode", "round_scale", "x_scale", NULL};
/* sgk and va: every argument positional in the schema, all named too */
static const char *const k_kw_sgk[] = {
    "kv_compress_cache", "cache",
    "quant_group_size",  "=quant_group_size",
    "quant_mode",        "=quant_mode",
    "round_scale_flag",  "=round_scale",
    "layout",            "=layout",
    NULL};
static const char *const k_kw_cr[] = {
    "kv_compress_cache", "cache",
    "quant_group_size",  "=quant_group_size",
    "quant_mode",        "=quant_mode",
    "round_scale_flag",  "=round_scale",
    "scale",             "=x_scale",
    NULL};
/* ot and cr_v2 name their cache `cache`, as kvgold does */
static const char *const k_kw_v2[] = {
    "quant_group_size", "=quant_group_size",
    "quant_mode",       "=quant_mode",
    "round_scale",      "=round_scale",
    "x_scale",          "=x_scale",
    NULL};
static const char *const k_values_sgk[] = {"quant_group_size", "0", "128",
                                           NULL};
static const char *const k_values_cr[] = {"quant_group_size", "0", "128",
                                          NULL};
static const char *const k_values_v2[] = {
    "quant_mode",       "2", "\"mxfp8_bf16\"",
    "quant_mode",       "4", "\"mxfp4_bf16\"",
    "quant_group_size", "0", "32",
    NULL};
static const char *const k_values_ot[] = {
    "quant_mode",       "0", "\"fp8_bf16\"",
    "quant_mode",       "1", "\"fp8_e8m0\"",
    "quant_mode",       "2", "\"hifloat8_fp4\"",
    "quant_group_size", "0", "64",
    NULL};

/* sgk: no x_scale; the block stride is the cache's own dim-0 stride */
static kvg_status check_sgk(const kvg_case *c, const kvg_binding_call *call,
                            kvg_diag *diag)
{
    KVG_TRY(kvg_binding_attr_fixed(c, call, "x_scale", 1.0, diag));
    return kvg_binding_attr_fixed(c, call, "block_stride", 0, diag);
}

/* va: no x_scale; its block_stride (which kvgold's operator reads for va)
 * is the cache's dim-0 stride, the natural value for a dense cache */
static kvg_status check_va(const kvg_case *c, const kvg_binding_call *call,
                           kvg_diag *diag)
{
    return kvg_binding_attr_fixed(c, call, "x_scale", 1.0, diag);
}

/* cr and ot: one row per slot, no layout or block stride argument */
static kvg_status check_rows(const kvg_case *c, const kvg_binding_call *call,
                             kvg_diag *diag)
{
    KVG_TRY(kvg_binding_attr_fixed(c, call, "layout", 1, diag));
    return kvg_binding_attr_fixed(c, call, "block_stride", 0, diag);
}

/* cr_v2's torch API passes no block stride (layout: the cache's rank) */
static kvg_status check_v2(const kvg_case *c, const kvg_binding_call *call,
                           kvg_diag *diag)
{
    return kvg_binding_attr_fixed(c, call, "block_stride", 0, diag);
}

/* ot comes last without a selector: a case of another implementation
 * than the five reaches it and is refused by name */
static kvg_status check_ot(const kvg_case *c, const kvg_binding_call *call,
                           kvg_diag *diag)
{
    char impl[16];

    KVG_TRY(kvg_case_get_string(c, c->attrs, "impl", "ot", impl,
                                sizeof impl, diag));
    if (strcmp(impl, "ot") != 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "impl", -1, -1,
                            "attrs.impl is \"%s\"; %s is impl \"ot\"", impl,
                            call->api);
    return check_rows(c, call, diag);
}

/* Every form but ot's implies its impl, which no framework passes: a
 * dumped call (`kvgold scan`) gets it from here. */
static const char *const k_framework_impl[] = {"impl", NULL};
static const char *const k_framework_cr[] = {"impl", "quant_mode",
                                             "quant_group_size", NULL};
static const char *const k_framework_v2[] = {"impl", "layout", NULL};

static const char *value_sgk(const kvg_call_given *g, const char *attr)
{
    (void)g;
    (void)attr;
    return "\"sgk\"";
}

static const char *value_va(const kvg_call_given *g, const char *attr)
{
    (void)g;
    (void)attr;
    return "\"va\"";
}

/* cr's torch defaults (ops_def_registration.cpp:95-96) */
static const char *value_cr(const kvg_call_given *g, const char *attr)
{
    (void)g;
    if (strcmp(attr, "impl") == 0)
        return "\"cr\"";
    return strcmp(attr, "quant_mode") == 0 ? "2" : "64";
}

/* cr_v2: a 4-D cache is its paged layout 2, a 2-D one layout 1 */
static const char *value_v2(const kvg_call_given *g, const char *attr)
{
    if (strcmp(attr, "impl") == 0)
        return "\"cr_v2\"";
    return g->rank(g->ctx, "cache") == 4 ? "2" : "1";
}

/* Op type KvCompressEpilog: ot's (ops-transformer) only when the dumped
 * attributes are ot's; the refusal below is the golden's message for a
 * dump of no attributes or another implementation's. */
static const char *const k_others[] = {"scale", "layout", "block_stride",
                                       NULL};
static const char *const k_framework_aclnn[] = {"impl", "x_scale", NULL};

static const char *value_aclnn(const kvg_call_given *g, const char *attr)
{
    size_t i;
    int other = 0;

    /* cr's op names x_scale `scale` */
    if (strcmp(attr, "x_scale") == 0)
        return kvg_given_param(g, "scale");
    for (i = 0; k_others[i] != NULL; i++)
        other |= kvg_given_param(g, k_others[i]) != NULL;
    if (kvg_given_param(g, "x_scale") != NULL && !other)
        return "\"ot\"";
    /* each within a case's 31-byte string */
    return other ? "\"cr/sgk/va, not ot? --attr impl\""
                 : "\"ot, cr, sgk or va? --attr impl\"";
}

static const char *const k_names_ot[] = {"KvCompressEpilog",
                                         "aclnnKvCompressEpilog", NULL};
static const char *const k_names_v2[] = {"KvCompressEpilogV2",
                                         "aclnnKvCompressEpilogV2", NULL};
/* the kernels take round_scale as a bool (ot, cr_v2) or an int (cr, sgk,
 * va: round_scale_flag ? 1 : 0) */
static const char *const k_values_kernel[] = {"round_scale", "true", "1",
                                              "round_scale", "false", "0",
                                              NULL};

static const kvg_binding_call k_calls[] = {
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "torch.ops.npu.kv_compress_epilog",
     .selector = "impl=sgk",
     .tensors = k_in,
     .attrs = k_attrs_sgk,
     .keywords = k_kw_sgk,
     .outputs = k_out,
     .note = "sgl-kernel-npu",
     .check = check_sgk,
     .framework_attrs = k_framework_impl,
     .framework_value = value_sgk,
     .values = k_values_sgk},
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "torch.ops._C_ascend.kv_compress_epilog",
     .selector = "impl=va",
     .tensors = k_in,
     .attrs = k_attrs_sgk,
     .keywords = k_kw_sgk,
     .outputs = k_out,
     .note = "vllm-ascend",
     .check = check_va,
     .framework_attrs = k_framework_impl,
     .framework_value = value_va,
     .values = k_values_sgk},
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "torch.ops.custom.kv_compress_epilog",
     .selector = "impl=cr",
     .tensors = k_in,
     .attrs = k_attrs_cr,
     .keywords = k_kw_cr,
     .outputs = k_out,
     .note = "cann-recipes-infer",
     .check = check_rows,
     .framework_attrs = k_framework_cr,
     .framework_value = value_cr,
     .values = k_values_cr},
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "torch.ops.custom.kv_compress_epilog_v2",
     .selector = "impl=cr_v2",
     .tensors = k_in,
     .attrs = k_attrs_cr,
     .keywords = k_kw_v2,
     .outputs = k_out,
     .note = "cann-recipes-infer v2",
     .check = check_v2,
     .framework_attrs = k_framework_v2,
     .framework_value = value_v2,
     .values = k_values_v2},
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "cann_ops_transformer.kv_compress_epilog",
     .tensors = k_in,
     .attrs = k_attrs_cr,
     .keywords = k_kw_v2,
     .outputs = k_out,
     .note = "ops-transformer (impl ot)",
     .check = check_ot,
     .values = k_values_ot},
    /* the same op as ops-test-kit's CSVs spell it (after ot's form, so
     * `kvgold prepare` writes the one above) */
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "torch.ops.cann_ops_transformer.kv_compress_epilog",
     .tensors = k_in,
     .attrs = k_attrs_cr,
     .keywords = k_kw_v2,
     .outputs = k_out,
     .note = "ops-transformer (impl ot), as torch.ops",
     .check = check_ot,
     .values = k_values_ot},
    {.kind = KVG_BINDING_ACLNN,
     .api = "aclnnKvCompressEpilogV2",
     .names = k_names_v2,
     .selector = "impl=cr_v2",
     .tensors = k_in,
     .attrs = k_attrs_cr,
     .outputs = k_out,
     .note = "cann-recipes-infer v2's kernel",
     .check = check_v2,
     .framework_attrs = k_framework_v2,
     .framework_value = value_v2,
     .values = k_values_kernel},
    {.kind = KVG_BINDING_ACLNN,
     .api = "aclnnKvCompressEpilog",
     .names = k_names_ot,
     .tensors = k_in,
     .attrs = k_attrs_cr,
     .outputs = k_out,
     .note = "ops-transformer's kernel (impl ot; the op type is shared)",
     .framework_attrs = k_framework_aclnn,
     .framework_value = value_aclnn,
     .values = k_values_kernel},
};

const kvg_binding kvg_binding_kv_compress_epilog = {
    "kv_compress_epilog", k_calls, sizeof k_calls / sizeof k_calls[0],
    KVG_BIN_SHAPES_NONE};
