"""python3 -m kvgold.ttk: print the directory to give ops-test-kit's
--plugin (docs/ttk.md)."""
import kvgold.ttk

print(kvgold.ttk.PLUGIN_DIR)
