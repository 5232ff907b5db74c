/*
 * tools/cli/explain_layout.c - `kvgold explain-layout CASE [OUTPUT]`: the
 * byte map of a packed cache row, as the operator's own kvg_row_layout
 * states it (kvgold/row_layout.h), for the call a case describes.
 *
 * Why a command: a dump holds bytes, and the layouts of one operator name
 * differ between implementations ([rope | quant | scales] against
 * [quant | rope | scales]; 576, 584, 656-byte rows). The map printed here
 * is the very data the operator writes through and `compare` judges by, so
 * what an engineer reads is what kvgold does, never a second description.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kvgold/op.h"
#include "kvgold/row_layout.h"

const char *const kvg_cli_explain_layout_help =
    "usage: kvgold explain-layout CASE [OUTPUT]\n"
    "\n"
    "Print the byte map of each packed cache row the case's call writes\n"
    "(or of OUTPUT only): every field of a slot (quantised payload and its\n"
    "group size, scales and which payload they scale, pass-through bytes,\n"
    "padding, bytes the kernel leaves unset or never writes), its byte\n"
    "range, dtype and\n"
    "element count; then where slot s lives (block s / block_size at\n"
    "position s % block_size). A layout over two tensors (scales in a\n"
    "tensor of their own) prints each tensor's map under its name, with\n"
    "the other tensor named where a scale and its payload are apart.\n"
    "It is the layout the operator writes and\n"
    "`kvgold compare` judges by, field by field. Outputs without a packed\n"
    "layout are named as such. CASE is any case directory (a vector, a\n"
    "`kvgold prepare` directory, a case `scan` wrote).\n"
    "\n"
    "Exit status: 0 printed; 2 the case could not be read, the call was\n"
    "refused, or OUTPUT is not one of the operator's outputs.\n";

static const char *field_name(kvg_row_field f)
{
    switch (f) {
    case KVG_ROW_PAYLOAD: return "payload";
    case KVG_ROW_SCALE: return "scale";
    case KVG_ROW_COPY: return "copy";
    case KVG_ROW_PAD: return "pad (0)";
    case KVG_ROW_UNDEFINED: return "unset";
    case KVG_ROW_DONT_CARE: return "ignored";
    }
    return "?";
}

/* " (in cache_scale)" when segment j lives in another tensor than i. */
static const char *elsewhere(const kvg_row_layout *l, int i, int j,
                             char *buf, size_t cap)
{
    const int t = kvg_row_segment_tensor(l, j);

    buf[0] = '\0';
    if (t != kvg_row_segment_tensor(l, i))
        (void)snprintf(buf, cap, " (in %s)", l->tensor_name[t]);
    return buf;
}

/* "groups of 64: 3, scaled by scale" / "one per group of nope" / "" */
static void group_text(const kvg_row_layout *l, int i, char *out, size_t cap)
{
    const kvg_row_segment *s = &l->seg[i];
    char in[48];
    int j;

    out[0] = '\0';
    if (s->field == KVG_ROW_DONT_CARE) {
        (void)snprintf(out, cap, "never written; any value");
        return;
    }
    if (s->field == KVG_ROW_SCALE && s->of >= 0 && s->of < l->segments) {
        (void)snprintf(out, cap, "one per group of %s%s", l->seg[s->of].name,
                       elsewhere(l, i, s->of, in, sizeof in));
        return;
    }
    if (s->field != KVG_ROW_PAYLOAD || s->group <= 0)
        return;
    for (j = 0; j < l->segments; j++)
        if (l->seg[j].field == KVG_ROW_SCALE && l->seg[j].of == i)
            break;
    (void)snprintf(out, cap, "groups of %lld: %lld%s%s%s",
                   (long long)s->group,
                   (long long)(s->count / s->group + (s->count % s->group != 0)),
                   j < l->segments ? ", scaled by " : "",
                   j < l->segments ? l->seg[j].name : "",
                   j < l->segments ? elsewhere(l, i, j, in, sizeof in) : "");
}

/* Bytes of a segment's first piece (all of it when unpieced). */
static int64_t first_piece(const kvg_row_segment *s)
{
    if (s->piece <= 0 || s->piece >= s->count)
        return kvg_row_segment_bytes(s);
    if (s->dtype == KVG_FP4_E2M1 || s->dtype == KVG_FP4_E1M2)
        return s->piece / 2; /* two codes a byte */
    return s->piece * (int64_t)kvg_dtype_size(s->dtype);
}

/* "      in pieces of 32 elements, piece k at + k * 4096" under a pieced
 * segment (the NZ order: other slots' pieces lie between); 1 if
 * printed. */
static int print_pieces(const kvg_row_segment *s, FILE *out)
{
    if (s->piece <= 0 || s->piece >= s->count)
        return 0;
    fprintf(out, "      in pieces of %lld elements: piece k at + k * %lld "
            "(%lld pieces)\n", (long long)s->piece,
            (long long)s->piece_stride,
            (long long)(s->count / s->piece + (s->count % s->piece != 0)));
    return 1;
}

/* Whether region r shares its tensor with the other region. */
static int shared_tensor(const kvg_row_layout *l)
{
    return l->regions > 1 && l->region_tensor[0] == l->region_tensor[1];
}

/* The segments of region r, in byte order, and the bytes of a slot's part
 * that none covers. */
static void print_region(const kvg_row_layout *l, int r, FILE *out)
{
    int64_t at = 0;
    int done[KVG_ROW_SEGMENTS] = {0};
    int k;

    fprintf(out, "  region %d: %lld bytes a slot%s\n", r,
            (long long)l->slot_stride[r],
            shared_tensor(l) ? (r == 0 ? " (a block's values)"
                                       : " (a block's scales)")
                             : "");
    fprintf(out, "    %-13s %-9s %-10s %-12s %8s\n", "bytes", "field",
            "name", "dtype", "elements");
    for (k = 0; k < l->segments; k++) {
        int i, best = -1;
        char range[32], grp[96];
        for (i = 0; i < l->segments; i++)
            if (!done[i] && l->seg[i].region == r &&
                (best < 0 || l->seg[i].offset < l->seg[best].offset))
                best = i;
        if (best < 0)
            break;
        done[best] = 1;
        if (l->seg[best].offset > at) {
            (void)snprintf(range, sizeof range, "[%lld, %lld)",
                           (long long)at, (long long)l->seg[best].offset);
            fprintf(out, "    %-13s %-9s (not written: keeps its bytes)\n",
                    range, "-");
        }
        at = l->seg[best].offset + first_piece(&l->seg[best]);
        (void)snprintf(range, sizeof range, "[%lld, %lld)",
                       (long long)l->seg[best].offset, (long long)at);
        group_text(l, best, grp, sizeof grp);
        fprintf(out, "    %-13s %-9s %-10s %-12s %8lld%s%s\n", range,
                field_name(l->seg[best].field), l->seg[best].name,
                kvg_dtype_name(l->seg[best].dtype),
                (long long)l->seg[best].count, grp[0] ? "  " : "", grp);
        if (print_pieces(&l->seg[best], out))
            at = l->slot_stride[r]; /* the gaps are other slots' pieces */
    }
    if (at < l->slot_stride[r]) {
        char range[32];
        (void)snprintf(range, sizeof range, "[%lld, %lld)", (long long)at,
                       (long long)l->slot_stride[r]);
        fprintf(out, "    %-13s %-9s (not written: keeps its bytes)\n",
                range, "-");
    }
}

/* "  heads: 8; head h at + h * 16384 (region 0)" for a layout with
 * heads: a slot holds every segment once per head. */
static void print_heads(const kvg_row_layout *l, int k, FILE *out)
{
    int r;

    if (l->heads <= 1)
        return;
    fprintf(out, "  heads: %d (every segment once per head)", l->heads);
    for (r = 0; r < l->regions; r++)
        if (l->region_tensor[r] == k)
            fprintf(out, "; region %d: head h at + h * %lld", r,
                    (long long)l->head_stride[r]);
    fputc('\n', out);
}

/* "  a slot: 584 bytes (576 + 8); bytes [2336, 2880) of each block are
 * written by no slot" - what tells a 576-, 584- or 656-byte row apart at
 * a glance. Only for one head, no tiles and no pieces (the plain
 * block-major and per-slot layouts), where a slot's bytes are its
 * regions' strides. */
static void print_slot_bytes(const kvg_row_layout *l, int k, FILE *out)
{
    int64_t bytes = 0, used = 0;
    int r, n = 0;
    const char *sep;

    if (l->heads > 1)
        return;
    for (r = 0; r < l->segments; r++)
        if (l->region_tensor[l->seg[r].region] == k && l->seg[r].piece > 0)
            return; /* NZ pieces: a slot's bytes are not its stride */
    for (r = 0; r < l->regions; r++) {
        if (l->region_tensor[r] != k)
            continue;
        if (l->tile[r] > 0)
            return;
        bytes += l->slot_stride[r];
        n++;
        if (l->region_offset[r] + l->slot_stride[r] * l->block_size > used)
            used = l->region_offset[r] + l->slot_stride[r] * l->block_size;
    }
    fprintf(out, "  a slot: %lld bytes", (long long)bytes);
    for (r = 0, sep = " ("; n > 1 && r < l->regions; r++)
        if (l->region_tensor[r] == k) {
            fprintf(out, "%s%lld", sep, (long long)l->slot_stride[r]);
            sep = " + ";
        }
    if (n > 1)
        fputc(')', out);
    if (used < l->block_stride[k])
        fprintf(out, "; bytes [%lld, %lld) of each block are written by no "
                "slot", (long long)used, (long long)l->block_stride[k]);
    fputc('\n', out);
}

/* The map of tensor `k` of the layout (the one named `name`): its
 * regions, and where a slot's part of each is. */
static void print_layout(const char *name, const kvg_tensor *t,
                         const kvg_row_layout *l, int k, FILE *out)
{
    int r;

    fprintf(out, "%s (%s, %lld bytes): %s", name, kvg_dtype_name(t->dtype),
            (long long)t->nbytes, l->name != NULL ? l->name : "-");
    if (l->tensors > 1)
        fprintf(out, " (tensor %d of %d: %s, %s)", k, l->tensors,
                l->tensor_name[0], l->tensor_name[1]);
    fputc('\n', out);
    for (r = 0; r < l->regions; r++)
        if (l->region_tensor[r] == k)
            print_region(l, r, out);
    fprintf(out, "  slot s: block s / %lld, position s %% %lld; block b at "
            "byte b * %lld",
            (long long)l->block_size, (long long)l->block_size,
            (long long)l->block_stride[k]);
    for (r = 0; r < l->regions; r++)
        if (l->region_tensor[r] == k && l->tile[r] > 0)
            fprintf(out, "; region %d at + %lld, slot position p at + (p / "
                    "%lld) * %lld + (p %% %lld) * %lld (tiles of %lld "
                    "slots)", r, (long long)l->region_offset[r],
                    (long long)l->tile[r], (long long)l->tile_stride[r],
                    (long long)l->tile[r], (long long)l->slot_stride[r],
                    (long long)l->tile[r]);
        else if (l->region_tensor[r] == k)
            fprintf(out, "; region %d at + %lld, slot position p at + p * "
                    "%lld", r, (long long)l->region_offset[r],
                    (long long)l->slot_stride[r]);
    fputc('\n', out);
    print_slot_bytes(l, k, out);
    print_heads(l, k, out);
    fprintf(out, "  %lld blocks, %lld slots\n", (long long)l->blocks,
            (long long)(l->blocks * l->block_size));
    if (l->has_sink)
        fprintf(out, "  sink slot %lld: the pad rows clamped to it are "
                "written in an order the kernel does not define; when it is "
                "written, compare counts its bytes as unset, never judges "
                "them\n",
                (long long)l->sink_slot);
}

/* One output: its layout, or a line saying it has none. 0, or 2 on a
 * refusal. */
static int explain_one(const kvg_case *c, const char *name, FILE *out)
{
    const kvg_tensor *t = kvg_case_find(&c->inputs, name);
    kvg_row_layout l;
    kvg_diag diag;

    kvg_diag_clear(&diag);
    if (kvg_case_row_layout(c, name, &l, &diag) != KVG_OK) {
        fprintf(stderr, "kvgold: explain-layout: %s: %s: %s\n", c->dir, name,
                diag.message);
        return KVG_EXIT_INVALID;
    }
    if (l.segments == 0) {
        fprintf(out, "%s: no packed-row layout (judged element by element "
                "by its dtype)\n", name);
        return KVG_EXIT_PASS;
    }
    if (t == NULL)
        t = kvg_case_find(&c->expected, name);
    if (t == NULL) {
        fprintf(stderr, "kvgold: explain-layout: %s: %s is not in the case\n",
                c->dir, name);
        return KVG_EXIT_INVALID;
    }
    /* op_call made sure the layout names this tensor */
    print_layout(name, t, &l, kvg_row_tensor_of(&l, name), out);
    return KVG_EXIT_PASS;
}

int kvg_cli_explain_layout(int argc, char **argv)
{
    const kvg_op *op;
    kvg_case c;
    size_t i;
    int rc = KVG_EXIT_PASS, named = 0;

    if (argc < 1 || argc > 2)
        return kvg_cli_usage_error("explain-layout: give CASE [OUTPUT]%s",
                                   "");
    if (argv[0][0] == '-')
        return kvg_cli_usage_error("explain-layout: unknown option %s",
                                   argv[0]);
    if (!kvg_cli_load_with(argv[0], &c, KVG_CASE_NO_EXPECTED_DATA))
        return KVG_EXIT_INVALID;
    op = kvg_op_find(c.op);
    for (i = 0; i < kvg_op_tensor_count(op) && rc == KVG_EXIT_PASS; i++) {
        const kvg_op_tensor_info *ti = kvg_op_tensor_at(op, i);
        if (ti->kind == KVG_OP_INPUT ||
            (argc == 2 && strcmp(argv[1], ti->name) != 0))
            continue;
        if (kvg_case_find(&c.inputs, ti->name) == NULL &&
            kvg_case_find(&c.expected, ti->name) == NULL)
            continue; /* an optional output this call does not produce */
        named = 1;
        rc = explain_one(&c, ti->name, stdout);
    }
    if (rc == KVG_EXIT_PASS && argc == 2 && !named) {
        fprintf(stderr, "kvgold: explain-layout: %s: %s is not an output of "
                "this %s call\n", argv[0], argv[1], c.op);
        rc = KVG_EXIT_INVALID;
    }
    kvg_case_free(&c);
    return rc;
}
