#!/usr/bin/env python3
"""Generate kvgold's golden vectors, or check that the committed ones
regenerate byte for byte.

    gen_vectors.py --out DIR [--only NAME ...]   write vectors under DIR
    gen_vectors.py --check DIR                    regenerate into a temporary
                                                  directory and compare with DIR

Every module kvgen/cases_<name>.py contributes the directory DIR/<NAME>
through its generate(dir) function. Needs NumPy (Debian: python3-numpy,
interpreter /usr/bin/python3).
"""
import argparse
import filecmp
import importlib
import os
import pkgutil
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kvgen  # noqa: E402


def generators():
    mods = []
    for info in sorted(pkgutil.iter_modules(kvgen.__path__),
                       key=lambda m: m.name):
        if info.name.startswith("cases_"):
            mod = importlib.import_module("kvgen." + info.name)
            mods.append(mod)
    return mods


def generate(out, only=None):
    for mod in generators():
        if only and mod.NAME not in only:
            continue
        target = os.path.join(out, mod.NAME)
        if os.path.isdir(target):
            shutil.rmtree(target)
        os.makedirs(target)
        mod.generate(target)
        print("generated %s" % target)


def tree(root):
    files = []
    for dirpath, _dirs, names in os.walk(root):
        for n in names:
            files.append(os.path.relpath(os.path.join(dirpath, n), root))
    return sorted(files)


def check(committed):
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        produced = set(tree(tmp))
        names = [m.NAME for m in generators()]
        present = set(f for f in tree(committed)
                      if f.split(os.sep)[0] in names)
        for f in sorted(produced - present):
            print("MISSING in %s: %s" % (committed, f))
            bad += 1
        for f in sorted(present - produced):
            print("EXTRA in %s (not generated): %s" % (committed, f))
            bad += 1
        for f in sorted(produced & present):
            if not filecmp.cmp(os.path.join(tmp, f),
                               os.path.join(committed, f), shallow=False):
                print("DIFFERS: %s" % f)
                bad += 1
        print("%d files compared, %d problems"
              % (len(produced | present), bad))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="write vectors under this directory")
    ap.add_argument("--only", nargs="*", help="generator names to run")
    ap.add_argument("--check", help="committed vector directory to verify")
    a = ap.parse_args()
    if a.check:
        return check(a.check)
    if not a.out:
        ap.error("give --out DIR or --check DIR")
    generate(a.out, a.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
