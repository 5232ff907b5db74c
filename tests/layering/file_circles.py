"""No circle of files: in src/ and tools/, if file A calls a function
defined in file B, nothing B calls (directly or through other files)
calls back into A (docs/architecture.md, "Downhill"). A circle means two
files are one concern split in two, or a lower layer that knows a higher
one; this test names the files of each circle and the calls that close it.

The call graph is read from the C text: a function is the one non-static
definition of its name in the tree (names defined in several files, such
as each operator's descriptor entry points, make no edge), a call is
`name(` anywhere in another file, comments and string literals removed.

usage: file_circles.py ROOT        check the tree at ROOT
       file_circles.py --self-test the checker finds a planted circle
"""
import os
import re
import sys
import tempfile

DEFINITION = re.compile(
    r"^(?!static)[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;{]*\)\s*\{", re.M)
CALL = re.compile(r"\b(\w+)\s*\(")


def sources(root):
    for top in ("src", "tools"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith(".c"):
                    yield os.path.relpath(os.path.join(d, f), root)


def stripped(path):
    with open(path, errors="replace") as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


def call_graph(root):
    text = {f: stripped(os.path.join(root, f)) for f in sources(root)}
    defined = {}
    for f, t in text.items():
        for m in DEFINITION.finditer(t):
            defined.setdefault(m.group(1), set()).add(f)
    edges = {f: {} for f in text}
    for f, t in text.items():
        for name in set(CALL.findall(t)):
            owners = defined.get(name, ())
            if len(owners) == 1:
                (g,) = owners
                if g != f:
                    edges[f].setdefault(g, []).append(name)
    return edges


def circles(edges):
    """The strongly connected components of more than one file (Tarjan,
    iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def report(edges, comps):
    lines = []
    for comp in comps:
        lines.append("circle of %d files:" % len(comp))
        for f in comp:
            for g in sorted(edges[f]):
                if g in comp:
                    lines.append("  %s -> %s: %s" % (
                        f, g, ", ".join(sorted(edges[f][g]))))
    return "\n".join(lines)


def self_test():
    files = {
        "src/a.c": "int low(void) { return up(); }\n",
        "src/b.c": "/* top() calls low() */\nint up(void) { return 1; }\n"
                   "int top(void) { return low(); }\n",
        "tools/c.c": "static int mine(void) { return 0; }\n"
                     "int alone(void) { return mine() + top(); }\n",
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)),
                        exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        edges = call_graph(root)
        assert circles(edges) == [["src/a.c", "src/b.c"]], circles(edges)
        assert edges["tools/c.c"] == {"src/b.c": ["top"]}, edges
        os.remove(os.path.join(root, "src/a.c"))
        assert circles(call_graph(root)) == []
    print("file_circles: the checker finds a planted circle and only it")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    root = argv[1]
    edges = call_graph(root)
    n = sum(len(e) for e in edges.values())
    if len(edges) < 50 or n < 100:
        print("file_circles: only %d files and %d edges under %s: not the "
              "kvgold tree?" % (len(edges), n, root))
        return 1
    comps = circles(edges)
    if comps:
        print(report(edges, comps))
        return 1
    print("file_circles: %d files, %d file-to-file call edges, no circle"
          % (len(edges), n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
