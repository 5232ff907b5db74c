/*
 * tools/lib/scan/cann_aclnn.h - the aclnn operator dump's file names, and
 * the pairing of one launch's two files (its inputs, dumped before the
 * launch, and its outputs, after it) into one call (docs/scan.md, "CANN
 * operator dumps"). Below read_cann.c and detect.c; names no operator.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_SCAN_CANN_ACLNN_H
#define KVGOLD_TOOLS_SCAN_CANN_ACLNN_H

#include <stddef.h>
#include <stdint.h>

#include "scan.h"

typedef enum kvg_cann_name_kind {
    KVG_CANN_PLAIN,       /* "<op type>.<op name>.<task>.<stream>.<time>" */
    KVG_CANN_ACLNN_INDV,  /* "L2DfxAbscent_<n>._L0<op type>...." */
    KVG_CANN_ACLNN_L2,    /* "<aclnn API>_<n>_L0.<L0 name>...." */
    KVG_CANN_ACLNN_BAD    /* looks like an aclnn dump, is neither */
} kvg_cann_name_kind;

typedef struct kvg_cann_name {
    kvg_cann_name_kind kind;
    /* the kernel's op type (plain: the name's first field; an individual
     * aclnn op's: its op name after "_L0"; a composite's: its L0 name) */
    char type[KVG_SCAN_NAME_MAX];
    /* the files that may be one launch's: same op type and name but for
     * an individual op's sequence number, same stream id */
    char group[3 * KVG_SCAN_NAME_MAX];
    /* their order: an individual op's sequence number, a composite's
     * timestamp */
    uint64_t order;
    char why[KVG_SCAN_REASON_MAX / 2]; /* KVG_CANN_ACLNN_BAD: what is odd */
} kvg_cann_name;

/* File name `base` as a CANN dump file's: 0 when it is none (fewer than
 * 4 dots, an empty or over-long first field), else 1 with *n filled. */
int kvg_scan_cann_parse(const char *base, kvg_cann_name *n);

/* The kernel op type a dump file name `base` gives (as kvg_scan_cann_name
 * gives the first field, but an aclnn operator dump's kernel for its
 * names): 1 and `type`, or 0 for no dump name or an unparseable one. */
int kvg_scan_cann_kernel(const char *base, char *type, size_t cap);

/* Pair the aclnn operator dump calls l->calls[first..] (one directory's,
 * in launch order): each input file with the output file of its launch,
 * when the rule of docs/scan.md holds for its whole group, as one call
 * whose inputs are the pre-launch ones (inputs_after cleared); every
 * other input or output file NOT JUDGED saying why. KVG_OK or
 * KVG_ERR_NOMEM. */
kvg_status kvg_scan_cann_pair(kvg_scan_list *l, size_t first,
                              kvg_diag *diag);

#endif /* KVGOLD_TOOLS_SCAN_CANN_ACLNN_H */
