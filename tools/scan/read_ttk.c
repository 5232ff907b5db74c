/* placeholder */
#include "read_common.h"
#include "fileio.h"
kvg_status kvg_scan_read_ttk(const char *path, kvg_scan_list *l, kvg_diag *diag)
{
    (void)l;
    return kvg_fs_fail(diag, KVG_ERR_IO, "scan", "%s: the ttk reader is not done", path);
}
int kvg_scan_ttk_name(const char *name, char *role, int *index, kvg_scan_arg *a)
{ (void)name; (void)role; (void)index; (void)a; return 0; }
