"""An operator is its own folders plus a few extension points
(docs/architecture.md, "Adding an operator"): outside its own folders no
file names it except the extension points listed below, and there are at
most MAX_PLACES of them. A file that names an operator elsewhere is a
shared file that knows its users (a list to edit for every new operator,
or a fact stated twice); this test names the file, the operator and the
line.

An operator is a folder src/ops/<op>/. Its names: <op> itself, its
CamelCase form, and the API names its call bindings
(tools/lib/bindings/<op>.c) give the frameworks' calls ("npu_..."). A
match inside a longer name of another operator (foo_bar inside
foo_bar_baz) belongs to that one.

Its own folders: src/ops/<op>/, include/kvgold/<op>.h, tests/ops/<op>/,
vectors/<op>/, docs/<op>.md and the generator modules whose file name holds
<op> (tools/gen/kvgen/). Documentation (README.md, docs/) names operators
by design and is not counted; neither are the vectors (vectors/<op>/ is
the operator's own). The generic fuzz targets' corpora and regressions
(tests/fuzz/corpus, tests/fuzz/regress) are read whole, whatever their
file names: a seed that names an operator (to get past a reader's lookup)
is that operator's, in tests/ops/<op>/seeds/<target>/. Not counted either:
a pointer to an operator's page (docs/<op>.md), which is a reference, not
knowledge; nor what a build or a tool leaves in the tree (dot folders).

usage: op_names.py ROOT         check the tree at ROOT
       op_names.py --self-test  the checker finds a planted name
"""
import os
import re
import sys
import tempfile

MAX_PLACES = 6

# The extension points (docs/architecture.md lists each): {path pattern},
# "{op}" standing for the operator's folder name.
EXTENSION_POINTS = (
    "src/registry/registry.c",
    "include/kvgold/kvgold.h",
    "tools/lib/bindings/{op}.c",
    "tools/python/kvgold/ops/{op}.py",
    "tools/bench/shapes/{op}.py",
    # the big-dump benchmark is one workload of one operator by definition
    "tools/bench/bigdump.py",
)

SCANNED = (".c", ".h", ".py", ".sh", ".cmake", ".txt", ".in", ".json",
           ".toml", ".yaml", ".cfg")
SKIPPED_DIRS = ("build", "vectors", "docs")  # top-level folders


def operators(root):
    base = os.path.join(root, "src", "ops")
    return sorted(d for d in os.listdir(base)
                  if os.path.isdir(os.path.join(base, d)))


def camel(op):
    return "".join(p[:1].upper() + p[1:] for p in op.split("_"))


def api_names(root, op):
    path = os.path.join(root, "tools", "lib", "bindings", op + ".c")
    if not os.path.exists(path):
        return set()
    with open(path, errors="replace") as f:
        text = f.read()
    names = set()
    for lit in re.findall(r'"([^"\\\n]*)"', text):
        lit = lit.rsplit(".", 1)[-1]
        if re.fullmatch(r"_?npu_\w+", lit):
            names.add(lit)
    return names


def spellings(root, ops):
    """[(spelling, op)], longest first."""
    out = []
    for op in ops:
        for s in {op, camel(op)} | api_names(root, op):
            out.append((s, op))
    return sorted(out, key=lambda p: -len(p[0]))


def own(path, op, ops):
    """Whether path is in op's own folders; a generator module belongs to
    the longest operator name its file name holds."""
    if path.startswith("tools/gen/kvgen/"):
        base = os.path.basename(path)
        holders = [o for o in ops if o in base]
        return bool(holders) and max(holders, key=len) == op
    return (path.startswith(("src/ops/%s/" % op, "tests/ops/%s/" % op))
            or path in ("include/kvgold/%s.h" % op, "docs/%s.md" % op))


def extension_point(path, op, text=""):
    """A file an operator may be named in. Besides EXTENSION_POINTS: a
    binding that declares a composite (a chain of other operators' calls,
    tools/lib/bindings/binding.h) names the operators its chain links -
    counted, so the limit of MAX_PLACES holds for them too."""
    if any(path == p.format(op=op) for p in EXTENSION_POINTS):
        return True
    m = re.fullmatch(r"tools/lib/bindings/(\w+)\.c", path)
    return bool(m) and re.search(
        r"^const kvg_binding_composite kvg_composite_%s\b" % m.group(1),
        text, re.M) is not None


# read whole, every file whatever its name
DATA_DIRS = ("tests/fuzz/corpus/", "tests/fuzz/regress/")


def files(root):
    for d, dirs, names in os.walk(root):
        rel = os.path.relpath(d, root).replace(os.sep, "/")

        def keep(x):
            path = x if rel == "." else rel + "/" + x
            return not (x.startswith(".") or x == "__pycache__"
                        or path in SKIPPED_DIRS)
        dirs[:] = [x for x in dirs if keep(x)]
        for n in names:
            path = os.path.normpath(os.path.join(rel, n)).replace(os.sep, "/")
            if path == "README.md" or not (n.endswith(SCANNED)
                                           or n == "CMakeLists.txt"
                                           or path.startswith(DATA_DIRS)):
                continue
            yield path


def named(text, spelled):
    """{op: first line naming it} in text."""
    # (start, end) of longer names already attributed, and the doc pointers
    taken = [m.span() for m in re.finditer(r"docs/\w+\.md", text)]
    found = {}
    for s, op in spelled:
        for m in re.finditer(r"(?<![A-Za-z0-9])" + re.escape(s), text):
            a, b = m.start(), m.end()
            if any(x <= a and b <= y for x, y in taken):
                continue
            taken.append((a, b))
            found.setdefault(op, text.count("\n", 0, a) + 1)
    return found


def check(root):
    ops = operators(root)
    spelled = spellings(root, ops)
    places = {op: [] for op in ops}
    linking = set()  # composite bindings (extension_point)
    for path in files(root):
        with open(os.path.join(root, path), errors="replace") as f:
            text = f.read()
        if extension_point(path, "", text):
            linking.add(path)
        for op, line in named(text, spelled).items():
            if not own(path, op, ops):
                places[op].append((path, line))
    bad = 0
    for op in ops:
        listed = sorted(places[op])
        def point(p):
            return extension_point(p, op) or p in linking
        stray = [(p, n) for p, n in listed if not point(p)]
        print("%s: %d place(s) outside its own folders" % (op, len(listed)))
        for p, n in listed:
            print("  %s:%d%s" % (p, n, "" if point(p)
                                 else "  <- not an extension point"))
        if stray or len(listed) > MAX_PLACES:
            bad = 1
    if bad:
        print("FAIL: an operator is named outside its own folders and the "
              "extension points of docs/architecture.md, or in more than %d "
              "places" % MAX_PLACES)
    return bad


def self_test():
    with tempfile.TemporaryDirectory() as root:
        for d in ("src/ops/foo_bar", "src/ops/foo_bar_baz", "src/registry",
                  "tools/lib/bindings", "tools/lib/scan"):
            os.makedirs(os.path.join(root, d))
        with open(os.path.join(root, "src/registry/registry.c"), "w") as f:
            f.write("kvg_i_op_foo_bar; kvg_i_op_foo_bar_baz;\n")
        with open(os.path.join(root, "tools/lib/bindings/foo_bar.c"),
                  "w") as f:
            f.write('"torch_npu.npu_foo_thing"\n')
        clean = check(root)
        with open(os.path.join(root, "tools/lib/scan/scan.c"), "w") as f:
            f.write("/* FooBarBaz is not FooBar */ npu_foo_thing();\n")
        planted = check(root)
        os.remove(os.path.join(root, "tools/lib/scan/scan.c"))
        seed = os.path.join(root, "tests/fuzz/corpus/case/found/0a1b")
        os.makedirs(os.path.dirname(seed))
        with open(seed, "w") as f:  # no extension: a libFuzzer find
            f.write('{"op": "foo_bar"}')
        seeded = check(root)
        own_only = named("FooBarBaz", spellings(root, operators(root)))
    if clean or not planted or not seeded or \
            set(own_only) != {"foo_bar_baz"}:
        print("self-test FAILED: clean %d, planted %d, seeded %d, %r"
              % (clean, planted, seeded, own_only))
        return 1
    print("self-test: a planted name is found (a generic fuzz seed's too), "
          "a longer name is its own")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(check(sys.argv[1] if len(sys.argv) > 1 else "."))
