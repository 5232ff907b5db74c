/*
 * src/compare/compare_internal.h - what the files of the comparison share
 * (kvgold/compare.h is the contract). One concern per file:
 *
 *   names.c         names, the AUTO table, defaults, args_init
 *   standards.c     the threshold tables of every standard, with sources
 *   element.c       decoding an element, value-line ranks, ULP error
 *   bytes.c         bulk byte comparison of element runs
 *   validate.c      argument checks (nothing is written before they pass)
 *   worst.c         coordinates and the worst-element list
 *   measure.c       per-element statistics
 *   verdict.c       limits -> verdict and reason, per standard
 *   ttk.c           the verdict ops-test-kit's default would give
 *   compare.c       kvg_compare_tensor, the not-judged result
 *   written_mask.c  kvg_compare_written_mask
 *   written_runs.c  the written set as runs (args.written_runs)
 *   runs.c          kvg_compare_runs (bit-identity of repeated runs)
 *   summary.c       totals over a case
 *   report.c        text and JSON
 *   unit_text.c     e8m0 scales and packed fp4 codes in the reports
 *   rows_check.c    packed rows: the layout against the tensor and mask
 *   rows.c          packed rows: judging field by field (args.row_layout)
 *   rows_text.c     packed rows: the named places of the reports
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_COMPARE_INTERNAL_H
#define KVGOLD_SRC_COMPARE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/compare.h"

/* CANN's relative-error floor: rel = |a - g| / (|g| + 1e-7). */
#define KVG_I_REL_FLOOR 1e-7

/* ---- element.c ---------------------------------------------------------- */

enum { KVG_I_CLS_FINITE = 0, KVG_I_CLS_NAN = 1, KVG_I_CLS_INF = 2 };

typedef struct kvg_i_elem {
    double v;      /* widened value */
    uint64_t bits; /* raw code */
    int64_t iv;    /* integer dtypes: the exact value */
    int cls;
} kvg_i_elem;

int kvg_i_cmp_is_int(kvg_dtype dt);
/* The dtypes code_dist can judge: fp8, hif8 and fp4_e2m1. */
int kvg_i_cmp_is_code(kvg_dtype dt);
/* Codes ranked on a value line: the code_dist ones and e8m0 (binades). */
int kvg_i_cmp_has_ranks(kvg_dtype dt);
/* 2 for the packed fp4 dtypes (one byte holds two codes), else 1. */
int kvg_i_cmp_codes_per_element(kvg_dtype dt);
/* 0 where MERE, MARE, cosine... of the values mean nothing (e8m0) or
 * there are no values (fp4_e1m2): kvg_compare_result.values_not_applicable. */
int kvg_i_cmp_values_apply(kvg_dtype dt);
uint64_t kvg_i_cmp_raw_bits(const unsigned char *p, size_t size);
/* Decode one element; dt must be valid (checked by the caller). */
void kvg_i_cmp_load(kvg_dtype dt, size_t size, const unsigned char *p,
                    kvg_i_elem *e);
/* Decode unit `index` of `base`: element `index`, or for packed fp4 the
 * 4-bit code `index` (nibble index & 1 of byte index / 2). */
void kvg_i_cmp_load_at(kvg_dtype dt, size_t esize, const unsigned char *base,
                       int64_t index, kvg_i_elem *e);
/* Rank of every code of an 8-bit float format on its value line. */
void kvg_i_cmp_build_ranks(kvg_dtype dt, int rank[256]);
/* |got - want| of integer elements, exactly; *negative = got < want. */
uint64_t kvg_i_cmp_int_delta(const kvg_i_elem *want, const kvg_i_elem *got,
                             int *negative);
/* |a - g| in units of the ULP at g, for fp16, bf16 and fp32 (exact:
 * a power-of-two scaling of an exact difference). */
double kvg_i_cmp_ulp_error(kvg_dtype dt, double g, double abs_diff);

/* ---- bytes.c ------------------------------------------------------------ */

/* The first element index in [from, to) whose `esize` bytes differ between
 * a and b, or `to` if none: whole runs are compared with memcmp in blocks,
 * element by element only inside a block that differs. */
int64_t kvg_i_cmp_first_diff(const unsigned char *a, const unsigned char *b,
                             size_t esize, int64_t from, int64_t to);

/* ---- standards.c -------------------------------------------------------- */

typedef struct kvg_i_mixed_table {
    double rtol, atol, max_abs_limit; /* 0 = no entry for the dtype */
} kvg_i_mixed_table;

typedef struct kvg_i_small_table {
    double small_value, small_error; /* 0 = no entry */
} kvg_i_small_table;

#define KVG_I_MIXED_RATIO 0.99 /* required matched ratio (both sources) */
#define KVG_I_MIXED_CAP_ULPS 32.0
#define KVG_I_SMALL_ERR_RATIO 2.0

kvg_i_mixed_table kvg_i_cmp_mixed_table(kvg_compare_standard s,
                                        kvg_dtype dt);
kvg_i_small_table kvg_i_cmp_small_table(kvg_dtype dt);
/* The level's MARE / MERE / RMSE ratio limits; 0 on an invalid level. */
int kvg_i_cmp_level_limits(kvg_compare_level level, double *mare,
                           double *mere, double *rmse);
/* ULP count threshold of the ULP statistics (msprobe). */
double kvg_i_cmp_ulp_threshold(kvg_dtype dt);
/* Static text: the document and commit a standard's numbers come from. */
const char *kvg_i_cmp_standard_source(kvg_compare_standard s,
                                      kvg_compare_criterion crit);
/* Static text: the rule applied (kvg_compare_result.standard). */
const char *kvg_i_cmp_rule_text(kvg_compare_standard s,
                                kvg_compare_criterion crit);

/* ---- validate.c --------------------------------------------------------- */

typedef struct kvg_i_labels {
    char golden[KVG_DIAG_NAME_MAX], actual[KVG_DIAG_NAME_MAX];
    char initial[KVG_DIAG_NAME_MAX], written[KVG_DIAG_NAME_MAX];
    char layout[KVG_DIAG_NAME_MAX], args[KVG_DIAG_NAME_MAX];
    char third_party[KVG_DIAG_NAME_MAX];
} kvg_i_labels;

void kvg_i_cmp_make_labels(const char *name, kvg_i_labels *l);
kvg_status kvg_i_cmp_check_view(const kvg_tensor *t, const char *label,
                                int64_t *numel, kvg_diag *diag);
kvg_status kvg_i_cmp_check_like(const kvg_tensor *t, const char *label,
                                const kvg_tensor *golden, kvg_diag *diag);
kvg_status kvg_i_cmp_validate(const kvg_compare_args *a,
                              const kvg_i_labels *l, int64_t *numel,
                              kvg_compare_criterion *crit, kvg_diag *diag);

/* ---- the comparison context (measure.c, worst.c, verdict.c) ------------- */

typedef struct kvg_i_cmp_ctx {
    const kvg_compare_args *a;
    kvg_compare_result *r;
    kvg_dtype dt;
    size_t esize;
    int64_t numel;   /* elements (bytes of a packed fp4 tensor) */
    int per;         /* units per element: 2 codes for packed fp4, else 1 */
    const unsigned char *g, *x, *init, *tp; /* golden, actual, initial,
                                               third party bytes */
    int rank[256];
    /* binary64 accumulators, in element order */
    double sum_rel, sum_sq, dot, norm_a, norm_g, sum_ulp;
    double n_sum_rel, n_sum_sq, tp_sum_rel, tp_sum_sq; /* normal range */
    int64_t first_nonfinite, first_over_cap;
    /* special values by ops-test-kit cross_check's rule (third party) */
    int cross_check;
    /* ops-test-kit's own verdict: its rule and float32 tolerances */
    int ttk_rule;
    float ttk_rtol, ttk_atol, ttk_max_err;
} kvg_i_cmp_ctx;

/* ---- ttk.c: the verdict ops-test-kit's default would give --------------- */

enum { KVG_I_TTK_MIX = 0, KVG_I_TTK_REQUANT = 1, KVG_I_TTK_BINARY = 2 };

#define KVG_I_TTK_SOURCE                                                     \
    "hicann/ops-test-kit ttk/core_modules/comparison/{resolve,"              \
    "mix_tolerance,re_quantize,binary_equal}.py @3675093"


/* Pick the rule by dtype and set the ttk_* fields to their start. */
void kvg_i_cmp_ttk_init(kvg_i_cmp_ctx *c);
/* One element (written, or untouched and changed) against the golden's. */
void kvg_i_cmp_ttk_element(kvg_i_cmp_ctx *c, const kvg_i_elem *want,
                           const kvg_i_elem *got);
/* Count the untouched elements that did not change, then the verdict. */
void kvg_i_cmp_ttk_finish(kvg_i_cmp_ctx *c);

void kvg_i_cmp_fill_element(const kvg_i_cmp_ctx *c, int64_t index,
                            const kvg_i_elem *want, const kvg_i_elem *got,
                            double abs_err, double rel_err, double score,
                            kvg_compare_element *e);
void kvg_i_cmp_offer_worst(kvg_i_cmp_ctx *c, int64_t index,
                           const kvg_i_elem *want, const kvg_i_elem *got,
                           double abs_err, double rel_err, double score);

/* Elements [from, to) are untouched (mask 0): counted, and the changed
 * ones (codes, for packed fp4) listed. */
void kvg_i_cmp_measure_untouched(kvg_i_cmp_ctx *c, int64_t from, int64_t to);
/* Element i is written: each of its units (two codes for packed fp4) is
 * measured against the golden's. */
void kvg_i_cmp_measure_written(kvg_i_cmp_ctx *c, int64_t i);

/* ---- written_runs.c: the written set as runs (args.written_runs) ------- */

/* Runs sorted, disjoint, inside the tensor, not with a mask; with
 * `initial`, the golden equals it outside the runs. */
kvg_status kvg_i_cmp_check_runs(const kvg_compare_args *a, int64_t numel,
                                size_t esize, const kvg_i_labels *l,
                                kvg_diag *diag);
/* Measure every element in index order: gaps in bulk as untouched, runs
 * element by element as written. */
void kvg_i_cmp_measure_runs(kvg_i_cmp_ctx *c);

/* ---- unit_text.c: e8m0 scales and packed fp4 codes in the reports ----- */

/* A raw code as the reports print it: "0x5" for an fp4 code, else as many
 * hex digits as the element has bytes. */
void kvg_i_cmp_code_text(kvg_dtype dt, uint64_t bits, char *out, size_t cap);
/* "2^-7", or "NaN" for 0xFF; snprintf's return. */
int kvg_i_cmp_e8m0_text(uint64_t bits, char *out, size_t cap);
/* |actual - golden| in binades; -1 when either is NaN. */
int64_t kvg_i_cmp_e8m0_binades(uint64_t golden_bits, uint64_t actual_bits);
/* "2^-7 (0x78) vs golden 2^-6 (0x79): 1 binade" */
void kvg_i_cmp_e8m0_pair_text(const kvg_compare_element *e, char *out,
                              size_t cap);
/* "13 (byte 6 hi)" for a packed fp4 code, else the index. */
void kvg_i_cmp_index_text(kvg_dtype dt, int64_t index, char *out, size_t cap);
/* Static text: "measured", or why the value statistics do not apply. */
const char *kvg_i_cmp_values_note(kvg_dtype dt);

/* Means, ratios and the verdict with its reason. */
void kvg_i_cmp_finish(kvg_i_cmp_ctx *c);

/* ---- report.c ----------------------------------------------------------- */

/* printf's decimal point as '.', whatever the C locale (report.c says
 * how). */
void kvg_i_cmp_fix_point(char *s);

/* ---- rows_check.c, rows.c, rows_text.c: packed rows ---------------------- */

/* Bytes [from, to) of the tensor the written set marks (no mask or runs:
 * all of them). */
int64_t kvg_i_rows_marked(const kvg_compare_args *a, int64_t from,
                          int64_t to);
/* The first segment of layout `l` living in tensor `tensor` (-1: none;
 * a checked layout has one in each tensor). */
int kvg_i_rows_first_segment(const kvg_row_layout *l, int tensor);
/* Whether slot `slot` of args.row_layout is written in the tensor judged
 * (args.row_tensor; validated: its
 * segment bytes are marked all or none). */
int kvg_i_rows_slot_written(const kvg_compare_args *a, int64_t slot);
/* Everything args.row_layout needs of the tensor, the args and the mask,
 * before a byte of the result is written. */
kvg_status kvg_i_rows_check(const kvg_compare_args *a, int64_t numel,
                            const kvg_i_labels *l, kvg_diag *diag);
/* The criterion a PAYLOAD segment of `dt` is judged by (rows.c). */
kvg_compare_criterion kvg_i_rows_payload_criterion(const kvg_compare_args *a,
                                                   kvg_dtype dt);
/* Judge the tensor field by field after the byte pass: fills
 * result->rows and replaces the verdict and reason with the rows'. */
void kvg_i_rows_judge(kvg_i_cmp_ctx *c, const kvg_compare_args *a);

/* One unit as the places print it: "2^-7 (0x78)", "0x3a (1.25)",
 * "0x3f80 (1)". */
void kvg_i_rows_unit_text(kvg_dtype dt, const kvg_i_elem *e, char *out,
                          size_t cap);
/* The place of a differing unit, its text included. `group_note` (may be
 * "") is appended (a scale's payload codes). */
void kvg_i_rows_place(const kvg_row_layout *l, int64_t slot, int head,
                      int segment, int64_t element, int64_t byte, const kvg_i_elem *want,
                      const kvg_i_elem *got, int64_t distance,
                      const char *group_note, kvg_compare_row_place *p);
/* The place of an untouched byte that changed; `ref_name` is "initial"
 * or "golden". */
void kvg_i_rows_untouched_place(const kvg_compare_args *a, int64_t byte,
                                const char *ref_name,
                                kvg_compare_row_place *p);

#endif /* KVGOLD_SRC_COMPARE_INTERNAL_H */
