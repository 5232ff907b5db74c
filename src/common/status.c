/*
 * src/common/status.c - status names and diagnostics.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kvgold/api.h"
#include "src/common/internal.h"

const char *kvg_status_name(kvg_status status)
{
    switch (status) {
    case KVG_OK: return "KVG_OK";
    case KVG_ERR_PARAM_NULLPTR: return "KVG_ERR_PARAM_NULLPTR";
    case KVG_ERR_PARAM_INVALID: return "KVG_ERR_PARAM_INVALID";
    case KVG_ERR_WORKSPACE: return "KVG_ERR_WORKSPACE";
    case KVG_ERR_IO: return "KVG_ERR_IO";
    case KVG_ERR_FILE_FORMAT: return "KVG_ERR_FILE_FORMAT";
    case KVG_ERR_NOMEM: return "KVG_ERR_NOMEM";
    case KVG_ERR_MISMATCH: return "KVG_ERR_MISMATCH";
    }
    return "KVG_ERR_UNKNOWN";
}

/* Every code once, in the enum's order (kvg_status_at). */
static const kvg_status all_statuses[] = {
    KVG_OK, KVG_ERR_PARAM_NULLPTR, KVG_ERR_PARAM_INVALID, KVG_ERR_WORKSPACE,
    KVG_ERR_IO, KVG_ERR_FILE_FORMAT, KVG_ERR_NOMEM, KVG_ERR_MISMATCH,
};

size_t kvg_status_count(void)
{
    return sizeof all_statuses / sizeof all_statuses[0];
}

kvg_status kvg_status_at(size_t i)
{
    return i < kvg_status_count() ? all_statuses[i] : KVG_OK;
}

void kvg_diag_clear(kvg_diag *diag)
{
    if (diag == NULL)
        return;
    diag->status = KVG_OK;
    diag->tensor[0] = '\0';
    diag->dim = -1;
    diag->position = -1;
    diag->message[0] = '\0';
}

kvg_status kvg_diag_set(kvg_diag *diag, kvg_status status, const char *tensor,
                        int dim, int64_t position, const char *fmt, ...)
{
    va_list ap;

    if (diag == NULL)
        return status;
    diag->status = status;
    diag->dim = dim;
    diag->position = position;
    diag->tensor[0] = '\0';
    if (tensor != NULL) {
        strncpy(diag->tensor, tensor, sizeof diag->tensor - 1);
        diag->tensor[sizeof diag->tensor - 1] = '\0';
    }
    va_start(ap, fmt);
    (void)vsnprintf(diag->message, sizeof diag->message, fmt, ap);
    va_end(ap);
    return status;
}

unsigned kvg_version_number(void) { return KVG_VERSION_NUMBER; }

const char *kvg_version_string(void) { return KVG_VERSION_STRING; }
