#!/usr/bin/python3
"""tests/report/report_test.py - `kvgold compare`'s report files, checked
from the outside.

  report_test.py files   KVGOLD VECTORS WORKDIR
      JUnit XML validated against the structure of the JUnit schema
      (testsuites > testsuite > testcase > failure|skipped, required
      attributes, counts that agree), CSV parsed back (one row per tensor,
      every column), HTML self-contained (no script, nothing fetched),
      the three written only after a valid comparison, errors naming the file.
  report_test.py browser KVGOLD VECTORS WORKDIR [--doc-dir DIR]
      renders the demo's HTML in headless Chromium and checks the picture:
      not blank, and the DeepSeek kernel's bug (token 3 written to slot 73
      of block 1 instead of slot 72, tests/cli/cli_test.sh "examples") shows
      as an "untouched but changed" cell at slot 73 and a bad cell at slot
      72, and nowhere else; the Qwen3 kernel's q_out histogram shows bars
      beyond tolerance. Exit 77 (skipped) only when chromium is absent.
      --doc-dir writes the two pictures docs/usage.md shows (run it from
      the repository root with VECTORS = vectors, so titles are relative).

Only the standard library, plus Debian's python3-pil for reading PNGs.
"""
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SKIP = 77
# the class colours of tools/lib/report/html_common.c
FRAME = (0x8A, 0x93, 0xA0)
UNTOUCHED = (0xE6, 0xE8, 0xEB)
EXACT = (0x3A, 0x9A, 0x4A)
OUT = (0xE0, 0x35, 0x2B)
NONFINITE = (0x6A, 0x1B, 0x9A)
CHANGED = (0xFF, 0x00, 0xC8)

LEGEND = 14 * 14

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def compare(kvgold, case, npu, *extra):
    p = subprocess.run([kvgold, "compare", case, npu] + list(extra),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    return p.returncode, p.stdout, p.stderr


# ---- JUnit ---------------------------------------------------------------

def int_attr(el, name):
    v = el.get(name)
    if v is None or not re.fullmatch(r"[0-9]+", v):
        check(False, "<%s> %s=%r is not a non-negative integer"
              % (el.tag, name, v))
        return 0
    return int(v)


def validate_junit(path):
    """The rules of the JUnit XML schema (Jenkins junit-10.xsd /
    Apache Ant's): a <testsuites> root of <testsuite> elements with name
    and tests; each suite's <testcase>s with name and classname; a
    testcase holds at most one of <failure>/<error>/<skipped>, whose
    `message` is an attribute; suite counts equal what it holds, and the
    root's counts equal the sums. Returns {name: (state, text)}."""
    root = ET.parse(path).getroot()
    check(root.tag == "testsuites", "JUnit root is <%s>" % root.tag)
    cases = {}
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in root:
        check(suite.tag == "testsuite", "child of root is <%s>" % suite.tag)
        check(bool(suite.get("name")), "testsuite without a name")
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for i, tc in enumerate(suite):
            if i == 0 and tc.tag == "properties":  # allowed first
                for pr in tc:
                    check(pr.tag == "property" and bool(pr.get("name"))
                          and pr.get("value") is not None,
                          "properties child <%s>" % pr.tag)
                continue
            check(tc.tag == "testcase", "child of testsuite is <%s>" % tc.tag)
            check(bool(tc.get("name")) and bool(tc.get("classname")),
                  "testcase without name or classname")
            if tc.get("time") is not None:
                check(re.fullmatch(r"[0-9]+(\.[0-9]+)?", tc.get("time"))
                      is not None, "testcase time %r" % tc.get("time"))
            kids = list(tc)
            check(len(kids) <= 1, "testcase %s has %d children"
                  % (tc.get("name"), len(kids)))
            counts["tests"] += 1
            state, text = "pass", ""
            for k in kids:
                check(k.tag in ("failure", "error", "skipped"),
                      "testcase child <%s>" % k.tag)
                check(k.get("message") is not None,
                      "<%s> without a message" % k.tag)
                state = k.tag
                text = k.text or ""
                counts[{"failure": "failures", "error": "errors",
                        "skipped": "skipped"}.get(k.tag, "errors")] += 1
            cases[tc.get("name")] = (state, text)
        for key, n in counts.items():
            if key == "tests" or suite.get(key) is not None:
                check(int_attr(suite, key) == n, "testsuite %s=%s, holds %d"
                      % (key, suite.get(key), n))
            totals[key] += n
    for key, n in totals.items():
        if root.get(key) is not None:
            check(int_attr(root, key) == n, "testsuites %s=%s, sum %d"
                  % (key, root.get(key), n))
    return cases


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    for r in body:
        check(len(r) == len(header), "CSV row %r has %d fields, header %d"
              % (r[:1], len(r), len(header)))
    return [dict(zip(header, r)) for r in body]


def check_self_contained(path):
    html = open(path, encoding="utf-8").read()
    check("<script" not in html.lower(), "%s has a script" % path)
    # the only URL allowed is the SVG namespace name, which is never fetched
    urls = set(re.findall(r"(?:https?:)?//[A-Za-z0-9.-]+[^\"' )]*", html))
    urls.discard("http://www.w3.org/2000/svg")
    check(not urls, "%s refers to %s" % (path, sorted(urls)))
    check(not re.search(r"\b(src|@import|url\()", html),
          "%s loads a resource" % path)
    check(os.path.getsize(path) < 4 << 20, "%s is over 4 MiB" % path)
    return html


def test_files(kvgold, vectors, work):
    ex = os.path.join(vectors, "examples")
    ds = os.path.join(ex, "deepseek_mla_decode")
    qw = os.path.join(ex, "qwen3_qkv_decode")
    out = {k: os.path.join(work, "ds." + k) for k in ("html", "xml", "csv")}
    rc, _, err = compare(kvgold, ds, os.path.join(ds, "npu_faulty"),
                         "--html", out["html"], "--junit", out["xml"],
                         "--csv", out["csv"], "--standard", "single")
    check(rc == 1, "faulty DeepSeek exit %d (%s)" % (rc, err))
    cases = validate_junit(out["xml"])
    check(sorted(cases) == ["ckv_cache", "k_cache"], "testcases %r" % cases)
    state, text = cases.get("k_cache", ("", ""))
    check(state == "failure", "k_cache is %s" % state)
    # the suite names the standard with its commit, and ops-test-kit's
    # own verdict per tensor
    props = {pr.get("name"): pr.get("value")
             for pr in ET.parse(out["xml"]).getroot().iter("property")}
    check(props.get("kvgold.standard") == "single@3e62966",
          "JUnit standard property %r" % props)
    check(props.get("ops_test_kit.ckv_cache") == "FAIL (binary_equal)",
          "JUnit ops-test-kit property %r" % props)
    # failure text = the tensor's text report, coordinates included
    check("block=1 slot=73 head=0 channel=0" in text,
          "k_cache failure text lacks the untouched change at slot 73")
    rows = read_csv(out["csv"])
    check([r["tensor"] for r in rows] == ["k_cache", "ckv_cache"],
          "CSV tensors %r" % [r["tensor"] for r in rows])
    for r in rows:
        check(r["verdict"] == "FAIL", "CSV %s verdict %s" % (r["tensor"],
                                                           r["verdict"]))
    check(rows and rows[0]["untouched_changed"] == "64",
          "CSV k_cache untouched_changed %r" % rows[0].get("untouched_changed"))
    check(rows and rows[0]["mare_limit"] == "0.078125",
          "CSV k_cache mare_limit (10 * 2^-7) %r" % rows[0].get("mare_limit"))
    html = check_self_contained(out["html"])
    check('data-block="1" data-slot="73"' in html, "HTML lacks the slot-73 cell")

    # an honest kernel, one output not dumped: q_out passes, the others are
    # NOT JUDGED (a JUnit failure, never a skip), and the verdict is
    # INCOMPLETE (exit 1)
    npu = os.path.join(work, "qw_partial")
    os.makedirs(npu, exist_ok=True)
    shutil.copy(os.path.join(qw, "npu", "q_out.npy"), npu)
    junit = os.path.join(work, "qw.xml")
    csvp = os.path.join(work, "qw.csv")
    rc, _, err = compare(kvgold, qw, npu, "--junit", junit, "--csv", csvp)
    check(rc == 1, "partial Qwen3 exit %d (%s)" % (rc, err))
    cases = validate_junit(junit)
    check(cases.get("q_out", ("",))[0] == "pass", "q_out %r" % (cases.get("q_out"),))
    check(cases.get("k_cache", ("",))[0] == "failure",
          "k_cache not dumped is %r, not a failure" % (cases.get("k_cache"),))
    verdicts = {r["tensor"]: r["verdict"] for r in read_csv(csvp)}
    check(verdicts == {"q_out": "PASS", "k_cache": "NOT JUDGED",
                       "v_cache": "NOT JUDGED"}, "CSV verdicts %r" % verdicts)

    # several runs, the second faulty: every run's suite and the
    # run-to-run check are in the file, which still follows the schema
    # (suite counts equal what each holds, the root's equal the sums)
    junit = os.path.join(work, "runs.xml")
    csvp = os.path.join(work, "runs.csv")
    rc, _, err = compare(kvgold, ds, os.path.join(ds, "npu"),
                         os.path.join(ds, "npu_faulty"), "--junit", junit,
                         "--csv", csvp)
    check(rc == 1, "two runs, one faulty: exit %d (%s)" % (rc, err))
    validate_junit(junit)
    root = ET.parse(junit).getroot()
    check([int_attr(su, "failures") for su in root] == [0, 2, 1],
          "failures per suite (run 1, run 2, determinism) %r"
          % [su.get("failures") for su in root])
    rows = read_csv(csvp)
    check([(r["run"], r["tensor"], r["verdict"]) for r in rows] ==
          [("1", "k_cache", "PASS"), ("1", "ckv_cache", "PASS"),
           ("2", "k_cache", "FAIL"), ("2", "ckv_cache", "FAIL"),
           ("all", "determinism", "FAIL")],
          "CSV rows of two runs %r" % [(r["run"], r["tensor"], r["verdict"])
                                       for r in rows])

    # errors: an unwritable target names the file and the OS reason, and
    # an invalid comparison writes nothing
    bad = os.path.join(work, "no", "such", "dir", "r.html")
    rc, _, err = compare(kvgold, ds, os.path.join(ds, "npu"), "--html", bad)
    check(rc == 2, "unwritable report exit %d" % rc)
    check(bad in err and "No such file or directory" in err,
          "unwritable report message %r" % err)
    # all or none: the HTML is not written when the CSV cannot be
    good = os.path.join(work, "good.html")
    rc, _, err = compare(kvgold, ds, os.path.join(ds, "npu"), "--html", good,
                         "--csv", bad)
    check(rc == 2 and not os.path.exists(good),
          "one report failed, another was written (exit %d)" % rc)
    empty = os.path.join(work, "empty")
    os.makedirs(empty, exist_ok=True)
    never = os.path.join(work, "never.html")
    rc, _, err = compare(kvgold, ds, empty, "--html", never)
    check(rc == 2 and not os.path.exists(never),
          "an invalid comparison wrote a report (exit %d)" % rc)
    rc, _, err = compare(kvgold, ds, os.path.join(ds, "npu"), "--csv")
    check(rc == 2 and "--csv needs a value" in err, "--csv without FILE: %r"
          % err)
    # the report set's temporaries are outset's (".<name>.kvgold-...")
    leftovers = [f for f in os.listdir(work)
                 if ".tmp-" in f or ".kvgold-" in f or f.endswith(".tmp")]
    check(not leftovers, "temporary files left: %r" % leftovers)


# ---- the browser -----------------------------------------------------------

def find_chromium():
    for name in ("chromium", "chromium-browser"):
        p = shutil.which(name)
        if p:
            return p
    return None


def screenshot(chromium, html, png, width, height):
    profile = tempfile.mkdtemp(prefix="kvg_chromium_")
    try:
        subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--hide-scrollbars",
             "--force-device-scale-factor=1", "--force-color-profile=srgb",
             "--user-data-dir=" + profile, "--screenshot=" + png,
             "--window-size=%d,%d" % (width, height),
             "file://" + os.path.abspath(html)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            timeout=180, check=False)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    check(os.path.exists(png), "chromium wrote no screenshot of " + html)


def first_map_cells(html):
    """Geometry of the first cache map: its frame origin and, per (block,
    slot), its cell rectangle, read from the SVG's attributes."""
    svg = html[html.index('<svg class="map"'):]
    svg = svg[:svg.index("</svg>")]
    fr = re.search(r'<rect class="frame" x="(\d+)" y="(\d+)" width="(\d+)" '
                   r'height="(\d+)"', svg)
    cells = {}
    for m in re.finditer(r'<rect class="c\d" x="(\d+)" y="(\d+)" '
                         r'width="(\d+)" height="(\d+)" data-block="(\d+)" '
                         r'data-slot="(\d+)"', svg):
        x, y, w, h, b, s = map(int, m.groups())
        cells[(b, s)] = (x, y, w, h)
    return tuple(map(int, fr.groups())), cells


def find_colour(img, colour, box=None):
    """Bounding box (x0, y0, x1, y1) of the pixels of exactly `colour`."""
    x0, y0, x1, y1 = box or (0, 0) + img.size
    xs, ys = [], []
    px = img.load()
    for y in range(y0, y1):
        for x in range(x0, x1):
            if px[x, y] == colour:
                xs.append(x)
                ys.append(y)
    if not xs:
        return None
    return min(xs), min(ys), max(xs) + 1, max(ys) + 1


def count_colour(img, colour):
    return sum(n for n, c in (img.getcolors(1 << 24) or []) if c == colour)


def check_not_blank(img, what):
    small = img.resize((img.size[0] // 4, img.size[1] // 4))
    colours = small.getcolors(1 << 20) or []
    non_white = sum(n for n, c in colours if c != (255, 255, 255))
    check(len(colours) > 20, "%s: only %d colours" % (what, len(colours)))
    check(non_white > small.size[0] * small.size[1] // 20,
          "%s: almost blank (%d non-white pixels)" % (what, non_white))


def save_doc(img, height, doc_dir, name):
    path = os.path.join(doc_dir, name + ".png")
    img.crop((0, 0, 1280, min(img.size[1], height))).save(path, optimize=True)
    print("wrote " + path)


def test_browser(kvgold, vectors, work, doc_dir):
    chromium = find_chromium()
    if chromium is None:
        print("SKIPPED: chromium is not installed (Debian package chromium, "
              "tools/setup-debian.sh installs it)")
        return SKIP
    try:
        from PIL import Image
    except ImportError:
        check(False, "python3-pil is missing (tools/setup-debian.sh)")
        return 1
    ex = os.path.join(vectors, "examples")
    ds = os.path.join(ex, "deepseek_mla_decode")
    html = os.path.join(work, "deepseek_faulty.html")
    rc, _, err = compare(kvgold, ds, os.path.join(ds, "npu_faulty"),
                         "--html", html)
    check(rc == 1, "faulty DeepSeek exit %d (%s)" % (rc, err))
    png = os.path.join(work, "deepseek_faulty.png")
    screenshot(chromium, html, png, 1280, 1000)
    img = Image.open(png).convert("RGB")
    check_not_blank(img, png)

    # where the k_cache map is on screen: its frame's top-left pixel
    (fx, fy, fw, fh), cells = first_map_cells(open(html).read())
    frame = find_colour(img, FRAME)
    check(frame is not None, "no map frame in the screenshot")
    if frame is None:
        return 1
    ox, oy = frame[0] - fx, frame[1] - fy

    def centre(b, s):
        x, y, w, h = cells[(b, s)]
        return img.getpixel((ox + x + w // 2, oy + y + h // 2))

    check(centre(1, 73) == CHANGED, "slot 73 of block 1 (written, must not "
          "be) is %r, not untouched-but-changed" % (centre(1, 73),))
    check(centre(1, 72) in (OUT, NONFINITE), "slot 72 of block 1 (token 3's, "
          "left stale) is %r, not a failing colour" % (centre(1, 72),))
    check(centre(1, 74) == UNTOUCHED, "slot 74 of block 1 is %r"
          % (centre(1, 74),))
    written_ok = [k for k in cells if centre(*k) == EXACT]
    check(len(written_ok) >= 4, "only %d exact cells" % len(written_ok))
    # the bug is the only thing out of place in the k_cache map
    mbox = (ox + fx, oy + fy, ox + fx + fw, oy + fy + fh)
    for colour, slot in ((CHANGED, 73), (NONFINITE, 72)):
        got = find_colour(img, colour, mbox)
        x, y, w, h = cells[(1, slot)]
        want = (ox + x, oy + y, ox + x + w, oy + y + h)
        if colour == NONFINITE and got is None:
            continue  # stale slot shown as out of tolerance instead
        check(got == want, "colour %r covers %r, only cell (1, %d) %r expected"
              % (colour, got, slot, want))
    if doc_dir:  # the page down to the end of k_cache's histogram
        save_doc(img, oy + fy + fh + 240, doc_dir, "report_deepseek_faulty")

    qw = os.path.join(ex, "qwen3_qkv_decode")
    html = os.path.join(work, "qwen3_bf16.html")
    rc, _, err = compare(kvgold, qw, os.path.join(qw, "npu_bf16_intermediate"),
                         "--html", html, "--standard", "single")
    check(rc == 1, "bf16-intermediate Qwen3 exit %d (%s)" % (rc, err))
    png = os.path.join(work, "qwen3_bf16.png")
    screenshot(chromium, html, png, 1280, 700)
    img = Image.open(png).convert("RGB")
    check_not_blank(img, png)
    # q_out comes first; its histogram has bars beyond tolerance (the
    # legend's swatch of each colour is 14 x 14 pixels: LEGEND), and no
    # untouched element changed anywhere
    red = count_colour(img, OUT)
    check(red > 10 * LEGEND, "the q_out histogram shows no bar beyond "
          "tolerance (%d red pixels)" % red)
    check(count_colour(img, CHANGED) <= LEGEND,
          "Qwen3 shows an untouched change")
    if doc_dir:  # the page down to the end of q_out's histogram
        save_doc(img, 590, doc_dir, "report_qwen3_bf16")
    return 0


def main(argv):
    if len(argv) < 5 or argv[1] not in ("files", "browser"):
        print(__doc__)
        return 2
    mode, kvgold, vectors, work = argv[1:5]
    doc_dir = argv[6] if len(argv) > 6 and argv[5] == "--doc-dir" else None
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if mode == "files":
        test_files(kvgold, vectors, work)
        rc = 0
    else:
        rc = test_browser(kvgold, vectors, work, doc_dir)
        if rc == SKIP:
            return SKIP
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("report %s: ok" % mode)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
