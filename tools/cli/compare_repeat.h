/*
 * tools/cli/compare_repeat.h - `kvgold compare CASE DIR1 DIR2 ...`: are
 * repeated runs bit for bit the same? The commercial standard
 * (hicann/opbase commercial_standard.md @3e62966, section 3, note 1)
 * requires it of operators that support deterministic computation, which
 * all of kvgold's do.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_COMPARE_REPEAT_H
#define KVGOLD_TOOLS_COMPARE_REPEAT_H

#include <stdio.h>

#include "case.h"
#include "compare_dumps.h"

/* Compare every output loaded in all `n` runs with run 1, bit for bit.
 * Writes text lines to `out` (when not NULL) and, when `json` is not NULL,
 * the member "determinism": {"tensors": [...], "identical": bool} to it.
 * Returns 1 if every run is identical. */
int kvg_cli_repeat_check(const kvg_case_set *gold, const int *selected,
                         const kvg_cli_dumps *runs, int n, FILE *out,
                         FILE *json);

#endif /* KVGOLD_TOOLS_COMPARE_REPEAT_H */
