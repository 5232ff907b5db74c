/*
 * src/common/heapsort.h - the one in-place heapsort of the library, for
 * any element type.
 *
 * Heapsort because it needs no memory beyond the array, no recursion and
 * has an O(n log n) worst case: validation cost must not depend on the
 * data. A macro rather than a function over void * and a comparison
 * pointer, so that each sort compares and swaps its own type inline (the
 * index checks sort one item per token).
 *
 *     KVG_I_HEAPSORT(name, type, less)
 *
 * defines `static void name(type *v, size_t n)`, sorting v[0..n) so that
 * no element is less than the one before it; less(a, b) takes two
 * `const type *` (a function or a macro). Write it at file scope, without
 * a semicolon after it.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_COMMON_HEAPSORT_H
#define KVGOLD_SRC_COMMON_HEAPSORT_H

#include <stddef.h>

#define KVG_I_HEAPSORT(name, type, less)                                     \
    static void name##_sift_down(type *v, size_t root, size_t n)             \
    {                                                                        \
        for (;;) {                                                           \
            size_t child = 2 * root + 1;                                     \
            type tmp;                                                        \
            if (child >= n)                                                  \
                return;                                                      \
            if (child + 1 < n && less(&v[child], &v[child + 1]))             \
                child++;                                                     \
            if (!less(&v[root], &v[child]))                                  \
                return;                                                      \
            tmp = v[root];                                                   \
            v[root] = v[child];                                              \
            v[child] = tmp;                                                  \
            root = child;                                                    \
        }                                                                    \
    }                                                                        \
    static void name(type *v, size_t n)                                      \
    {                                                                        \
        size_t i;                                                            \
        if (n < 2)                                                           \
            return;                                                          \
        for (i = n / 2; i-- > 0;)                                            \
            name##_sift_down(v, i, n);                                       \
        for (i = n - 1; i > 0; i--) {                                        \
            type tmp = v[0];                                                 \
            v[0] = v[i];                                                     \
            v[i] = tmp;                                                      \
            name##_sift_down(v, 0, i);                                       \
        }                                                                    \
    }

#endif /* KVGOLD_SRC_COMMON_HEAPSORT_H */
