/*
 * kvgold/status.h - status codes and diagnostics.
 *
 * Every kvgold function that can fail returns a kvg_status. The two
 * parameter codes carry aclnn's numeric values so a test engineer can put a
 * kvgold result next to an aclnn log line; the library's own codes (I/O,
 * workspace, comparison) live in the 170000 range, away from CANN's.
 *
 * Failures also fill an optional, caller-owned kvg_diag with a message that
 * names the tensor, the dimension or position, and expected versus actual.
 * There is no global error state: pass NULL when the message is not wanted.
 * kvg_diag_set and KVG_TRY, below, are how kvgold's own code does both.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_STATUS_H
#define KVGOLD_STATUS_H

#include "kvgold/api.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Numeric values are stable: they are part of the contract. */
typedef enum kvg_status {
    KVG_OK = 0,
    /* A required tensor, its data pointer, or a required argument is NULL. */
    KVG_ERR_PARAM_NULLPTR = 161001,
    /* A dtype, rank, shape, attribute or index value is not accepted. */
    KVG_ERR_PARAM_INVALID = 161002,
    /* The workspace is missing or smaller than the op's *_workspace_size. */
    KVG_ERR_WORKSPACE = 170001,
    /* A file could not be opened, read or written. */
    KVG_ERR_IO = 170002,
    /* A file was read but its content is malformed (.npy, case.json). */
    KVG_ERR_FILE_FORMAT = 170003,
    /* An allocation failed (only the I/O and tool layers allocate). */
    KVG_ERR_NOMEM = 170004,
    /* A comparison ran and at least one tensor failed its criterion. */
    KVG_ERR_MISMATCH = 170005
} kvg_status;

/* Sizes of the fixed text fields of kvg_diag, including the NUL. */
#define KVG_DIAG_NAME_MAX 48
#define KVG_DIAG_MESSAGE_MAX 512

/*
 * What went wrong, for the caller to print or assert on.
 *   status    the code that was returned
 *   tensor    the offending tensor or attribute name ("" if none)
 *   dim       the offending dimension, or -1
 *   position  the offending element / token / head position, or -1
 *   message   a full sentence, e.g.
 *             "k_cache: dim 3 must be 16 (C0 of bf16), got 32"
 */
typedef struct kvg_diag {
    kvg_status status;
    char tensor[KVG_DIAG_NAME_MAX];
    int dim;
    int64_t position;
    char message[KVG_DIAG_MESSAGE_MAX];
} kvg_diag;

/* The enum name of a status ("KVG_ERR_PARAM_INVALID"); never NULL. */
KVG_API const char *kvg_status_name(kvg_status status);

/* ---- enumerating the codes (for bindings, kvgold/abi.h) ----------------
 * Every kvg_status value in a fixed order, KVG_OK first, so that a binding
 * that cannot read this header learns the codes and their names
 * (kvg_status_name) from the library it loads instead of copying them.
 * kvg_status_at returns KVG_OK when i >= kvg_status_count(). */
KVG_API size_t kvg_status_count(void);
KVG_API kvg_status kvg_status_at(size_t i);

/* Reset a diag to "no error" (status KVG_OK, empty strings, -1 fields). */
KVG_API void kvg_diag_clear(kvg_diag *diag);

/* printf format checking of kvg_diag_set's message under gcc and clang. */
#if defined(__GNUC__) || defined(__clang__)
#define KVG_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define KVG_PRINTF_LIKE(f, a)
#endif

/*
 * The one error idiom of kvgold's C code - the library and every C library
 * and program of its tools (the CLI, the readers, the report writers):
 *
 * - A function that can fail returns a kvg_status and takes a caller-owned
 *   `kvg_diag *diag` (NULL allowed: the message is not wanted).
 * - A failure that starts in a function is
 *       return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "index", -1, t,
 *                           "token %lld: slot %lld is out of range", ...);
 *   which fills every field of *diag (status; tensor, "" when NULL - the
 *   tensor, attribute, file or field the message is about; dim and
 *   position, -1 when not applicable; the message, cut to
 *   KVG_DIAG_MESSAGE_MAX - 1 bytes) and returns `status`. A NULL diag only
 *   returns `status`.
 * - A step whose failure the function simply passes up is written
 *       KVG_TRY(step(..., diag));
 *   which returns the step's status, its diag already filled, unless it
 *   is KVG_OK (zstd's FORWARD_IF_ERROR). A function that must undo
 *   something first (free, close, unlink) tests the status itself.
 * - Only programs print: a library puts the sentence in the diag and its
 *   caller decides where it goes.
 */
KVG_API kvg_status kvg_diag_set(kvg_diag *diag, kvg_status status,
                                const char *tensor, int dim,
                                int64_t position, const char *fmt, ...)
    KVG_PRINTF_LIKE(6, 7);

/* Return the status of `expr` from the calling function unless it is
 * KVG_OK; the callee has filled the diag. */
#define KVG_TRY(expr)                                                        \
    do {                                                                     \
        const kvg_status kvg_try_status_ = (expr);                           \
        if (kvg_try_status_ != KVG_OK)                                       \
            return kvg_try_status_;                                          \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_STATUS_H */
