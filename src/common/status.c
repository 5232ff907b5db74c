/*
 * src/common/status.c - status names and diagnostics.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kvgold/api.h"
#include "src/common/internal.h"

/* Every code once, in the enum's order, with its name: the one list of
 * them (kvg_status_name, kvg_status_count / kvg_status_at). test_abi
 * holds this list to the contract's codes, so a code added to the enum
 * and not here fails there. */
#define KVG_STATUS_ROW(code) {code, #code}
static const struct status_row {
    kvg_status code;
    const char *name;
} all_statuses[] = {
    KVG_STATUS_ROW(KVG_OK),
    KVG_STATUS_ROW(KVG_ERR_PARAM_NULLPTR),
    KVG_STATUS_ROW(KVG_ERR_PARAM_INVALID),
    KVG_STATUS_ROW(KVG_ERR_WORKSPACE),
    KVG_STATUS_ROW(KVG_ERR_IO),
    KVG_STATUS_ROW(KVG_ERR_FILE_FORMAT),
    KVG_STATUS_ROW(KVG_ERR_NOMEM),
    KVG_STATUS_ROW(KVG_ERR_MISMATCH),
};
#undef KVG_STATUS_ROW

size_t kvg_status_count(void)
{
    return sizeof all_statuses / sizeof all_statuses[0];
}

kvg_status kvg_status_at(size_t i)
{
    return i < kvg_status_count() ? all_statuses[i].code : KVG_OK;
}

const char *kvg_status_name(kvg_status status)
{
    size_t i;
    for (i = 0; i < kvg_status_count(); i++)
        if (all_statuses[i].code == status)
            return all_statuses[i].name;
    return "KVG_ERR_UNKNOWN";
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
