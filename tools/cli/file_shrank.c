/*
 * tools/cli/file_shrank.c - the command's answer to a mapped input file
 * that another process truncated under it (cli.h, map_guard.h). POSIX;
 * async-signal-safe only: unlink (through outset), write, _exit.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "outset.h"

/* write(2) until done or failing: stdio is not async-signal-safe. */
static void say(const char *text)
{
    size_t n = strlen(text);
    while (n != 0) {
        ssize_t put = write(2, text, n);
        if (put <= 0)
            return;
        text += put;
        n -= (size_t)put;
    }
}

void kvg_cli_file_shrank(const char *path)
{
    kvg_outset_discard_temps();
    say("kvgold: ");
    say(path);
    say(": the file shrank while it was being read (another process "
        "truncated it); nothing was written\n");
    _exit(2);
}
