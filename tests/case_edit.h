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

#include "case.h"

/* The edits work on the text, as a user would: the committed case.json
 * files are written by Python's json.dump(indent=2), so their layout is
 * known. An edit whose anchor is missing fails the test. */
typedef void (*kvgt_edit_fn)(char *text, size_t cap);

/* Replace the first `from` in text (which must hold it) by `to`. */
void kvgt_replace_first(char *text, size_t cap, const char *from,
                        const char *to);
/* Set the string value of the first member `key` to `value`. */
void kvgt_set_string_member(char *text, size_t cap, const char *key,
                            const char *value);
/* Remove the member `key` whose value is an object without nested objects
 * (a tensor entry), and the comma after it. */
void kvgt_remove_member(char *text, const char *key);

/* Copy vectors/<op>/<name> into a fresh temporary directory `dir`. */
void kvgt_copy_case(const char *op, const char *name, char *dir, size_t cap);
void kvgt_remove_case(const char *dir);
/* Read dir/case.json, apply `edit` to its text, write it back. */
void kvgt_edit_case(const char *dir, kvgt_edit_fn edit);
/* Load and run; returns the run's status (the load must succeed). */
kvg_status kvgt_run_case_dir(const char *dir, kvg_diag *d);
/* The unbroken copy of vectors/<op>/<name> runs; after `edit` the run
 * fails with `want`, naming `tensor`. */
void kvgt_expect_broken(const char *op, const char *name, kvgt_edit_fn edit,
                        kvg_status want, const char *tensor);

#endif /* KVGOLD_TESTS_CASE_EDIT_H */
