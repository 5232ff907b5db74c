"""python3 -m kvgold.ttk [DIR]: write the ops-test-kit plug-in into DIR
(else $KVGOLD_TTK_PLUGIN, else kvgold's directory in the user's cache) and
print the directory to give ops-test-kit's --plugin (docs/ttk.md)."""
import sys

import kvgold
import kvgold.ttk

if len(sys.argv) > 2:
    sys.exit("usage: python3 -m kvgold.ttk [DIR]")
try:
    print(kvgold.ttk.plugin_dir(sys.argv[1] if len(sys.argv) == 2 else None))
except kvgold.Error as e:
    sys.exit(str(e))
