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
#include "kvgold/compare.h"

/*
 * Compare every output loaded in all `n` runs with run 1, bit for bit.
 * Two runs whose dump of an output is one file (the same directory given
 * twice, hard links, a `cp -al` copy: same device and inode) are not two
 * runs: that pair is not compared, it is reported ("runs 1 and 2 are the
 * same files"), and the check is then NOT JUDGED, never PASS.
 * Writes text lines to `out` (when not NULL) and, when `json` is not NULL,
 * the member "determinism": {"verdict", "tensors": [...], "same_files":
 * [...], "identical": bool} to it. `why` (cap bytes, may be NULL) gets the
 * one-line conclusion. Returns KVG_VERDICT_PASS when every pair of runs
 * was compared and is identical, KVG_VERDICT_FAIL when some differ,
 * KVG_VERDICT_NOT_JUDGED otherwise (an output missing from a run, runs
 * that are the same files).
 */
kvg_verdict kvg_cli_repeat_check(const kvg_case_set *gold,
                                 const int *selected,
                                 const kvg_cli_dumps *runs, int n, FILE *out,
                                 FILE *json, char *why, size_t cap);

#endif /* KVGOLD_TOOLS_COMPARE_REPEAT_H */
