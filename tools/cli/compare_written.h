/*
 * tools/cli/compare_written.h - the elements the golden writes in each
 * in-place cache, as sorted runs (kvg_compare_args.written_runs): what
 * `compare` judges by its criterion; every other element must be
 * untouched. Issue 13: runs cost a few bytes per written row, where the
 * byte mask cost one byte per cache element.
 *
 * The runs come from kvg_op_written_runs (kvgold/op.h) once that is
 * implemented; until then from the two-run mask (compare_cmd.c's
 * find_masks), converted here and freed at once.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_COMPARE_WRITTEN_H
#define KVGOLD_TOOLS_COMPARE_WRITTEN_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/op.h"

/* The runs of non-zero bytes of `mask` (n elements), malloc'ed and
 * reserved in the memory ledger (release with kvg_cli_runs_free); NULL
 * when memory is short (*count 0). A mask with no written element gives a
 * non-NULL array and *count 0. */
kvg_elem_run *kvg_cli_mask_runs(const unsigned char *mask, int64_t n,
                                size_t *count);
void kvg_cli_runs_free(kvg_elem_run *runs, size_t count);

#endif /* KVGOLD_TOOLS_COMPARE_WRITTEN_H */
