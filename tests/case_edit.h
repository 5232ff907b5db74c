/*
 * tests/case_edit.h - the case adapter is strict: copy a committed vector
 * case to a temporary directory, break one thing in its case.json, and the
 * run must fail naming it (and the unbroken copy must still pass, so the
 * copy itself is sound). Shared by the operators' case tests.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TESTS_CASE_EDIT_H
#define KVGOLD_TESTS_CASE_EDIT_H

#include "kvg_test.h"

#include <cjson/cJSON.h>

#include "case.h"

typedef void (*kvgt_edit_fn)(cJSON *doc);

/* Copy vectors/<op>/<name> into a fresh temporary directory `dir`. */
void kvgt_copy_case(const char *op, const char *name, char *dir, size_t cap);
void kvgt_remove_case(const char *dir);
/* Parse dir/case.json, apply `edit`, write it back. */
void kvgt_edit_case(const char *dir, kvgt_edit_fn edit);
/* Load and run; returns the run's status (the load must succeed). */
kvg_status kvgt_run_case_dir(const char *dir, kvg_diag *d);
/* The unbroken copy of vectors/<op>/<name> runs; after `edit` the run
 * fails with `want`, naming `tensor`. */
void kvgt_expect_broken(const char *op, const char *name, kvgt_edit_fn edit,
                        kvg_status want, const char *tensor);

#endif /* KVGOLD_TESTS_CASE_EDIT_H */
