/*
 * tools/lib/bindings/binding.h - how a framework calls an operator: one file
 * per operator, tools/lib/bindings/<op>.c, defining
 * `const kvg_binding kvg_binding_<op>` (found by tools/lib/bindings/bindings.cmake,
 * which generates the table `kvg_bindings`). The programs that translate
 * between a framework call and a kvgold case (`kvgold prepare`, and
 * `kvgold scan`'s argument maps) read the call forms from here, so that
 * they name no operator.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVG_TOOLS_BINDING_H
#define KVG_TOOLS_BINDING_H

#include <stddef.h>
#include <stdint.h>

#include "case.h"

/* Which framework a call form belongs to. */
typedef enum kvg_binding_kind {
    KVG_BINDING_TORCH_NPU, /* torch_npu (op-plugin), ops-test-kit's e2e;
                            * also another package's torch API
                            * (torch.ops.<namespace>.*) */
    KVG_BINDING_ACLNN,     /* aclnn / the kernel (CANN dumps, ttk aclnn) */
    KVG_BINDING_ATB        /* an ATB operation */
} kvg_binding_kind;

/* Which inputs a call gives, for a form's rules that depend on them (the
 * case's inputs for `kvgold prepare`, a dump's bound arguments for `kvgold
 * scan`): the rank of input `name`, or -1 if the call does not give it.
 * A dump also records what a case has no place for; a giver that has it
 * sets the optional members (NULL otherwise; read them through
 * kvg_given_param / kvg_given_nz): the text of the framework's parameter
 * `name` as the dump records it (ATB's "compressType"), or NULL; and
 * whether input `name` is stored FRACTAL_NZ. */
typedef struct kvg_call_given {
    int (*rank)(const void *ctx, const char *name);
    const void *ctx;
    const char *(*param)(const void *ctx, const char *name);
    int (*nz)(const void *ctx, const char *name);
    /* Set only while `kvgold scan` asks for an attribute the dump records
     * without its value (msprobe writes {} for a torch.dtype passed under
     * a keyword other than `dtype`): the dtype the dump records for the
     * call's output `name` (torch_npu allocates it from that very
     * argument), KVG_DTYPE_INVALID when it records none. */
    kvg_dtype (*out_dtype)(const void *ctx, const char *name);
} kvg_call_given;

/* g->param / g->nz / g->out_dtype, or NULL / 0 / KVG_DTYPE_INVALID when
 * the giver has no such record. */
const char *kvg_given_param(const kvg_call_given *g, const char *name);
int kvg_given_nz(const kvg_call_given *g, const char *name);
kvg_dtype kvg_given_out_dtype(const kvg_call_given *g, const char *name);

/* A rule that gives ops-test-kit's shapeless .bin inputs their shapes
 * (`kvgold scan` implements each; the binding names the one its argument
 * list follows). */
typedef enum kvg_bin_shapes {
    KVG_BIN_SHAPES_NONE = 0, /* only what the goldens' shapes determine */
    /* key, value, key_cache, value_cache, slot_mapping[, wins, seq_len[,
     * offset_index]]: key / value [tokens, N, D] from their ND cache, or N
     * per head from wins / seq_len; index tensors 1-D */
    KVG_BIN_SHAPES_PAGED = 1
} kvg_bin_shapes;

/* One call form of the operator. */
typedef struct kvg_binding_call {
    kvg_binding_kind kind;
    /* The API's full name as the framework spells it
     * ("torch_npu.npu_..."): ops-test-kit's api_name for TORCH_NPU. */
    const char *api;
    /* Other spellings of the call in dumps (the bare function name, the
     * kernel's, aclnn's, ATB's "...Operation"), NULL-terminated; may be
     * NULL. */
    const char *const *names;
    /* An input of the case that selects this form over the operator's
     * other forms of the same kind (tried in order), or "attr=value": a
     * case whose string attribute attr is value (kvg_binding_find); or
     * NULL. */
    const char *selector;
    /* The tensor arguments by kvgold name, in the API's signature order
     * (optional ones included), NULL-terminated. */
    const char *const *tensors;
    /* The non-tensor arguments (attributes) in signature order,
     * NULL-terminated; may be NULL. */
    const char *const *attrs;
    /* The positional arguments as a dump records them, by kvgold name,
     * "=attr" for an attribute, NULL-terminated; NULL: `tensors`. */
    const char *const *positional;
    /* Keyword arguments as pairs {framework keyword, kvgold name or
     * "=attr"}, NULL-terminated; may be NULL. The first pair naming a
     * kvgold input gives the API's own parameter name for it (its
     * schema's, which ops-test-kit and the Python functions use); later
     * pairs are other spellings dumps record. An input no pair names has
     * its kvgold name in the API too. */
    const char *const *keywords;
    /* What the call yields, by kvgold name: first what it returns, then
     * the tensors it updates in place (the caches), NULL-terminated. */
    const char *const *outputs;
    /* What a user should know of this form, for `kvgold prepare --help`
     * ("with its default parameters"); may be NULL. */
    const char *note;
    /* Anything the case must satisfy for this form to compute it, beyond
     * the argument names: KVG_OK if so; else KVG_ERR_PARAM_INVALID with
     * the reason in diag (the form cannot express the case), or the
     * case's own error for a malformed attribute. A library prints
     * nothing: the program says it. May be NULL. */
    kvg_status (*check)(const kvg_case *c,
                        const struct kvg_binding_call *call,
                        kvg_diag *diag);
    /* The attributes whose value the framework sets when a call of this
     * form does not (its own default for an argument it takes, e.g.
     * torch_npu's cache_mode "PA_NZ"; the value it always passes or the
     * hardware derives for one it does not take), NULL-terminated; may be
     * NULL. `kvgold scan` gives a dumped call these values. */
    const char *const *framework_attrs;
    /* The value, as JSON text, of framework attribute `attr` for a call
     * that gives the inputs `given`, or NULL when the framework sets
     * nothing for this call (the operator's default holds). Required with
     * framework_attrs. `kvgold scan` also asks it, with given->out_dtype
     * set, for a framework attribute the dump records without a value;
     * NULL there leaves the call NOT JUDGED. */
    const char *(*framework_value)(const kvg_call_given *given,
                                   const char *attr);
    /* Attribute values the framework spells differently from case.json,
     * as triples {attr, case.json value, the framework's value} of JSON
     * text, NULL-terminated; may be NULL. `kvgold prepare --csv` writes
     * the first framework value listed for a case value; `kvgold scan`
     * reads each framework value listed as its case value (torch_npu's
     * dst_type 1 and 258 are both "int8"). Values are matched as text. */
    const char *const *values;
} kvg_binding_call;

/* Every call form of one operator. */
typedef struct kvg_binding {
    const char *op; /* the registry's name */
    const kvg_binding_call *calls;
    size_t n_calls;
    kvg_bin_shapes bin_shapes; /* ops-test-kit's .bin inputs */
} kvg_binding;

/* The generated table of every tools/lib/bindings/<op>.c, NULL-terminated,
 * sorted by file name. */
extern const kvg_binding *const kvg_bindings[];

/*
 * A composite: an operator that no framework call is, but a chain of
 * framework calls computes (a Python function of several torch_npu ops
 * whose result one last call - the anchor - writes into the cache). A
 * dump holds the chain's calls one by one; `kvgold scan` judges the
 * anchor's post-call outputs against the operator run on the chain's
 * first inputs, so a fault in any step shows in the operator's output.
 * A binding file declares one as `const kvg_binding_composite
 * kvg_composite_<op>` (found by bindings.cmake, like the bindings).
 */
typedef struct kvg_binding_link {
    /* The call as a dump names it, compared as scan compares names
     * (case, '_' and a "npu" prefix aside): the kernel's op type
     * ("RmsNorm" is torch_npu's npu_rms_norm too). */
    const char *name;
    /* Its positional arguments onto the composite form's names (a
     * tensor, "=attr" for an attribute, "-" for one not used),
     * NULL-terminated. */
    const char *const *positional;
    /* Its keyword arguments, pairs {keyword, name}, NULL-terminated; may
     * be NULL. */
    const char *const *keywords;
    /* Its outputs onto the composite form's names ("-" unused),
     * NULL-terminated: the post-call tensors judged, each from the last
     * link of the chain that records it (a link after it in the chain
     * may write it again only if it names it too); one no link records
     * (an API returning None) is read back (docs/scan.md, "Read-back")
     * from the records after the anchor, the chain's last write. */
    const char *const *outputs;
    /* Which calls of `name` are this link: positional argument `key_arg`
     * is a tensor whose last dimension is `key_last` (npu_rms_norm of a
     * 512-wide latent, not of a query; 0: any) and that holds as many
     * rows (its elements over that dimension: one a token) as the
     * anchor's key (npu_interleave_rope of k_pe [T, 1, 1, 64], not of the
     * query's [T, heads, 1, 64]) - or, with key_lead > 0, whose first
     * key_lead dimensions are the anchor key's first key_lead (a quant's
     * x [T, N, D] and a scale write's value [T, N, D/64, 2] share [T, N]:
     * a link's key need not be row for row the anchor's). */
    int key_arg;
    int64_t key_last;
    /* Why a dump may lack the call and what to do (may be NULL). */
    const char *hint;
    /* 0, or the key_lead dimensions above */
    int key_lead;
    /* 0, or the rank the key must have */
    int key_rank;
    /* KVG_DTYPE_INVALID (0), or the dtype the key must have: a key of a
     * generic API (Tensor.__setitem__) is told from that API's other
     * calls by its dtype too, not by its shape alone */
    kvg_dtype key_dtype;
} kvg_binding_link;

typedef struct kvg_binding_composite {
    const char *op;   /* the registry name of the operator it computes */
    const char *name; /* the composite call's name in scan's report */
    /* the chain in call order; the last is the anchor */
    const kvg_binding_link *links;
    size_t n_links;
    /* how the composite call binds: `positional` the tensors and "=attr"
     * in the order the links' arguments are gathered, `outputs` the
     * anchor's, framework_attrs / framework_value the framework's
     * defaults of what a link leaves out */
    const kvg_binding_call *form;
    /* Pairs {tensor, like}, NULL-terminated, may be NULL: `tensor`
     * viewed with `like`'s dimensions but its last (the same elements:
     * a [T, 1] index viewed as the [T, 1, 1] of a [T, 1, 1, 512] input),
     * when the element counts agree. */
    const char *const *views;
    /* Pairs {tensor, dtype tag}, NULL-terminated, may be NULL: a gathered
     * tensor of one-byte codes taken as the same bytes of that one-byte
     * dtype (torch's view(dtype): the chain hands a link an int8 view of
     * an fp8 cache); a tensor of another size is left as it is (the
     * operator then refuses it, naming it). */
    const char *const *retype;
} kvg_binding_composite;

/* The generated table of every kvg_composite_<op>, NULL-terminated. */
extern const kvg_binding_composite *const kvg_composites[];

/* The first call form of `kind` for case `c`'s operator whose selector
 * (if any) is an input of `c` (or, "attr=value", an attribute of `c` so
 * given), or NULL. */
const kvg_binding_call *kvg_binding_find(const kvg_case *c,
                                         kvg_binding_kind kind);

/* The call form whose full API name is `api` ("torch_npu.npu_...",
 * ops-test-kit's api_name) in any operator's binding, that binding in
 * *owner (may be NULL); NULL if none. */
const kvg_binding_call *kvg_binding_call_named(const char *api,
                                               const kvg_binding **owner);

/* The framework's spelling (JSON text) of case value `json` of attribute
 * `attr` on `call`, or NULL when it spells it as case.json does. */
const char *kvg_binding_to_framework(const kvg_binding_call *call,
                                     const char *attr, const char *json);

/* The case.json value (JSON text) of the framework's value `json` of
 * attribute `attr` on `call`, or NULL when the two spell it alike. */
const char *kvg_binding_from_framework(const kvg_binding_call *call,
                                       const char *attr, const char *json);

/* 1 if `name` is in the NULL-terminated `list` (which may be NULL). */
int kvg_binding_has(const char *const *list, const char *name);

/* An attribute the form's API has no argument for (or fixes): case c
 * must leave it at `want` (its default) for `call` to compute it; else
 * 161002 naming the attribute, its value and the form. */
kvg_status kvg_binding_attr_fixed(const kvg_case *c,
                                  const kvg_binding_call *call,
                                  const char *attr, double want,
                                  kvg_diag *diag);

#endif
