/*
 * tools/cli/compare_cmd.c - `kvgold compare` (placeholder until the
 * precision-comparison API lands).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "cli.h"

const char *const kvg_cli_compare_help =
    "usage: kvgold compare CASE NPU_DIR [--json]\n"
    "\n"
    "Not available yet in this build.\n";

int kvg_cli_compare(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("kvgold: compare is not available yet in this build\n", stderr);
    return KVG_EXIT_INVALID;
}
