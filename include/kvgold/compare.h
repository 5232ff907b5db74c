/*
 * kvgold/compare.h - CANN precision comparison of an NPU output against the
 * golden, one tensor at a time (docs/compare.md has the definitions and
 * their sources).
 *
 * Usage, per output tensor of a case:
 *
 *   kvg_compare_args a;
 *   kvg_compare_result r[N];
 *   kvg_compare_summary s;
 *   kvg_compare_summary_init(&s);
 *   kvg_compare_args_init(&a);
 *   a.name = "k_cache"; a.golden = &gold; a.actual = &npu;
 *   a.initial = &k_cache_before; a.written = mask; a.written_count = n;
 *   a.layout = &nz;                     (optional: report cache coordinates)
 *   st = kvg_compare_tensor(&a, &r[0], &diag);   KVG_OK or KVG_ERR_MISMATCH
 *   kvg_compare_summary_add(&s, &r[0]);
 *   ...
 *   kvg_compare_report_text(r, N, buf, cap, &len, &diag);   (or _json)
 *
 * Criteria (KVG_CRIT_AUTO picks one from the dtype and the role):
 *
 *   role \ dtype  fp16 bf16 fp32   fp8 e4m3/e5m2   hif8        int8        int32 int64
 *   DEFAULT       float_re         code_dist (*)   code_dist   int_abs1    bitwise
 *   COMPUTE       float_re         float_re        code_dist   bitwise     bitwise
 *   QUANT         float_re         code_dist (*)   code_dist   int_abs1    int_abs1
 *   COPY          bitwise (every dtype)
 *
 *   (*) float_re under MIXED_TTK, the default standard (ops-test-kit
 *       judges fp8 e4m3fn / e5m2 outputs as floats).
 *
 *   e8m0 scales and fp4_e1m2: bitwise in every role and standard (no
 *   other criterion is accepted). fp4_e2m1: bitwise under MIXED_TTK (as
 *   ops-test-kit's "bin") and for COPY, else code_dist. Packed fp4 is
 *   judged per 4-bit code: counts and indices are of codes, index = 2 *
 *   byte + nibble (kvg_compare_result.codes_per_element).
 *
 *   bitwise    every written element bit-identical (CANN non-compute and
 *              integer ops).
 *   int_abs1   |actual - golden| <= 1 for every written element (CANN quant,
 *              float in -> integer out).
 *   float_re   the float rule of args.standard: by default ops-test-
 *              kit's mixed tolerance (below); under SINGLE MERE < Th and
 *              MARE < 10*Th, both strict, with rel = |a - g| / (|g| +
 *              1e-7) over finite pairs (CANN ecosystem standard). Th:
 *              fp16 2^-10, bf16 2^-7, fp32 2^-13, fp8_e4m3fn 2^-3,
 *              fp8_e5m2 2^-2; hif8 has none (give one).
 *   code_dist  distance between the two codes on the format's value line
 *              (number of representable values crossed; -0 = +0); a distance
 *              > 1 is a mismatch; pass if mismatches <= 0.001 * written
 *              (ops-test-kit requant, with its int8-view trap fixed).
 *
 * float_re is the rule of args.standard (kvg_compare_standard below):
 * MIXED_TTK (the default: ops-test-kit's mixed tolerance, as its code at
 * 3675093 reads it), MIXED (opbase's thresholds), SINGLE as above (MERE /
 * MARE, the released opbase branches' rule) or COMMERCIAL (dual benchmark
 * against args.third_party). Under MIXED_TTK, fp8 e4m3fn / e5m2 outputs
 * of the DEFAULT and QUANT roles are judged as floats (float_re), as
 * ops-test-kit does; hif8 stays on code_dist. Every result also carries
 * ULP statistics, the error balance, the mixed-tolerance metrics, the
 * standard's versioned name and source (file @ commit), and the verdict
 * ops-test-kit's own default would give the whole tensor (ttk_*).
 *
 * Whatever the criterion:
 *   - written elements whose golden is NaN must be NaN, whose golden is
 *     +-inf must be the same inf, and a NaN or inf where the golden is
 *     finite fails the tensor ("nonfinite_mismatch"); non-finite pairs are
 *     left out of the error statistics, never zeroed. The one exception is
 *     float_re under COMMERCIAL with a third party: there a position where
 *     any of golden, NPU, third party is NaN/inf passes only if the NPU
 *     equals the third party, or the golden is NaN/inf and the NPU equals
 *     it (ops-test-kit cross_check);
 *   - elements the golden did not write (written mask 0) must be
 *     bit-identical to the initial contents (or, without `initial`, to the
 *     golden); any change fails the tensor and is counted separately as
 *     "untouched_changed" - a kernel writing where it must not is the worst
 *     bug there is.
 *
 * Every metric is computed for every tensor; the criterion only decides the
 * verdict. Nothing allocates, nothing prints, there is no global state.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_COMPARE_H
#define KVGOLD_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/api.h"
#include "kvgold/dtype.h"
#include "kvgold/layout.h"
#include "kvgold/row_layout.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kvg_compare_criterion {
    KVG_CRIT_AUTO = 0,
    KVG_CRIT_BITWISE = 1,
    KVG_CRIT_INT_ABS1 = 2,
    KVG_CRIT_FLOAT_RE = 3,
    KVG_CRIT_CODE_DIST = 4
} kvg_compare_criterion;

/* What produced the tensor; it steers KVG_CRIT_AUTO (table above). */
typedef enum kvg_compare_role {
    KVG_ROLE_DEFAULT = 0, /* by dtype: 8-bit outputs are quantised caches */
    KVG_ROLE_COPY = 1,    /* moved or cast bit for bit (a paged copy,
                             a non-quantised cache copy, v_before) */
    KVG_ROLE_COMPUTE = 2, /* floating-point compute (q_out, k_before...) */
    KVG_ROLE_QUANT = 3    /* the result of a quantisation step */
} kvg_compare_role;

typedef enum kvg_verdict {
    KVG_VERDICT_PASS = 0,
    KVG_VERDICT_FAIL = 1,
    KVG_VERDICT_NOT_JUDGED = 2 /* no verdict could be reached (a missing
                                  file, a missing third-party result);
                                  never counts as a pass */
} kvg_verdict;

/*
 * Which precision standard judges floating-point compute outputs (the
 * float_re criterion). The other criteria (bitwise, int_abs1, code_dist)
 * are the same in every standard. docs/compare.md has each definition,
 * threshold and source (file and commit).
 *   SINGLE      MERE < Th and MARE < 10*Th (CANN ecosystem single
 *               benchmark; the rule of the released opbase branches)
 *   MIXED       |a-g| <= atol + rtol*|g| for >= 99% of the written
 *               elements, and max |a-g| <= cap = max(limit, 32 * eps of
 *               the dtype at 1.0) (opbase mixed_tolerance_standard.md
 *               thresholds, the cap read as ops-test-kit's code reads it)
 *   MIXED_TTK   the same rule with ops-test-kit's (looser) thresholds;
 *               the default (ops-test-kit resolve.py @3675093)
 *   COMMERCIAL  dual benchmark: MARE / MERE / RMSE of the NPU divided by
 *               those of a third-party result, at a level L0/L1/L2, plus
 *               the small-value error counts (opbase commercial_standard.md);
 *               without args.third_party the tensor is NOT JUDGED
 */
typedef enum kvg_compare_standard {
    KVG_STD_SINGLE = 0,
    KVG_STD_MIXED = 1,
    KVG_STD_MIXED_TTK = 2,
    KVG_STD_COMMERCIAL = 3
} kvg_compare_standard;

/* The commercial standard's precision level (ratio limits). */
typedef enum kvg_compare_level {
    KVG_LEVEL_L0 = 0,
    KVG_LEVEL_L1 = 1,
    KVG_LEVEL_L2 = 2
} kvg_compare_level;

/* Length of the worst-element and untouched-change lists. */
#define KVG_COMPARE_WORST 8
#define KVG_COMPARE_REASON_MAX 256

/* The default mismatch fraction limit of code_dist (ttk requant ptol). */
#define KVG_COMPARE_CODE_RATIO 0.001

/* A run of written elements; defined in kvgold/op.h (kvg_elem_run). */
struct kvg_elem_run;

typedef struct kvg_compare_args {
    const char *name;               /* for reports; NULL -> "tensor" */
    const kvg_tensor *golden;       /* required */
    const kvg_tensor *actual;       /* required: same dtype and shape */
    const kvg_tensor *initial;      /* optional: contents before the op
                                       (same dtype and shape); needs
                                       `written` or `written_runs` */
    const unsigned char *written;   /* optional: one byte per element, 1 =
                                       the golden wrote it, 0 = untouched */
    size_t written_count;           /* must equal the element count */
    const kvg_cache_layout *layout; /* optional: report (block, slot, head,
                                       channel) instead of the C-order
                                       multi-index */
    kvg_compare_criterion criterion; /* default KVG_CRIT_AUTO */
    kvg_compare_role role;           /* default KVG_ROLE_DEFAULT */
    double threshold;      /* float_re Th; 0 = the dtype's default */
    double mismatch_ratio; /* code_dist limit; < 0 = KVG_COMPARE_CODE_RATIO */
    /* The precision standard and its level (docs/compare.md). */
    kvg_compare_standard standard; /* default KVG_STD_MIXED_TTK */
    kvg_compare_level level;       /* COMMERCIAL; default KVG_LEVEL_L1 */
    const kvg_tensor *third_party; /* optional: another implementation's
                                      result (e.g. torch on CPU), same
                                      dtype and shape; enables the dual-
                                      benchmark ratios */
    /* Big dumps: the written set as sorted runs of
     * flat elements (kvg_op_written_runs of kvgold/op.h gives them), in
     * place of the byte mask `written`: with `written_runs` non-NULL,
     * exactly these elements are written (count 0: none). Sorted by
     * `first`, disjoint, each count > 0, inside the tensor; not together
     * with `written`. The result equals the equivalent mask's, byte for
     * byte. */
    const struct kvg_elem_run *written_runs;
    size_t written_run_count;
    /* Optional, with written_runs: called as the comparison leaves
     * elements [first, end) of an untouched gap behind (in chunks of at
     * most KVG_COMPARE_CHUNK elements), each gap once when the runs are
     * checked against `initial` and once when it is measured. A caller
     * whose tensors are mapped files can drop those pages here, so a pass
     * over a multi-GiB cache does not keep it resident. The bytes must
     * stay readable (and the same); the comparison may read them again. */
    void (*left_behind)(void *user, int64_t first, int64_t end);
    void *left_behind_user;
    /* Optional (issue 36): the tensor is a packed cache whose slots carry
     * their own fields (kvgold/row_layout.h; kvg_op_row_layout gives an
     * operator's). Then the tensor must be a byte array (uint8, int8,
     * fp8_e4m3fn, fp8_e5m2, hif8 or e8m0: one element a byte), `criterion`
     * must be AUTO and there is no third party, and it is judged field by
     * field (docs/compare.md "Packed rows"): SCALE segments bit for bit,
     * PAYLOAD segments per code (fp4 per 4-bit code) by the criterion
     * AUTO gives the payload's dtype in the QUANT role (the args' role
     * when not DEFAULT) under `standard`, float_re read as code_dist;
     * COPY and PAD bytes exactly; every other byte against `initial`
     * (without it, the golden). The slots written are those whose
     * segment bytes `written` / `written_runs` mark (byte granularity);
     * a mask that marks part of a slot's segments, or a byte outside
     * every segment, does not describe the layout and is refused. No
     * mask: every slot is written. kvg_compare_result.rows has a verdict
     * per field kind and the places named. */
    const kvg_row_layout *row_layout;
    /* With row_layout: which of its tensors (0..tensors-1) golden /
     * actual / initial are (default 0; kvg_row_tensor_of(row_layout,
     * name) finds it). Only the segments living in that tensor are
     * judged, and every other byte of it against `initial`; the layout's
     * other tensor is judged by a comparison of its own. A SCALE whose
     * PAYLOAD lives in the other tensor is judged bit for bit, without
     * the note on its group's payload codes (they are not in this
     * tensor). */
    int row_tensor;
} kvg_compare_args;

/* Elements per left_behind call at most (16 Mi: 16 MiB of int8; the
 * comparison calls it more often, every 4 MiB of a tensor today). */
#define KVG_COMPARE_CHUNK ((int64_t)1 << 24)

/* Set every field to its default (NULL tensors and row layout, AUTO,
 * DEFAULT, 0, -1, MIXED_TTK, L1). */
KVG_API void kvg_compare_args_init(kvg_compare_args *args);

/*
 * One reported element. `coord` holds (block, slot, head, channel) when the
 * comparison had a layout (coord_rank 4), else the C-order multi-index of
 * the tensor's shape (coord_rank = rank; 0 for a rank-0 tensor).
 * `golden` is the expected value: the golden's, or for an untouched element
 * the initial contents'. Values are widened exactly (int64 beyond 2^53
 * rounded); `*_bits` are the raw element codes.
 */
typedef struct kvg_compare_element {
    int64_t index; /* flat element index */
    int coord_rank;
    int64_t coord[KVG_MAX_RANK];
    double golden, actual;
    uint64_t golden_bits, actual_bits;
    double abs_err; /* |actual - golden| (inf for a non-finite mismatch) */
    double rel_err; /* |actual - golden| / (|golden| + 1e-7) */
    double score;   /* what the worst list is sorted by (see below) */
} kvg_compare_element;

/*
 * A packed cache judged field by field (args.row_layout): one verdict per
 * kind of byte, each able to fail alone.
 *   PAYLOAD    quantised codes, per code (fp4: per 4-bit code)
 *   SCALES     the scales of the payload groups, bit for bit
 *   COPY       pass-through bytes (a bf16 rope), bit for bit
 *   PAD        padding the operator writes, bit for bit
 *   UNTOUCHED  every byte not in a written slot's segments, bit for bit
 *              against the initial contents
 *   UNDEFINED  bytes a kernel writes without setting them
 *              (KVG_ROW_UNDEFINED segments), or never sets at all in a
 *              written slot (KVG_ROW_DONT_CARE): any value is right; counted
 *              (units, differ) and named "any value" in the reports,
 *              never failing. Criterion AUTO marks it.
 */
typedef enum kvg_compare_row_kind {
    KVG_ROWK_PAYLOAD = 0,
    KVG_ROWK_SCALES = 1,
    KVG_ROWK_COPY = 2,
    KVG_ROWK_PAD = 3,
    KVG_ROWK_UNTOUCHED = 4,
    KVG_ROWK_UNDEFINED = 5
} kvg_compare_row_kind;

#define KVG_COMPARE_ROW_KINDS 6
/* Places listed per kind (the first ones in slot order). */
#define KVG_COMPARE_ROW_PLACES 4
#define KVG_COMPARE_PLACE_TEXT 240

/* One unit that differs, named: "slot 1207: scale of group 3 of nope is
 * 2^-7 (0x78), golden 2^-6 (0x79); 64 of 64 payload codes of that group
 * differ, all by one binade (x2)". */
typedef struct kvg_compare_row_place {
    int64_t byte;    /* the cache byte holding the unit (its first) */
    int64_t slot;    /* -1: the byte is in no slot's part */
    int head;        /* the slot's head (0 in a layout without heads);
                        -1 with slot -1 */
    int segment;     /* index in the layout; -1: in no segment */
    int64_t element; /* the unit in its segment (code, scale, element,
                        byte); -1 for an untouched byte outside segments */
    int64_t group;   /* payload / scale group; -1: none */
    uint64_t golden_bits, actual_bits; /* the unit's codes; for an
                                          untouched byte golden_bits is the
                                          initial contents' */
    int64_t distance; /* payload: codes apart; e8m0 scale: binades; -1 */
    char text[KVG_COMPARE_PLACE_TEXT];
} kvg_compare_row_place;

typedef struct kvg_compare_row_verdict {
    kvg_verdict verdict;             /* PASS when the kind has no unit
                                        (units 0; reports say "none") */
    kvg_compare_criterion criterion; /* bitwise, or the payload's rule */
    int64_t units;   /* judged: codes, scales, elements, bytes */
    int64_t differ;  /* not bit-identical */
    int64_t failing; /* failing the criterion (exact kinds: = differ) */
    int64_t max_dist; /* payload: code distance; e8m0 scales: binades */
    double limit;    /* failing / units allowed (code_dist), else 0 */
    int listed;
    kvg_compare_row_place place[KVG_COMPARE_ROW_PLACES];
} kvg_compare_row_verdict;

/* "payload", "scales", "pass-through", "pad", "untouched", "undefined";
 * "invalid". */
KVG_API const char *kvg_compare_row_kind_name(kvg_compare_row_kind kind);

/*
 * The outcome for one tensor. Filled by kvg_compare_tensor when it returns
 * KVG_OK or KVG_ERR_MISMATCH, untouched otherwise. Counts are over the
 * written elements unless named otherwise. Metrics that do not exist for
 * the data (MERE of zero finite pairs, the cosine of a zero vector against
 * a non-zero one) are NaN, and null in JSON.
 */
typedef struct kvg_compare_result {
    char name[KVG_DIAG_NAME_MAX];
    kvg_dtype dtype;
    kvg_compare_role role;
    kvg_compare_criterion criterion; /* as applied, never AUTO */
    const char *standard;            /* static text: the rule and source */
    int has_layout;
    kvg_cache_layout layout;
    kvg_verdict verdict;
    char reason[KVG_COMPARE_REASON_MAX]; /* why it failed; "" on PASS */

    int64_t elements;           /* all elements */
    int64_t written;            /* mask 1 (all, without a mask) */
    int64_t untouched;          /* mask 0 */
    int64_t untouched_changed;  /* mask 0 and not bit-identical */
    int64_t bits_differ;        /* written and not bit-identical */
    int64_t compared;           /* written, both values finite */
    int64_t nan_matched;        /* golden NaN, actual NaN (any payload) */
    int64_t inf_matched;        /* golden +-inf, actual the same inf */
    int64_t nonfinite_mismatch; /* any other pair with a NaN or an inf */

    /* over the `compared` finite pairs */
    double max_abs_err;
    double max_rel_err; /* msprobe: |a-g|/|g|, |a-g|/DBL_EPSILON at g = 0 */
    double mere, mare;  /* CANN: mean / max of |a-g|/(|g|+1e-7) */
    double rmse;        /* sqrt(mean((a-g)^2)) */
    double cosine;      /* sum(a*g)/(|a||g|); 1 if both norms are 0 */

    /* Elements NOT below msprobe's one / five thousandth relative error
     * (max_rel_err's definition; rel >= t, or a non-finite mismatch); the
     * ratios are over `written`. 1 - ratio is msprobe's pass ratio. */
    int64_t over_thousandth, over_five_thousandth;
    double over_thousandth_ratio, over_five_thousandth_ratio;

    /* Integer dtypes (int8, int32, int64): delta = actual - golden. */
    int has_int_delta;
    int64_t delta_minus1, delta_plus1, delta_over1; /* |delta| > 1 */
    uint64_t max_abs_delta;

    /* 8-bit float dtypes and fp4_e2m1: distance on the value line, finite
     * pairs; e8m0: the distance in binades (|code difference|). */
    int has_code_dist;
    int64_t dist1, dist_over1;
    int64_t max_dist;

    /* The limits the verdict used (NaN when the criterion has none). */
    double threshold;            /* float_re Th */
    double mere_limit;           /* MERE must be below this (Th) */
    double mare_limit;           /* MARE must be below this (10 Th) */
    double mismatch_ratio_limit; /* code_dist */
    double mismatch_ratio;       /* code_dist: dist_over1 / written */

    /* Written elements that are not bit-identical, worst first: sorted by
     * `score` (bitwise: abs_err; int_abs1: |delta|; float_re: rel_err;
     * code_dist: distance; a non-finite mismatch scores +inf), ties by
     * index. */
    int worst_count;
    kvg_compare_element worst[KVG_COMPARE_WORST];
    /* The first untouched elements that changed, by index. */
    int untouched_listed;
    kvg_compare_element untouched_first[KVG_COMPARE_WORST];

    /* ---- the precision standards ------------------------------------- */
    kvg_compare_standard standard_id; /* the standard asked for */
    kvg_compare_level level;          /* COMMERCIAL's level */
    const char *standard_source;      /* static: document file @ commit of
                                         the thresholds applied */

    /* ULP error of the finite pairs: fp16/bf16/fp32 |a-g| / ulp(g), with
     * ulp(g) = 2^(max(floor(log2|g|), emin) - mantissa bits) (msprobe,
     * with ulp(0) the subnormal step); 8-bit floats: the value-line code
     * distance; integers: |delta|. ulp_over counts finite pairs above
     * ulp_threshold (1; 32 for fp32, msprobe) plus non-finite mismatches;
     * its ratio is over `written`. */
    int has_ulp;
    double max_ulp, mean_ulp, ulp_threshold, ulp_over_ratio;
    int64_t ulp_over;

    /* msprobe's error balance: |#(a > g) - #(a < g)| / written. */
    int64_t err_above, err_below;
    double error_balance;

    /* Mixed tolerance, measured under every standard (judged by MIXED*):
     * matched = written elements with |a-g| <= atol + rtol*|g| (finite)
     * or a matching NaN / same-sign inf; max_abs_limit = the cap,
     * max(the table's limit, cap_ulps * eps of the dtype at 1.0), and
     * over_cap = finite pairs with |a-g| > max_abs_limit. NaN when the
     * dtype has no table (integers, hif8). */
    double rtol, atol, matched_ratio, matched_ratio_limit;
    double max_abs_limit, cap_ulps;
    int64_t matched, over_cap;

    /* Dual benchmark (with args.third_party; judged by COMMERCIAL).
     * Normal range: written elements, all three finite, |g| >= small_value;
     * MARE/MERE/RMSE of the NPU (npu_*) and of the third party (tp_*) over
     * it; ratio = npu / max(tp, small_value) (ops-test-kit cross_check,
     * msprobe calc_ratio), passes at <= the level's limit. Small range:
     * |g| < small_value; an error is |x - g| > small_error; passes at
     * small_err_npu / max(small_err_tp, 1) <= 2. */
    int has_third_party;
    int64_t normal_count, small_count, small_err_npu, small_err_tp;
    int64_t tp_nonfinite_mismatch; /* third party vs golden, written */
    double npu_mare, npu_mere, npu_rmse, tp_mare, tp_mere, tp_rmse;
    double mare_ratio, mere_ratio, rmse_ratio;
    double mare_ratio_limit, mere_ratio_limit, rmse_ratio_limit;
    double small_value, small_error, small_err_ratio, small_err_ratio_limit;

    /* ---- added with ops-test-kit's rule as the default ----------------- */
    const char *standard_version; /* static: "mixed_ttk@3675093"... */
    /* Special values judged by ops-test-kit cross_check's rule (COMMERCIAL,
     * float_re, with a third party); then nonfinite_mismatch counts the
     * positions that fail it and tp_special_passed the NaN/inf positions
     * it passes only because the NPU equals the third party. */
    int special_by_third_party;
    int64_t tp_special_passed;
    /* The verdict ops-test-kit @3675093's default would give this tensor,
     * computed as its code does: the whole tensor (written and untouched
     * elements alike), the rule picked by dtype alone (ttk_rule:
     * "mix_tolerance" for fp16 / bf16 / fp32 / fp8, "requant" with the
     * codes viewed as int8 for hif8, "binary_equal" for integers and for
     * e8m0 and fp4 codes), any two NaNs equal whatever their payload, and float32 arithmetic. kvgold's
     * verdict never relies on it; it is reported so that the user sees
     * both where they differ. */
    kvg_verdict ttk_verdict;
    const char *ttk_rule;
    int64_t ttk_elements;   /* every element of the tensor */
    int64_t ttk_matched;    /* mix_tolerance: elements within tolerance */
    int64_t ttk_mismatched; /* requant / binary_equal: elements that fail */
    double ttk_matched_ratio, ttk_max_abs_error, ttk_max_abs_limit;

    /* ---- added with e8m0 and packed fp4 (issue 35) -------------------- */
    /* 2 for fp4_e2m1 / fp4_e1m2, whose element is a byte holding two 4-bit
     * codes: then every count above (elements, written, untouched,
     * bits_differ, ...) counts CODES, and an element index of `worst` /
     * `untouched_first` is a code index, 2 * byte + nibble (0 = low), its
     * coordinates those of the byte. 1 for every other dtype. */
    int codes_per_element;
    /* 1 for e8m0 scales (their relative errors or cosine say nothing of
     * the error they cause: one binade moves every code of the block) and
     * fp4_e1m2 (no decoder): max_abs_err, max_rel_err, MERE, MARE, RMSE,
     * cosine and the thousandth ratios are NaN (JSON null, text "n/a"),
     * over_thousandth / over_five_thousandth 0. e8m0's distance is in the
     * code-distance fields, in binades. */
    int values_not_applicable;

    /* ---- added with packed rows (issue 36) ----------------------------- */
    /* 1 when args.row_layout judged the tensor: then the verdict is the
     * rows' (any kind failing fails the tensor); the counts above are of
     * bytes compared bit for bit, for information. */
    int has_rows;
    char row_layout_name[KVG_DIAG_NAME_MAX];
    int64_t row_slots, row_slots_written;
    kvg_compare_row_verdict rows[KVG_COMPARE_ROW_KINDS];
} kvg_compare_result;

/*
 * Compare one tensor. Validates everything first (161001 for a NULL args,
 * result, golden or actual or a NULL data pointer; 161002 for dtype, shape,
 * size, mask, layout or criterion problems, naming the tensor), then fills
 * *result and returns KVG_OK (PASS) or KVG_ERR_MISMATCH (FAIL, with the
 * reason in diag too). On any other status *result is untouched.
 *
 * With `initial`, the golden itself must equal `initial` at every untouched
 * element, or the mask does not describe the golden (161002, naming the
 * element).
 */
KVG_API kvg_status kvg_compare_tensor(const kvg_compare_args *args,
                                      kvg_compare_result *result,
                                      kvg_diag *diag);

/*
 * The written mask of an op that only writes its outputs, found from two
 * golden runs: `out_a` from initial contents `init_a`, `out_b` from
 * `init_b`, where every element of init_b differs from init_a bitwise (for
 * example init_b = ~init_a). An element is written iff out_a and out_b
 * agree; an element that differs must equal init_a / init_b respectively,
 * else the op read the initial contents and no mask exists (161002).
 * Writes `count` (= element count) bytes of 0/1 to `mask`.
 */
KVG_API kvg_status kvg_compare_written_mask(const kvg_tensor *out_a,
                                            const kvg_tensor *init_a,
                                            const kvg_tensor *out_b,
                                            const kvg_tensor *init_b,
                                            unsigned char *mask, size_t count,
                                            kvg_diag *diag);

/*
 * A result for a tensor that could not be judged (no NPU file, an
 * unreadable one...): every count 0, every metric NaN, verdict
 * KVG_VERDICT_NOT_JUDGED, `reason` copied (truncated to fit). Returns
 * KVG_ERR_PARAM_NULLPTR for a NULL result, else KVG_OK.
 */
KVG_API kvg_status kvg_compare_result_not_judged(kvg_compare_result *result,
                                                 const char *name,
                                                 kvg_dtype dtype,
                                                 const char *reason);

/*
 * Bit-identity of two runs of the same output (the commercial standard's
 * determinism rule): the number of elements whose bytes differ and the
 * first one (index -1 when identical). Same dtype and shape required
 * (161002), NULL pointers 161001.
 */
typedef struct kvg_compare_runs_result {
    int64_t elements;
    int64_t differ;
    int64_t first_index;
    uint64_t first_a_bits, first_b_bits;
} kvg_compare_runs_result;

KVG_API kvg_status kvg_compare_runs(const kvg_tensor *run_a,
                                    const kvg_tensor *run_b,
                                    kvg_compare_runs_result *result,
                                    kvg_diag *diag);

/* "single", "mixed", "mixed_ttk", "commercial" / "L0" "L1" "L2"; never
 * NULL ("invalid"). The _from_name functions return 1 and set *out when
 * the name is known, else 0; a standard is known by its name or by its
 * versioned name. */
KVG_API const char *kvg_compare_standard_name(kvg_compare_standard s);
/* The name with the commit of the source it was read from, as every report
 * names it: "single@3e62966", "mixed@233ee24", "mixed_ttk@3675093",
 * "commercial@3e62966"; "invalid" otherwise. */
KVG_API const char *kvg_compare_standard_version(kvg_compare_standard s);
KVG_API int kvg_compare_standard_from_name(const char *name,
                                           kvg_compare_standard *out);
KVG_API const char *kvg_compare_level_name(kvg_compare_level level);
KVG_API int kvg_compare_level_from_name(const char *name,
                                        kvg_compare_level *out);

/* The criterion KVG_CRIT_AUTO resolves to (table above); AUTO itself when
 * the dtype is invalid. This is the table of every standard but
 * MIXED_TTK; kvg_compare_auto_criterion_for gives the one of a standard
 * (MIXED_TTK: fp8 e4m3fn / e5m2 float_re in every role but COPY, fp4_e2m1
 * bitwise). e8m0 and fp4_e1m2 are bitwise in every role and standard. */
KVG_API kvg_compare_criterion kvg_compare_auto_criterion(kvg_dtype dtype,
                                                         kvg_compare_role role);
KVG_API kvg_compare_criterion kvg_compare_auto_criterion_for(
    kvg_dtype dtype, kvg_compare_role role, kvg_compare_standard standard);

/* float_re's default Th for a dtype; 0 when it has none (hif8, integers). */
KVG_API double kvg_compare_default_threshold(kvg_dtype dtype);

/* "bitwise", "int_abs1", "float_re", "code_dist", "auto"; "copy",
 * "compute", "quant", "default"; "PASS", "FAIL", "NOT JUDGED". Never
 * NULL. */
KVG_API const char *kvg_compare_criterion_name(kvg_compare_criterion c);
KVG_API const char *kvg_compare_role_name(kvg_compare_role role);
KVG_API const char *kvg_verdict_name(kvg_verdict v);

/* Totals over the tensors of a case. */
typedef struct kvg_compare_summary {
    int64_t tensors, passed, failed;
    int64_t untouched_changed; /* summed over the tensors */
    kvg_status status;         /* KVG_OK, or KVG_ERR_MISMATCH if any failed
                                  or was not judged */
    int64_t not_judged;        /* elements no rule judged */
} kvg_compare_summary;

/* Zero a summary (status KVG_OK); add one tensor's result to it (the
 * status becomes KVG_ERR_MISMATCH once any result failed or was not
 * judged). */
KVG_API void kvg_compare_summary_init(kvg_compare_summary *summary);
KVG_API void kvg_compare_summary_add(kvg_compare_summary *summary,
                                     const kvg_compare_result *result);

/* "PASS" (every tensor passed), "FAIL" (some failed), "INCOMPLETE" (none
 * failed, some not judged). An empty summary is "INCOMPLETE": nothing was
 * judged. */
KVG_API const char *kvg_compare_summary_verdict(
    const kvg_compare_summary *summary);

/*
 * Render `count` results into `buf` (capacity `cap`, NUL included):
 *   _text   an aligned table (one row per tensor), then for each tensor
 *           with differences its untouched changes and worst elements with
 *           coordinates, then a summary line;
 *   _json   one JSON object {"tool":"kvgold compare", "verdict", "tensors",
 *           "passed", "failed", "untouched_changed", "results": [...]};
 *           numbers are finite or null, codes are "0x.." strings.
 * *len receives the text length (without the NUL). buf NULL is a size
 * query (KVG_OK); a buffer shorter than *len + 1 is refused
 * (KVG_ERR_PARAM_INVALID) and not written. The text does not depend on the
 * C locale's decimal point.
 */
KVG_API kvg_status kvg_compare_report_text(const kvg_compare_result *results,
                                           size_t count, char *buf,
                                           size_t cap, size_t *len,
                                           kvg_diag *diag);
KVG_API kvg_status kvg_compare_report_json(const kvg_compare_result *results,
                                           size_t count, char *buf,
                                           size_t cap, size_t *len,
                                           kvg_diag *diag);

/* sizeof(kvg_compare_result), for bindings that treat it as an opaque
 * buffer (the Python package allocates it by this size). */
KVG_API size_t kvg_compare_result_size(void);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_COMPARE_H */
