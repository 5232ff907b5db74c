/* placeholder */
#include "read_common.h"
#include "fileio.h"
kvg_status kvg_scan_read_msprobe(const char *path, kvg_scan_list *l, kvg_diag *diag)
{
    (void)l;
    return kvg_fs_fail(diag, KVG_ERR_IO, "scan", "%s: the msprobe reader is not done", path);
}
