/*
 * tools/lib/scan/scan.h - `kvgold scan`: find every call of a kvgold operator in
 * a dump that a framework wrote for a whole model step, map it onto the
 * operator, run the golden and judge the NPU's outputs with compare's
 * machinery (kvgold/compare.h), one verdict per call.
 *
 * Three layers:
 *   readers (read_<format>.c)  list the calls of a dump, header-first: the
 *                              operator name the dump gives, each argument
 *                              (a tensor's dtype, shape, storage format and
 *                              where its bytes are; a scalar; None), and
 *                              the post-call tensors. No tensor data is
 *                              read while listing.
 *   maps (ops/<op>.c)          per operator: the names it has in each
 *                              format and its argument order there
 *                              (torch_npu, ATB, aclnn / the kernel),
 *                              defaults, value spellings. Found by a glob:
 *                              adding an operator is one new file.
 *   the engine (scan.c)        per call: open the bound tensors (big
 *                              ones mapped where they lie in their
 *                              files), build the case (pre-call caches
 *                              from the inputs), run the golden on
 *                              copy-on-write mappings of them, judge each
 *                              output against the post-call dump.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_SCAN_H
#define KVGOLD_TOOLS_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/compare.h"
#include "kvgold/dtype.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"
#include "npy_map.h"

typedef enum kvg_scan_format {
    KVG_SCAN_AUTO = 0,
    KVG_SCAN_MSPROBE = 1,
    KVG_SCAN_ATB = 2,
    KVG_SCAN_CANN = 3,
    KVG_SCAN_TTK = 4
} kvg_scan_format;

#define KVG_SCAN_FORMATS 5
const char *kvg_scan_format_name(kvg_scan_format f);
int kvg_scan_format_from_name(const char *name, kvg_scan_format *f);

#define KVG_SCAN_MAX_ARGS 24
#define KVG_SCAN_NAME_MAX 64
#define KVG_SCAN_FILE_MAX 160
#define KVG_SCAN_DIR_MAX 1024
#define KVG_SCAN_VALUE_MAX 96
#define KVG_SCAN_REASON_MAX 480

typedef enum kvg_scan_arg_kind {
    KVG_SCAN_ABSENT = 0, /* not in the dump at all (a missing output) */
    KVG_SCAN_NONE = 1,   /* given as None (an optional tensor left out) */
    KVG_SCAN_TENSOR = 2,
    KVG_SCAN_SCALAR = 3  /* value: JSON text (1e-05, "PA_NZ", true, [1,2]) */
} kvg_scan_arg_kind;

/* The storage format a dump records for a tensor (ATB, CANN). */
typedef enum kvg_scan_layout {
    KVG_SCAN_LAYOUT_ND = 0,
    KVG_SCAN_LAYOUT_NZ = 1
} kvg_scan_layout;

/* One argument of a call, as the dump records it. */
typedef struct kvg_scan_arg {
    kvg_scan_arg_kind kind;
    char name[KVG_SCAN_NAME_MAX]; /* the dump's name for it ("" if none) */
    char value[KVG_SCAN_VALUE_MAX]; /* SCALAR */
    kvg_dtype dtype;
    int rank;
    int64_t shape[KVG_MAX_RANK];
    kvg_scan_layout layout;
    char file[KVG_SCAN_FILE_MAX]; /* relative to the call's dir */
    uint64_t offset;              /* of the first byte of the data */
    uint64_t nbytes;
    /* 1: the bytes were not read from `file` as the dtype (a .pt the
     * Python side converted), informational only */
    int converted;
    /* 1: a post-call cache read back from a later record's input
     * (readback.c); `name` is then "<record> input_args[i]" */
    int read_back;
    /* 1: an fp4 tensor whose file holds one code a byte (ops-test-kit's
     * .npy / .pt of a 4-bit array): nbytes counts the file's codes, the
     * shape is kvgold's pairs; kvg_scan_open hands back the codes packed
     * two a byte in a copy (kvg_scan_fp4_pack_codes) */
    int fp4_codes;
} kvg_scan_arg;

/* The `api` of an entry whose operator the reader cannot tell (a link
 * not followed, an unreadable dump.json, an ops-test-kit case its CSV
 * does not describe): it might be a kvgold operator's call, so it is
 * listed NOT JUDGED, never counted as another operator's. */
#define KVG_SCAN_API_UNKNOWN "?"

/* One call found in a dump. */
typedef struct kvg_scan_call {
    char id[2 * KVG_SCAN_NAME_MAX];  /* how the dump names it */
    char api[KVG_SCAN_NAME_MAX];     /* the dump's operator name */
    char dir[KVG_SCAN_DIR_MAX];      /* where its files are */
    kvg_scan_format format;
    int n_in, n_out;
    kvg_scan_arg in[KVG_SCAN_MAX_ARGS];
    kvg_scan_arg out[KVG_SCAN_MAX_ARGS];
    /* named parameters the dump records apart from the arguments (ATB's
     * op parameters, an msprobe call's keyword scalars) */
    int n_params;
    kvg_scan_arg params[KVG_SCAN_MAX_ARGS];
    /* how the format names its n-th output file (a printf pattern with
     * one %d), for the reason of a missing one */
    char out_pattern[KVG_SCAN_NAME_MAX];
    /* set by the reader when the call is there but cannot be read */
    char unreadable[KVG_SCAN_REASON_MAX];
    /* read-back (readback.c): the later records its in-place caches were
     * read back from ("key_cache read back from ID input_args[1]; ..."),
     * and why one the dump has no post-call copy of was not ("" if
     * none) */
    char read_back[KVG_SCAN_REASON_MAX];
    char read_back_why[KVG_COMPARE_REASON_MAX];
    /* set by the reader of a format that records a call's inputs after
     * the call ran (a static sentence saying so, with its source; NULL
     * when they are recorded before): an in-place cache's "pre-call"
     * contents then already hold the kernel's writes, so a stray write
     * outside the written elements cannot be seen and that cache's
     * untouched bytes are NOT JUDGED (docs/scan.md, "When each format
     * records a call's inputs") */
    const char *inputs_after;
} kvg_scan_call;

/* An input tensor of a record that is no listed call (another API's: the
 * attention that reads a cache), or a record that cannot be read, kept
 * by a reader for read-back (readback.c). Only the inputs whose dtype
 * and shape some listed call's input has are kept. */
typedef struct kvg_scan_later {
    size_t before; /* the listed calls read before it (it follows
                      calls[before - 1]) */
    char id[2 * KVG_SCAN_NAME_MAX];
    char dir[KVG_SCAN_DIR_MAX];
    kvg_scan_arg arg; /* arg.name: where in the record, "input_args[1]" */
    char unreadable[KVG_SCAN_REASON_MAX]; /* the record, or its file */
} kvg_scan_later;

/* A growing list of calls. A reader lists every entry of the dump that
 * names, or might be, a call of a kvgold operator - one it cannot read
 * too, with `unreadable` said - and counts the others: so the entries
 * it saw are count + others, and each listed one ends PASS, FAIL or NOT
 * JUDGED. */
typedef struct kvg_scan_list {
    kvg_scan_call *calls;
    size_t count, cap;
    size_t others; /* calls of other operators: counted, not listed */
    /* other records' inputs, in dump order, for read-back */
    kvg_scan_later *later;
    size_t n_later, cap_later;
    /* The user's --attr NAME=JSON (kvg_scan_opts' attrs), set before a
     * reader runs, for a record whose call form only an attribute tells
     * (kvg_scan_pick_form); 0 / NULL when none was given. */
    int n_attrs;
    const char *const *attrs;
} kvg_scan_list;

/* A fresh zeroed call at the end of the list; NULL (diag) on no memory. */
kvg_scan_call *kvg_scan_list_push(kvg_scan_list *l, kvg_diag *diag);
/* A fresh zeroed later record's input at the end of l->later, its
 * `before` set; NULL (diag) on no memory. */
kvg_scan_later *kvg_scan_list_later(kvg_scan_list *l, kvg_diag *diag);
void kvg_scan_list_free(kvg_scan_list *l);

/* ---- per-operator maps (ops/<op>.c) ---------------------------------- */

/*
 * One format's view of an operator, derived from the operator's call
 * binding (tools/lib/bindings/<op>.c): msprobe sees its torch_npu form
 * (or its ATB form when it has no torch_npu one), ATB dumps its ATB form,
 * CANN dumps and ops-test-kit its aclnn form (or ATB's). Its names there
 * and its positional arguments. Each entry of `inputs` / `outputs` is a kvgold tensor name
 * ("key_cache"), "=attr" for a positional scalar that is kvgold attribute
 * attr, or "-" for an argument kvgold has no use for; NULL-terminated.
 * An input given by name (msprobe keyword arguments) is matched by `kw`:
 * pairs {dump name, kvgold entry} NULL-terminated, may be NULL.
 */
typedef struct kvg_scan_sig {
    kvg_scan_format format;
    const struct kvg_binding_call *form; /* the call form it follows */
    const char *const *names;
    const char *const *inputs;
    const char *const *outputs;
    const char *const *kw;
} kvg_scan_sig;

/* What the engine builds for one call: kvgold's tensors by name, each an
 * argument of the call, and its attributes as JSON text. */
typedef struct kvg_scan_bound {
    int n;
    const char *name[KVG_SCAN_MAX_ARGS];
    const kvg_scan_arg *pre[KVG_SCAN_MAX_ARGS];  /* input / pre-call */
    const kvg_scan_arg *post[KVG_SCAN_MAX_ARGS]; /* post-call, or NULL */
    char post_where[KVG_SCAN_MAX_ARGS][KVG_SCAN_NAME_MAX]; /* its dump name */
    int n_attrs;
    char attr[KVG_SCAN_MAX_ARGS][KVG_SCAN_NAME_MAX];
    char value[KVG_SCAN_MAX_ARGS][KVG_SCAN_VALUE_MAX]; /* JSON text */
} kvg_scan_bound;

struct kvg_binding;

/* An operator as scan sees it: its call forms (kvg_binding_<op>), whose
 * `op` is the registry's name. Everything particular to an operator
 * (framework values a dump implies, the .bin shape rule its argument list
 * follows) is in its binding. */
typedef struct kvg_scan_opmap {
    const struct kvg_binding *binding;
} kvg_scan_opmap;

/* Call c onto its operator's signature: inputs, outputs, parameters,
 * then the framework's own values (scan.c). KVG_OK, or why not. */
kvg_status kvg_scan_bind(const kvg_scan_call *c, const kvg_scan_opmap *m,
                         const kvg_scan_sig *s, kvg_scan_bound *b,
                         kvg_diag *diag);

/* Set attribute `attr` (JSON text); get it; the bound tensor's argument
 * by kvgold name (NULL if not bound); the parameter of the call named
 * `name`. */
kvg_status kvg_scan_set_attr(kvg_scan_bound *b, const char *attr,
                             const char *json, kvg_diag *diag);
const char *kvg_scan_get_attr(const kvg_scan_bound *b, const char *attr);
const kvg_scan_arg *kvg_scan_bound_pre(const kvg_scan_bound *b,
                                       const char *name);
const kvg_scan_arg *kvg_scan_param(const kvg_scan_call *c, const char *name);

/* binding.h's KVG_BIN_SHAPES_PAGED: set the rank and shape of each .bin
 * input (in the TTK signature's order) that the goldens' shapes and the
 * inputs' byte sizes (`nbytes`, the file's) determine; unknown ones keep
 * rank -1 (paged_bin_shapes.c). */
void kvg_scan_paged_bin_shapes(kvg_scan_call *c);

/* The maps (generated table of every ops/<op>.c). */
extern const kvg_scan_opmap *const kvg_scan_opmaps[];

/* The map and signature of a call's operator name in its format (case
 * insensitive; ATB's "...Operation" suffix and a "Npu"/"npu_" prefix
 * are ignored), or NULL. */
const kvg_scan_opmap *kvg_scan_find(const char *api, kvg_scan_format f,
                                    kvg_scan_sig *sig);

/* The operator's registry name. */
const char *kvg_scan_op(const kvg_scan_opmap *m);

/* 1 if dump names a and b name one call (as kvg_scan_find compares:
 * case, '_' and a "npu" prefix aside). */
int kvg_scan_same_name(const char *a, const char *b);

/* 1 if `api` names a call of some composite's chain (binding.h's
 * kvg_binding_composite): a reader lists it, read, for
 * kvg_scan_compose, though it is no kvgold operator's call. */
int kvg_scan_is_link(const char *api);

/* 1 if call c is a link of some composite's chain: its name is the
 * link's and its key argument a tensor of the link's last dimension. */
int kvg_scan_link_keyed(const kvg_scan_call *c);

/* After a reader: each anchor call of a composite (the chain's last
 * call, keyed) becomes the composite's call - its arguments gathered
 * from the chain's calls before it in the same directory (one step of
 * one rank), since the composite's previous anchor there; its outputs
 * the anchor's - or, when a link is missing, ambiguous or unreadable,
 * that call unreadable naming the link (NOT JUDGED). The other links
 * stay listed, counted as other operators' calls. KVG_ERR_NOMEM only. */
kvg_status kvg_scan_compose(kvg_scan_list *l, kvg_diag *diag);

/* After a reader (and kvg_scan_compose): each call whose in-place cache
 * the dump has no post-call copy of (an msprobe record of an API that
 * returns None) takes it from a later record's input in the same
 * directory, by docs/scan.md's link rules ("Read-back"): out[n] that
 * input with read_back set, the link said in read_back; or why not in
 * read_back_why. Never fails. */
void kvg_scan_read_back(kvg_scan_list *l);

/* 1 if an input of dtype b may be read back as a cache of dtype a: the
 * same dtype, or both one-byte codes (a view of the same bytes;
 * docs/scan.md, "Read-back", rule 3). */
int kvg_scan_same_cache_dtype(kvg_dtype a, kvg_dtype b);

/* 1 if input b may be one cache with a tensor of dtype, rank and shape
 * (rule 3): the same shape, dtypes as kvg_scan_same_cache_dtype. */
int kvg_scan_same_geometry(kvg_dtype dtype, int rank, const int64_t *shape,
                           const kvg_scan_arg *b);

/* The call form whose API is `api` (ops-test-kit's api_name) in any
 * operator's binding, and that operator's map in *m; NULL if none. */
/* The operator that name `api` names in a dump (its registry name, or
 * the last component of a call form's API: what msprobe keeps of it),
 * or NULL. For an entry no form of its format is picked for: listed NOT
 * JUDGED, never counted as another operator's. */
const char *kvg_scan_op_of_name(const char *api);

/* The torch API call form that an msprobe record `qualified`
 * ("<api prefix>.<name>": the key without ".<n>.forward") is, where its
 * name alone picks none (several forms of one operator share it, told
 * apart by the namespace msprobe may or may not keep): in order,
 *   1. the form whose API is <prefix>.<name> ("torch.ops." aside on both
 *      sides: register_custom_api's default prefix is the module's
 *      __name__, "torch.ops.custom");
 *   2. the form the user's --attr picks (`attrs`, "NAME=JSON"): the one
 *      whose selector is NAME=value, or the selector-less one when JSON is
 *      NAME's default (binding.h: "attr=value" selectors);
 *   3. the only form of that name (or forms of one selector), unless the
 *      prefix is another form's namespace (an op kvgold does not know
 *      there).
 * Only forms told apart by an attribute ("attr=value" selectors) are
 * picked. 1 with *form set; 0 when no such torch API form of any
 * operator has that name; -1 when the operator is known but no form is picked (or 1 and 2
 * disagree): `why` says so and lists the --attr choices. */
int kvg_scan_pick_form(const char *qualified, const char *const *attrs,
                       int n_attrs, const struct kvg_binding_call **form,
                       char *why, size_t cap);

const struct kvg_binding_call *kvg_scan_form_named(const char *api,
                                                   const kvg_scan_opmap **m);

/* 1 if call c is a torch_npu call (an msprobe record, or an ops-test-kit
 * case whose API, its CSV's api_name, is a torch_npu call form of the
 * operator's binding): the maps apply torch_npu's own defaults then. */
int kvg_scan_is_torch_npu(const kvg_scan_call *c);

/* ---- readers --------------------------------------------------------- */

/* List every call under `path` (one reader). KVG_OK, or (unreadable
 * input) KVG_ERR_IO / KVG_ERR_FILE_FORMAT with the file and field said.
 * A call the reader can name but not read is listed with `unreadable`. */
kvg_status kvg_scan_read_atb(const char *path, kvg_scan_list *l,
                             kvg_diag *diag);
kvg_status kvg_scan_read_ttk(const char *path, kvg_scan_list *l,
                             kvg_diag *diag);
/* ops-test-kit directories with its testcase CSV `csv` (NULL: none): the
 * row whose testcase_name is a case directory's name gives that call's
 * API, input shapes and dtypes and attributes (tools/lib/scan/ttk_csv.h).
 * A malformed CSV is KVG_ERR_FILE_FORMAT naming its line and column. */
kvg_status kvg_scan_read_ttk_csv(const char *path, const char *csv,
                                 kvg_scan_list *l, kvg_diag *diag);
kvg_status kvg_scan_read_cann(const char *path, kvg_scan_list *l,
                              kvg_diag *diag);
kvg_status kvg_scan_read_msprobe(const char *path, kvg_scan_list *l,
                                 kvg_diag *diag);
/* Which format `path` looks like; KVG_SCAN_AUTO when none. */
kvg_scan_format kvg_scan_detect(const char *path);
kvg_status kvg_scan_read(const char *path, kvg_scan_format f,
                         kvg_scan_list *l, kvg_diag *diag);

/* In-memory parsers the readers use (and the fuzz targets call). */
/* An ATB tensor .bin header ("key=value\n" lines up to "$End=1\n"):
 * fills dtype, rank, shape, layout, offset, nbytes of `a` (data size
 * checked against `size`, the file's). */
kvg_status kvg_scan_atb_header(const unsigned char *buf, size_t len,
                               uint64_t size, const char *file,
                               kvg_scan_arg *a, kvg_diag *diag);
/* A CANN dump file's header: the 8-byte length and the DumpData message
 * in buf; the inputs and outputs it describes become c->in / c->out
 * (offsets into the file, checked against `size`). */
kvg_status kvg_scan_cann_header(const unsigned char *buf, size_t len,
                                uint64_t size, const char *file,
                                kvg_scan_call *c, kvg_diag *diag);
/* The "data" members of an msprobe dump.json held in memory, as calls
 * (their files read only when read_files). */
kvg_status kvg_scan_msprobe_text(const char *text, size_t len,
                                 const char *dir, const char *rel,
                                 int read_files, kvg_scan_list *l,
                                 kvg_diag *diag);
/* An ops-test-kit file name: input_<i>_<dtype>[__shape_<AxB>].bin,
 * golden_/output_ likewise, or a *_none marker. Returns 1 and fills
 * *role ('i', 'g', 'o'), *index and `a` when it is one; 0 otherwise. */
int kvg_scan_ttk_name(const char *name, char *role, int *index,
                      kvg_scan_arg *a);

/* ---- the engine -------------------------------------------------------- */

typedef struct kvg_scan_opts {
    const char *op;       /* --op: only this kvgold operator, or NULL */
    kvg_compare_standard standard;
    int want_text, want_json;
    const char *html_dir; /* per-call cache-map pages go here, or NULL */
    /* --attr NAME=JSON: attributes (and kvgold options) a dump does not
     * record, for every call whose operator has NAME; they override what
     * the dump says */
    int n_attrs;
    const char *attrs[KVG_SCAN_MAX_ARGS];
} kvg_scan_opts;

/* One call's verdict. text / json: compare's report of its tensors
 * (malloc'd, NULL when not judged); page: the file name of its HTML
 * page under html_dir, "" if none. */
typedef struct kvg_scan_result {
    kvg_verdict verdict;
    char op[KVG_SCAN_NAME_MAX];       /* kvgold operator, "" if unmapped */
    char reason[KVG_SCAN_REASON_MAX]; /* why not judged / what failed */
    int n_tensors, n_failed, n_not_judged;
    char *text, *json;
    char page[KVG_SCAN_NAME_MAX];
} kvg_scan_result;

/* Judge call `c` (the i-th of the dump). Never fails: anything that
 * stops a verdict is NOT_JUDGED with the reason. */
void kvg_scan_judge(const kvg_scan_call *c, size_t i,
                    const kvg_scan_opts *o, kvg_scan_result *r);
void kvg_scan_result_free(kvg_scan_result *r);

/* 1 if call c is of a kvgold operator (and of --op when given), or an
 * entry of KVG_SCAN_API_UNKNOWN operator (it might be one). */
int kvg_scan_selected(const kvg_scan_call *c, const kvg_scan_opts *o);

/* An --attr NAME=JSON argument: KVG_OK if NAME is an attribute or option
 * of operator `op` (NULL: of any kvgold operator) and JSON is one JSON
 * value; else KVG_ERR_PARAM_INVALID, the diag saying why (a misspelt name
 * or a value that is not JSON is a usage error, never ignored). */
kvg_status kvg_scan_attr_check(const char *arg, const char *op,
                               kvg_diag *diag);

/*
 * The dumped files of one call being judged. A file of which the call uses
 * KVG_TENSOR_MAP_MIN bytes or more (a big cache; a CANN dump file holding
 * all of the call's tensors) is mapped once, whole and read-only
 * (npy_map.h: counted for nothing in the memory ledger), and every tensor
 * of it is a view into that mapping, whatever its offset or alignment;
 * the tensors of the other files are read into memory reserved in the
 * ledger.
 */
#define KVG_SCAN_MAX_FILES (2 * KVG_SCAN_MAX_ARGS)
typedef struct kvg_scan_files {
    int n;
    char file[KVG_SCAN_MAX_FILES][KVG_SCAN_FILE_MAX];
    uint64_t used[KVG_SCAN_MAX_FILES]; /* the call's bytes in it */
    kvg_file_map map[KVG_SCAN_MAX_FILES];
} kvg_scan_files;

/* Which files of call c are to be mapped (nothing is opened yet). */
void kvg_scan_files_plan(kvg_scan_files *f, const kvg_scan_call *c);
/* Unmap them, after every view of them is closed. */
void kvg_scan_files_close(kvg_scan_files *f);

/* Argument a of call c as a tensor of its dtype and shape: a view into
 * its file's mapping (*map a borrowed copy of it), or read. KVG_OK, or a
 * status with the diag saying why (the call's reason for NOT JUDGED).
 * Release with kvg_scan_close. */
kvg_status kvg_scan_open(const kvg_scan_call *c, kvg_scan_files *f,
                         const kvg_scan_arg *a, kvg_tensor *out,
                         kvg_file_map *map, kvg_diag *diag);
void kvg_scan_close(kvg_tensor *t, kvg_file_map *map);

#endif /* KVGOLD_TOOLS_SCAN_H */
