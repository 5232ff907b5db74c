/*
 * tests/case_list.h - the committed vector cases of one directory of
 * vectors/ (an operator's name, or "examples"), in name order, for tests
 * that walk every case of every registered operator.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TESTS_CASE_LIST_H
#define KVGOLD_TESTS_CASE_LIST_H

#include <stddef.h>

#define KVGT_MAX_CASES 256

typedef struct kvgt_case_list {
    char dir[1024];                   /* $KVG_VECTORS_DIR/<sub> */
    int count;
    char names[KVGT_MAX_CASES][128];  /* case directory names, sorted */
} kvgt_case_list;

/* List $KVG_VECTORS_DIR/<sub>; a missing or empty directory fails the
 * test (a walk over no case would pass vacuously). */
void kvgt_list_cases(const char *sub, kvgt_case_list *l);

/* "<dir>/<names[i]>" into buf. */
void kvgt_case_path(const kvgt_case_list *l, int i, char *buf, size_t cap);

/* A check of one case directory; returns how many things it judged. */
typedef int (*kvgt_case_check)(const char *dir);

/* Run `check` on every case of vectors/<sub>; the sum of its returns. */
int kvgt_check_cases(const char *sub, kvgt_case_check check);

/* Run `check` on every case of every registered operator: each operator
 * must contribute, and the sum is returned. */
int kvgt_check_every_op(kvgt_case_check check);

#endif /* KVGOLD_TESTS_CASE_LIST_H */
