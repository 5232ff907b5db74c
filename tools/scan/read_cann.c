/* placeholder */
#include "read_common.h"
#include "fileio.h"
kvg_status kvg_scan_read_cann(const char *path, kvg_scan_list *l, kvg_diag *diag)
{
    (void)l;
    return kvg_fs_fail(diag, KVG_ERR_IO, "scan", "%s: the cann reader is not done", path);
}
kvg_status kvg_scan_cann_header(const unsigned char *buf, size_t len, uint64_t size, const char *file, kvg_scan_call *c, kvg_diag *diag)
{ (void)buf; (void)len; (void)size; (void)file; (void)c; return KVG_ERR_FILE_FORMAT + 0*(diag!=0); }
