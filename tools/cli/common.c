/*
 * tools/cli/common.c - what every subcommand of the kvgold command shares
 * (tools/cli/cli.h): usage errors, loading a case and saying why it failed,
 * the global --max-memory option, the case's own files. Apart from
 * kvgold.c's dispatch so that the subcommands and the dispatch do not call
 * each other in a circle.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "cli.h"
#include "fileio.h"
#include "membudget.h"

int kvg_cli_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "kvgold: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(run 'kvgold --help' for usage)\n");
    return KVG_EXIT_INVALID;
}

int kvg_cli_load(const char *dir, kvg_case *c)
{
    return kvg_cli_load_with(dir, c, 0u);
}

int kvg_cli_load_with(const char *dir, kvg_case *c, unsigned flags)
{
    kvg_diag diag;
    kvg_status st;
    kvg_diag_clear(&diag);
    if ((st = kvg_case_load_with(dir, c, flags, &diag)) != KVG_OK) {
        if (st == KVG_ERR_NOMEM)
            fprintf(stderr, "kvgold: %s: not enough memory: %s\n", dir,
                    diag.message);
        else
            fprintf(stderr, "kvgold: invalid case %s: %s\n", dir,
                    diag.message);
        return 0;
    }
    return 1;
}

void kvg_cli_run_error(const char *dir, kvg_status st, const kvg_diag *diag)
{
    if (st == KVG_ERR_NOMEM)
        fprintf(stderr, "kvgold: %s: not enough memory: %s\n", dir,
                diag->message);
    else if (st == KVG_ERR_IO || st == KVG_ERR_FILE_FORMAT)
        fprintf(stderr, "kvgold: invalid case %s: %s\n", dir, diag->message);
    else
        fprintf(stderr, "kvgold: %s: the operator refused the case: %s\n",
                dir, diag->message);
}

int kvg_cli_global_options(int *argc, char **argv)
{
    const char *source = NULL;
    uint64_t limit = 0;
    int i, j, given = 0;

    for (i = j = 0; i < *argc; i++) {
        if (strcmp(argv[i], "--max-memory") != 0) {
            argv[j++] = argv[i];
            continue;
        }
        if (i + 1 == *argc || !kvg_mem_parse_size(argv[i + 1], &limit) ||
            limit == 0) {
            kvg_cli_usage_error("--max-memory needs a positive byte count "
                                "such as 512M or 4G, got '%s'",
                                i + 1 < *argc ? argv[i + 1] : "");
            return 0;
        }
        given = 1;
        i++;
    }
    *argc = j;
    argv[j] = NULL;
    if (!given)
        limit = kvg_mem_default_limit(&source); /* sets source */
    kvg_mem_set_limit(limit, given ? "--max-memory" : source);
    return 1;
}

/* The case's own files, which no output may replace. */
char **kvg_cli_case_files(const kvg_case *c, int *n)
{
    const kvg_case_set *sets[2];
    char **paths;
    int s, i, k = 0, total = c->inputs.count + c->expected.count + 1;

    sets[0] = &c->inputs;
    sets[1] = &c->expected;
    paths = (char **)calloc((size_t)total, sizeof *paths);
    if (paths == NULL)
        return NULL;
    paths[k++] = kvg_path_join(c->dir, "case.json", NULL, NULL);
    for (s = 0; s < 2; s++)
        for (i = 0; i < sets[s]->count; i++)
            paths[k++] = kvg_path_join(c->dir, sets[s]->items[i].file, NULL,
                                       NULL);
    for (i = 0; i < k; i++)
        if (paths[i] == NULL) {
            for (i = 0; i < k; i++)
                free(paths[i]);
            free(paths);
            return NULL;
        }
    *n = k;
    return paths;
}

void kvg_cli_free_paths(char **paths, int n)
{
    int i;
    if (paths == NULL)
        return;
    for (i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}
