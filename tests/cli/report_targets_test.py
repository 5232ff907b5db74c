"""tests/cli/report_targets_test.py - where the kvgold commands that write
a report (scan --junit/--html, check and compare --cases --junit, prepare
--csv, compare --html/--junit/--csv) may write it (issue 32), and compare's
messages of round two.

    report_targets_test.py KVGOLD VECTORS WORKDIR SCENARIO

Each scenario runs the real command and asserts its exit status, what its
message says, and that every file it reads is byte for byte what it was
(a SHA-256 of every file below the protected roots, and the kind of each
entry, before and after): a refused report never replaces an input, a
device, a FIFO, or another report. The dumps are written by
tests/python/scan/scan_dumps.py from the committed vectors, as the scan
tests write them. Run with Debian's /usr/bin/python3 (NumPy)."""
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import threading

KVGOLD, VECTORS, WORK, SCENARIO = sys.argv[1:5]
os.environ["KVG_VECTORS_DIR"] = VECTORS
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python", "scan"))
import scan_dumps as sd  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
from samples import case_doc, sample_case  # noqa: E402


def _fits(doc):
    """an honest case with two expected outputs and an input in a .npy
    file"""
    return ("expect_error" not in doc and len(doc.get("expected", {})) == 2
            and any(e["file"].endswith(".npy")
                    for e in doc["inputs"].values()))


# Some operator's cases (samples.sample_case), what the scenarios read
# from them, and the operator whose writer writes the dumps: none named.
CASE = sample_case(_fits)
CASE2 = sample_case(_fits, skip=(CASE,))
# prepare writes the torch_npu call of a case: an operator that has one
PREPARE_CASE = sample_case(_fits, needs=("prepare_cases.py",))
IN_FILE = [e["file"] for e in case_doc(CASE)["inputs"].values()
           if e["file"].endswith(".npy")][0]
OUT1, OUT2 = case_doc(CASE)["expected"]
CANN = sd.first("cann", "SAMPLE")
MSPROBE = sd.first("msprobe", "SAMPLE")

FAILS = []
W = os.path.join(WORK, "reports_" + SCENARIO)
shutil.rmtree(W, ignore_errors=True)
os.makedirs(W)
os.chdir(W)


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def run(*args, want=None, has=(), lacks=()):
    """Run kvgold ARGS; check the exit status and the text of stdout +
    stderr. Returns (status, text)."""
    p = subprocess.run([KVGOLD] + [str(a) for a in args],
                       capture_output=True, text=True, env=sd.cli_env(),
                       timeout=120)
    text = p.stdout + p.stderr
    where = "kvgold " + " ".join(str(a) for a in args)
    if want is not None and p.returncode != want:
        fail("%s: exit %d, expected %d\n%s" % (where, p.returncode, want,
                                              text))
    for h in has:
        if h not in text:
            fail("%s: output lacks %r\n%s" % (where, h, text))
    for h in lacks:
        if h in text:
            fail("%s: output has %r\n%s" % (where, h, text))
    return p.returncode, text


def snapshot(*roots):
    """What is at and below each root: kind and, for a file, its SHA-256;
    a symlink's target; a device's numbers. Never follows a symlink."""
    snap = {}

    def one(p):
        st = os.lstat(p)
        if stat.S_ISLNK(st.st_mode):
            snap[p] = ("link", os.readlink(p))
        elif stat.S_ISREG(st.st_mode):
            with open(p, "rb") as f:
                snap[p] = ("file", hashlib.sha256(f.read()).hexdigest(),
                           st.st_ino)
        elif stat.S_ISDIR(st.st_mode):
            snap[p] = ("dir",)
        else:
            snap[p] = ("special", stat.S_IFMT(st.st_mode), st.st_rdev,
                       st.st_ino)
    for r in roots:
        if not os.path.lexists(r):
            snap[r] = ("absent",)
            continue
        one(r)
        if os.path.isdir(r) and not os.path.islink(r):
            for dp, dns, fns in os.walk(r):
                for n in sorted(dns + fns):
                    one(os.path.join(dp, n))
    return snap


def unchanged(before, *roots):
    """Everything below `roots` is as `before` said (which may hold more)."""
    after = snapshot(*roots)
    before = {p: v for p, v in before.items()
              if any(p == r or p.startswith(r.rstrip("/") + "/")
                     for r in roots)}
    if after != before:
        diff = sorted(set(before.items()) ^ set(after.items()))
        fail("protected files changed: %s" % diff[:6])


def cann_dump():
    """A CANN dump directory of two launches (one with a planted fault)
    and the path of the first launch's file."""
    root = os.path.join(W, "dump", "20260101", "0")
    CANN.cann(CANN.case(CANN.SAMPLE), root, "call_1", 1)
    bad = CANN.case(CANN.SAMPLE)
    sd.plant_fault(bad)
    CANN.cann(bad, root, "call_2", 2)
    first = [os.path.join(root, n) for n in sorted(os.listdir(root))][0]
    return os.path.join(W, "dump"), first


def device_or_none(path):
    """A character device node made with mknod (as root), the numbers of
    /dev/null, in the test's own directory; None when not root."""
    if os.geteuid() != 0:
        return None
    rdev = os.stat("/dev/null").st_rdev
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, rdev)
    except OSError as e:
        print("note: mknod %s: %s; the device case is skipped" % (path, e))
        return None
    return path


def valid_xml(path):
    import xml.etree.ElementTree as ET
    try:
        return ET.parse(path).getroot()
    except Exception as e:  # noqa: BLE001 - any parse error is a failure
        fail("%s is not well-formed XML: %s" % (path, e))
        return None


def make_case_copy(case, where):
    dst = os.path.join(W, where)
    shutil.copytree(case, dst, symlinks=True)
    return dst


# ---- scan -------------------------------------------------------------------

def scan_dump_file():
    """--junit / --html at the CANN dump file being scanned, or a link to
    it: refused before judging; the file keeps its bytes."""
    dump, f = cann_dump()
    before = snapshot(dump)
    stop = "nothing was judged or written"
    run("scan", f, "--junit", f, want=2,
        has=("kvgold: scan: --junit %s: is the dump file being scanned" % f,
             stop))
    run("scan", f, "--html", f, want=2,
        has=("--html %s: is the dump file being scanned" % f,))
    os.link(f, "hard.xml")
    os.symlink(f, "soft.xml")
    run("scan", f, "--junit", "hard.xml", want=2,
        has=("--junit hard.xml: is the dump file being scanned",))
    run("scan", f, "--junit", "soft.xml", want=2,
        has=("--junit soft.xml: is the dump file being scanned",))
    # and scanning the directory: the file is among the dumps
    run("scan", dump, "--junit", f, want=2,
        has=("is in the dump being scanned %s" % dump,
             "a report is never written among the dumps"))
    unchanged(before, dump)
    if not os.path.islink("soft.xml") or os.path.samefile("hard.xml", f) \
            is not True:
        fail("the links were replaced")
    # a report beside the file is fine
    rc, _ = run("scan", f, "--junit", "ok.xml", want=0)
    valid_xml("ok.xml")
    unchanged(before, dump)


def scan_in_dir():
    """A report anywhere in the scanned directory tree is refused: a new
    file, a dump file, msprobe's dump.json, through a symlinked directory,
    and a hard or symbolic link elsewhere to a dump file."""
    dump, f = cann_dump()
    ms = os.path.join(W, "ms")
    step = sd.MsprobeStep(ms)
    MSPROBE.msprobe(step, MSPROBE.case(MSPROBE.SAMPLE))
    step.save()
    dj = os.path.join(ms, "step0", "rank0", "dump.json")
    before = snapshot(dump, ms)
    sub = os.path.dirname(f)
    for target in (os.path.join(dump, "j.xml"), os.path.join(sub, "j.xml"),
                   f):
        run("scan", dump, "--junit", target, want=2,
            has=("--junit %s: is in the dump being scanned %s" % (target,
                                                                 dump),))
        run("scan", dump, "--html", target, want=2,
            has=("--html %s: is in the dump being scanned" % target,))
    run("scan", ms, "--junit", dj, want=2,
        has=("--junit %s: is in the dump being scanned %s" % (dj, ms),))
    os.symlink(sub, "into")
    run("scan", dump, "--junit", "into/j.xml", want=2,
        has=("--junit into/j.xml: is in the dump being scanned",))
    os.link(f, "hard.xml")
    run("scan", dump, "--junit", "hard.xml", want=2,
        has=("--junit hard.xml: is the same file as", "in the dump being "
             "scanned %s (same device and inode)" % dump))
    os.symlink(dj, "soft.xml")
    run("scan", ms, "--junit", "soft.xml", want=2,
        has=("--junit soft.xml: is the same file as ",
             "dump.json in the dump being scanned %s" % ms))
    # a symbolic link in the dump that leads to the report's file: the
    # report would replace what the dump refers to
    with open("victim.xml", "w") as v:
        v.write("OLD")
    os.symlink(os.path.join(W, "victim.xml"), os.path.join(sub, "ref.bin"))
    before = snapshot(dump, ms, "victim.xml")
    run("scan", dump, "--junit", "victim.xml", want=2,
        has=("--junit victim.xml: is the same file as %s"
             % os.path.join(sub, "ref.bin"),))
    # pages directory inside the dump: --html beside a dump named X_calls
    os.rename(dump, os.path.join(W, "r_calls"))
    run("scan", "r_calls", "--html", "r.html", want=2,
        has=("--html's pages directory r_calls: is in the dump being "
             "scanned r_calls",))
    os.rename(os.path.join(W, "r_calls"), dump)
    unchanged(before, dump, ms, "victim.xml")
    for junk in ("into/j.xml", "r.html", "j.xml"):
        if os.path.lexists(junk):
            fail("%s was written" % junk)


def scan_special():
    """A FIFO, a character device (root: made with mknod here), a symlink
    to one, a directory: refused before judging, still what they were."""
    dump, f = cann_dump()
    os.mkfifo("fifo")
    os.symlink("fifo", "fifolink")
    os.mkdir("adir")
    dev = device_or_none(os.path.join(W, "chardev"))
    before = snapshot(dump, "fifo", "fifolink", "adir", "chardev")
    run("scan", dump, "--junit", "fifo", want=2,
        has=("kvgold: scan: --junit fifo: is a FIFO",
             "nothing was judged or written"))
    run("scan", dump, "--html", "fifo", want=2,
        has=("--html fifo: is a FIFO",))
    run("scan", dump, "--junit", "fifolink", want=2,
        has=("--junit fifolink: is a symbolic link to a FIFO",))
    run("scan", dump, "--junit", "adir", want=2,
        has=("--junit adir: is a directory",))
    run("scan", dump, "--junit", "adir/", want=2,
        has=("--junit adir/: names a directory",))
    run("scan", dump, "--junit", "no/such/j.xml", want=2,
        has=("--junit no/such/j.xml: its directory no/such: No such file "
             "or directory",))
    if dev is not None:
        run("scan", dump, "--junit", dev, want=2,
            has=("kvgold: scan: --junit %s: is a character device" % dev,))
        run("scan", dump, "--html", dev, want=2,
            has=("--html %s: is a character device" % dev,))
        if not stat.S_ISCHR(os.lstat(dev).st_mode):
            fail("the device node was replaced")
    # the pages directory: a FIFO or a file where FILE_calls goes
    os.mkfifo("p_calls")
    with open("q_calls", "w") as q:
        q.write("OLD")
    before2 = snapshot("p_calls", "q_calls")
    run("scan", dump, "--html", "p.html", want=2,
        has=("--html's pages directory p_calls: is a FIFO",))
    run("scan", dump, "--html", "q.html", want=2,
        has=("--html's pages directory q_calls: is a regular file, not a "
             "directory",))
    unchanged(before2, "p_calls", "q_calls")
    unchanged(before, dump, "fifo", "fifolink", "adir", "chardev")
    for junk in ("p.html", "q.html"):
        if os.path.lexists(junk):
            fail("%s was written" % junk)


def scan_tmp_symlink():
    """The old fixed temporary name FILE.kvgold-tmp: a symlink planted
    there is not written through; the report is written whole; two scans
    writing one report at once leave one whole, well-formed report."""
    dump, f = cann_dump()
    with open("victim", "w") as v:
        v.write("VICTIM")
    os.symlink(os.path.join(W, "victim"), "j.xml.kvgold-tmp")
    os.symlink(os.path.join(W, "victim"), "h.html.kvgold-tmp")
    before = snapshot(dump, "victim", "j.xml.kvgold-tmp",
                      "h.html.kvgold-tmp")
    rc, _ = run("scan", dump, "--junit", "j.xml", "--html", "h.html",
                want=1)
    unchanged(before, dump, "victim", "j.xml.kvgold-tmp",
              "h.html.kvgold-tmp")
    root = valid_xml("j.xml")
    if root is not None and len(list(root.iter("testcase"))) != 2:
        fail("j.xml has %d testcases, expected 2"
             % len(list(root.iter("testcase"))))
    if "call_" not in open("h.html").read():
        fail("h.html links no call page")
    left = sorted(n for n in os.listdir(W) if "kvgold-" in n and
                  not n.endswith("kvgold-tmp"))
    if left:
        fail("temporary files left: %s" % left)
    # two at once, several times: each ends with its verdict, the file is
    # one whole report
    for _ in range(3):
        res = []

        def one():
            p = subprocess.run([KVGOLD, "scan", dump, "--junit", "same.xml",
                                "--jobs", "1"], capture_output=True,
                               text=True, env=sd.cli_env())
            res.append((p.returncode, p.stderr))
        th = [threading.Thread(target=one) for _ in range(2)]
        for t in th:
            t.start()
        for t in th:
            t.join()
        for rc, err in res:
            if rc != 1:
                fail("a concurrent scan exited %d: %s" % (rc, err))
        valid_xml("same.xml")
    unchanged(before, dump, "victim", "j.xml.kvgold-tmp",
              "h.html.kvgold-tmp")


def scan_same_twice():
    """--junit X --html X is one file twice: refused, X never written."""
    dump, f = cann_dump()
    before = snapshot(dump)
    run("scan", dump, "--junit", "x", "--html", "x", want=2,
        has=("--html x: is the same file as --junit x",
             "each report needs a file of its own"))
    run("scan", dump, "--junit", "x", "--html", "./x", want=2,
        has=("--html ./x: is the same file as --junit x",))
    # the pages directory is not the junit file either
    run("scan", dump, "--junit", "r_calls", "--html", "r.html", want=2,
        has=("--html's pages directory r_calls: is the same file as --junit "
             "r_calls",))
    for junk in ("x", "r_calls", "r.html"):
        if os.path.lexists(junk):
            fail("%s was written" % junk)
    unchanged(before, dump)


def scan_all_or_nothing():
    """--html at a directory: exit 2 before judging, the JUnit file keeps
    its old bytes (it used to be replaced first); a good pair is written
    together."""
    dump, f = cann_dump()
    with open("j.xml", "w") as j:
        j.write("OLD")
    os.mkdir("hdir")
    before = snapshot(dump, "j.xml", "hdir")
    run("scan", dump, "--junit", "j.xml", "--html", "hdir", want=2,
        has=("--html hdir: is a directory",),
        lacks=("kvgold scan: ",))  # refused before judging: no report
    unchanged(before, dump, "j.xml", "hdir")
    if os.path.exists("hdir_calls"):
        fail("the pages directory was made for a refused --html")
    run("scan", dump, "--junit", "j.xml", "--html", "h.html", want=1)
    valid_xml("j.xml")
    if not os.path.isdir("h_calls") or not os.listdir("h_calls"):
        fail("h_calls holds no page")
    unchanged(before, dump, "hdir")


# ---- check and compare --cases --junit --------------------------------------

def check_junit():
    """check --junit: never a case's file, never in a case directory, never
    a device or a FIFO; compare --cases --junit: never the list file nor
    in an NPU_DIR. The cases keep their bytes."""
    a = make_case_copy(CASE, "cases/a")
    b = make_case_copy(CASE2, "cases/b")
    os.mkfifo("fifo")
    dev = device_or_none(os.path.join(W, "chardev"))
    before = snapshot("cases", "fifo", "chardev")
    stop = "nothing was run"
    for target, why in (
            (os.path.join(a, "case.json"), "is in the case directory " + a),
            (os.path.join(b, "new.xml"), "is in the case directory " + b),
            ("fifo", "is a FIFO"), ("cases", "is a directory")):
        run("check", a, b, "--junit", target, want=2,
            has=("kvgold: check: --junit %s: %s" % (target, why), stop),
            lacks=("PASS",))
    os.link(os.path.join(a, IN_FILE), "hard.xml")
    run("check", "cases", "--junit", "hard.xml", want=2,
        has=("--junit hard.xml: is the same file as %s in the case "
             "directory" % os.path.join("cases", "a", IN_FILE),))
    os.symlink(os.path.join(a, "case.json"), "soft.xml")
    run("check", a, b, "--jobs", "1", "--junit", "soft.xml", want=2,
        has=("--junit soft.xml: is the same file as",))
    if dev is not None:
        run("check", a, b, "--junit", dev, want=2,
            has=("--junit %s: is a character device" % dev,))
    unchanged(before, "cases", "fifo", "chardev")
    run("check", "cases", "--junit", "j.xml", want=0)
    valid_xml("j.xml")
    # compare --cases: the list file and the NPU dumps are protected
    for c in (a, b):
        os.makedirs(c + "_npu")
        run("run", c, "--out", c + "_npu", want=0)
    with open("list.txt", "w") as f:
        f.write("cases/a cases/a_npu\ncases/b cases/b_npu\n")
    before = snapshot("cases", "list.txt")
    run("compare", "--cases", "list.txt", "--junit", "list.txt", want=2,
        has=("kvgold: compare: --junit list.txt: is the --cases list "
             "list.txt",))
    run("compare", "--cases", "list.txt", "--junit", "cases/b_npu/j.xml",
        want=2, has=("--junit cases/b_npu/j.xml: is in NPU_DIR",))
    unchanged(before, "cases", "list.txt")
    run("compare", "--cases", "list.txt", "--junit", "cj.xml", want=0)
    valid_xml("cj.xml")


# ---- prepare --csv ------------------------------------------------------------

def prepare_csv():
    """prepare --csv: never a file of a case it reads nor in a case
    directory, never inside a replay directory it writes, never a device,
    a FIFO or a directory; nothing is written when refused."""
    name = os.path.basename(PREPARE_CASE)
    c = make_case_copy(PREPARE_CASE, "in/" + name)
    in_file = [e["file"] for e in case_doc(PREPARE_CASE)["inputs"].values()
               if e["file"].endswith(".npy")][0]
    os.mkfifo("fifo")
    os.makedirs("out/" + name)
    dev = device_or_none(os.path.join(W, "chardev"))
    os.link(os.path.join(c, in_file), "hard.csv")
    before = snapshot("in", "fifo", "out", "hard.csv", "chardev")
    stop = "nothing written"
    for target, why in (
            (os.path.join(c, "case.json"), "is in the case directory " + c),
            (os.path.join(c, "cases.csv"), "is in the case directory " + c),
            ("out/%s/cases.csv" % name,
             "is in the replay directory out/" + name),
            ("hard.csv", "is the same file as %s in the case directory"
             % os.path.join(c, in_file)),
            ("fifo", "is a FIFO"), ("in", "is a directory"),
            ("nodir/x.csv", "its directory nodir: No such file or "
             "directory")):
        run("prepare", c, "--out", "out", "--csv", target, want=2,
            has=("kvgold: prepare: --csv %s: %s" % (target, why), stop),
            lacks=("prepared ",))
    if dev is not None:
        run("prepare", c, "--out", "out", "--csv", dev, want=2,
            has=("--csv %s: is a character device" % dev,))
    unchanged(before, "in", "fifo", "out", "hard.csv", "chardev")
    run("prepare", c, "--out", "out", "--csv", "cases.csv", want=0,
        has=("wrote cases.csv (1 testcases)",))
    if name not in open("cases.csv").read():
        fail("cases.csv lacks the case's row")
    unchanged(snapshot("in"), "in")


# ---- compare: the reports through the same module, and its messages ----------

def compare_misnamed():
    """An NPU dump named k_cache.bin.bin or k_cache.npy.npy is named as a
    likely rename, in the NOT JUDGED reason and when no output is found."""
    case, a, b = CASE, OUT1, OUT2
    os.makedirs("npu")
    run("run", case, "--out", "npu", want=0)
    os.rename("npu/%s.npy" % a, "npu/%s.bin.bin" % a)
    before = snapshot("npu")
    run("compare", case, "npu", want=1,
        has=("missing: no npu/{0}.npy or {0}.bin; npu has "
             "{0}.bin.bin: renamed?".format(a),))
    unchanged(before, "npu")
    os.rename("npu/%s.bin.bin" % a, "npu/%s.npy.npy" % a)
    run("compare", case, "npu", want=1,
        has=("npu has %s.npy.npy: renamed?" % a,))
    os.rename("npu/%s.npy" % b, "npu/%s.bin.bin" % b)
    before = snapshot("npu")
    run("compare", case, "npu", want=2,
        has=("npu holds none of the outputs (%s.npy, %s.npy); npu has "
             % (a, b), "%s.npy.npy" % a, "%s.bin.bin" % b, "renamed?"))
    unchanged(before, "npu")  # dumps are only read


def compare_only_empty():
    """--only "" (and an empty name in its list) is a usage error naming
    the value, not "holds none of the outputs ()"."""
    case = CASE
    os.makedirs("npu")
    run("run", case, "--out", "npu", want=0)
    for v in ("", ",", OUT1 + ",", "," + OUT1, OUT1 + ",," + OUT2):
        run("compare", case, "npu", "--only", v, want=2,
            has=("compare: --only needs output names separated by commas",
                 "got '%s'" % v),
            lacks=("holds none",))
    with open("list.txt", "w") as f:
        f.write("%s npu\n" % case)
    run("compare", "--cases", "list.txt", "--only", "", want=2,
        has=("--only needs output names",), lacks=("holds none",))
    run("compare", case, "npu", "--only", OUT1, want=0)


def compare_cases_nul():
    """A NUL byte in a short line of a --cases list is said as such."""
    case = CASE
    with open("list.txt", "wb") as f:
        f.write(b"# suite\n" + case.encode() + b" n\0pu\n")
    run("compare", "--cases", "list.txt", want=2,
        has=("kvgold: compare --cases list.txt: line 2 holds a NUL byte",),
        lacks=("longer than",))
    with open("long.txt", "wb") as f:
        f.write(b"x" * 9000 + b" npu\n")
    run("compare", "--cases", "long.txt", want=2,
        has=("long.txt:1: line longer than 8190 bytes",))


def compare_reports():
    """compare's own targets through the shared module: an NPU_DIR's
    subdirectory is among the dumps too; a device is refused."""
    case = make_case_copy(CASE, "c")
    os.makedirs("npu/sub")
    run("run", case, "--out", "npu", want=0)
    dev = device_or_none(os.path.join(W, "chardev"))
    before = snapshot("c", "npu", "chardev")
    run("compare", "c", "npu", "--junit", "npu/sub/j.xml", want=2,
        has=("kvgold: compare: --junit npu/sub/j.xml: is in NPU_DIR npu, "
             "the directory being judged", "nothing was computed or "
             "written"))
    if dev is not None:
        run("compare", "c", "npu", "--csv", dev, want=2,
            has=("--csv %s: is a character device" % dev,))
    unchanged(before, "c", "npu", "chardev")


SCENARIOS = {f.__name__: f for f in (
    scan_dump_file, scan_in_dir, scan_special, scan_tmp_symlink,
    scan_same_twice, scan_all_or_nothing, check_junit, prepare_csv,
    compare_misnamed, compare_only_empty, compare_cases_nul,
    compare_reports)}

if __name__ == "__main__":
    SCENARIOS[SCENARIO]()
    sys.exit(1 if FAILS else 0)
