/*
 * tools/lib/scan/detect.c - which reader a dump needs: its format told from
 * the files it holds (kvg_scan_detect), and the read through that format's
 * reader (kvg_scan_read). Above the readers, which never call back up.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>
#include <string.h>

#include "cann_aclnn.h"
#include "fileio.h"
#include "read_common.h"
#include "scan.h"

typedef struct detect {
    kvg_scan_format f;
} detect;

/* The first directory that says its format (a bounded look: the walk
 * stops at the first hit). */
static int detect_visit(const char *dir, const char *rel, void *user,
                        kvg_diag *diag)
{
    detect *d = (detect *)user;
    char **names;
    size_t n, i;
    int before = 0, after = 0;
    (void)rel;
    if (kvg_scan_names(dir, &names, &n, diag) != KVG_OK) {
        kvg_diag_clear(diag);
        return 1;
    }
    for (i = 0; i < n && d->f == KVG_SCAN_AUTO; i++) {
        char role;
        int idx;
        kvg_scan_arg a;
        before |= strcmp(names[i], "before") == 0;
        after |= strcmp(names[i], "after") == 0;
        if (strcmp(names[i], "dump.json") == 0)
            d->f = KVG_SCAN_MSPROBE;
        else if (kvg_scan_ttk_name(names[i], &role, &idx, &a))
            d->f = KVG_SCAN_TTK;
    }
    kvg_scan_names_free(names, n);
    if (d->f == KVG_SCAN_AUTO && before && after)
        d->f = KVG_SCAN_ATB;
    if (d->f == KVG_SCAN_AUTO) {
        /* a CANN dump file: its name's form and a header that decodes */
        if (kvg_scan_names(dir, &names, &n, diag) != KVG_OK) {
            kvg_diag_clear(diag);
            return 0;
        }
        for (i = 0; i < n && d->f == KVG_SCAN_AUTO; i++) {
            kvg_scan_list l;
            char *path = kvg_path_join(dir, names[i], NULL, NULL);
            char type[KVG_SCAN_NAME_MAX];
            memset(&l, 0, sizeof l);
            /* the kernel an aclnn operator dump's name gives too */
            if (kvg_scan_cann_kernel(names[i], type, sizeof type) &&
                kvg_scan_find(type, KVG_SCAN_CANN, NULL) != NULL)
                d->f = KVG_SCAN_CANN; /* read, even if broken: it says */
            else if (path != NULL && kvg_scan_dots(names[i]) >= 4 &&
                     kvg_scan_kind(path, 1) == 2 &&
                     kvg_scan_read_cann(path, &l, diag) == KVG_OK &&
                     l.count > 0)
                d->f = KVG_SCAN_CANN;
            kvg_scan_list_free(&l);
            kvg_diag_clear(diag);
            free(path);
        }
        kvg_scan_names_free(names, n);
        return d->f != KVG_SCAN_AUTO ? -1 : 0;
    }
    return -1; /* found: stop */
}

kvg_scan_format kvg_scan_detect(const char *path)
{
    detect d;
    kvg_diag diag;
    d.f = KVG_SCAN_AUTO;
    kvg_diag_clear(&diag);
    if (kvg_scan_kind(path, 0) == 2) {
        const char *base = strrchr(path, '/');
        kvg_scan_list l;
        base = base != NULL ? base + 1 : path;
        memset(&l, 0, sizeof l);
        /* a file named as a CANN dump is read as one, so that a broken
         * one is told what is wrong with it */
        if (kvg_scan_dots(base) >= 4 ||
            (kvg_scan_read_cann(path, &l, &diag) == KVG_OK && l.count > 0))
            d.f = KVG_SCAN_CANN;
        kvg_scan_list_free(&l);
        return d.f;
    }
    if (kvg_scan_kind(path, 0) == 1) {
        diag.status = KVG_OK;
        (void)kvg_scan_walk(path, detect_visit, &d, &diag);
    }
    return d.f;
}

kvg_status kvg_scan_read(const char *path, kvg_scan_format f,
                         kvg_scan_list *l, kvg_diag *diag)
{
    switch (f) {
    case KVG_SCAN_MSPROBE: KVG_TRY(kvg_scan_read_msprobe(path, l, diag)); break;
    case KVG_SCAN_ATB: KVG_TRY(kvg_scan_read_atb(path, l, diag)); break;
    case KVG_SCAN_CANN: KVG_TRY(kvg_scan_read_cann(path, l, diag)); break;
    case KVG_SCAN_TTK: KVG_TRY(kvg_scan_read_ttk(path, l, diag)); break;
    default:
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "format", -1, -1,
                            "%s: no format given", path);
    }
    /* the chains of calls that compute a composite, as one call each */
    KVG_TRY(kvg_scan_compose(l, diag));
    /* a missing post-call cache from the next call that reads it */
    kvg_scan_read_back(l);
    return KVG_OK;
}
