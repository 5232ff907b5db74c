#!/bin/sh
# tests/cli/bigdump_test.sh - the big-dump benchmark tools at a small size.
#   bigdump_test.sh KVGOLD PYTHON SOURCE_DIR WORKDIR SCENARIO
# case:   tools/bench/bigdump.py writes an 8 MiB DeepSeek decode case (its
#         expected caches from the NumPy golden): `kvgold check` must find
#         them bit-exact, the good dump (`kvgold run`) must pass `compare`,
#         and the bad one must fail it, naming the slot the token was moved
#         to and the one it left stale (the page read from index.npy here,
#         not from the oracle). The dump made with another reduce order
#         passes with the hint naming that order.
# report: tools/bench/bigdump_report.py on made-up measurements: a target
#         is met only when every row it covers was measured and passed it.
set -u
K=$1 PY=$2 SRC=$3 W=$4 S=$5
rm -rf "$W/$S" && mkdir -p "$W/$S" && cd "$W/$S" || exit 99
fails=0
expect() { # expect RC CMD...: output in out.txt, check the status
  want=$1; shift
  "$@" > out.txt 2>&1
  got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: '$*' exited $got, expected $want"; cat out.txt; fails=1
  fi
}
has() {
  if ! grep -F -q -- "$1" out.txt; then
    echo "FAIL: output lacks '$1'"; cat out.txt; fails=1
  fi
}

case $S in
case)
  expect 0 "$PY" "$SRC/tools/bench/bigdump.py" case --out c --input-bytes 8M
  total=$(stat -c %s c/*.npy | awk '{ s += $1 } END { printf "%.0f\n", s }')
  total=$((total - $(stat -c %s c/expected_k_cache.npy c/expected_ckv_cache.npy |
    awk '{ s += $1 } END { printf "%.0f\n", s }')))
  # within half a block (128 slots x 576 bytes) of 8 MiB
  if [ $((total - 8388608)) -gt 36864 ] || [ $((8388608 - total)) -gt 36864 ]; then
    echo "FAIL: input files are $total bytes, want 8 MiB +- 36864"; fails=1
  fi
  expect 0 "$K" check c; has "PASS: 2 of 2 tensors bit-exact"
  mkdir good
  expect 0 "$K" run c --out good
  expect 0 "$PY" "$SRC/tools/bench/bigdump.py" dumps c good bad
  expect 0 "$K" compare c good
  has "PASS: 2 tensors, 2 passed, 0 failed, 0 untouched elements changed"
  page=$("$PY" -c "import numpy; print(int(numpy.load('c/index.npy')[17]) // 128)")
  expect 1 "$K" compare c bad
  has "k_cache    int8   int_abs1   FAIL"; has "ckv_cache  int8   int_abs1   FAIL"
  has "block=$page slot=1 head=0 channel=0"   # written, owned by no token
  has "block=$page slot=0 head=0"             # token 17's slot, left stale
  # the reduce-order hint on mapped dumps (7 MiB): the golden rerun per
  # order, only the written runs read, their pages given back as it goes
  order() { "$PY" -c "import json, sys
j = json.load(open('c/case.json')); j['options']['reduce_order'] = sys.argv[1]
json.dump(j, open('c/case.json', 'w'), indent=2)" "$1"; }
  order double; mkdir dbl; expect 0 "$K" run c --out dbl
  order sequential; expect 0 "$K" compare c dbl
  has 'hint: with options.reduce_order = "double" the golden reproduces all 2 NPU outputs bit for bit'
  if grep -q 'reduce_order = "sequential"' out.txt; then
    echo "FAIL: the order the dump was not made with reproduces it"; fails=1
  fi
  ;;
report)
  R="$PY $SRC/tools/bench/bigdump_report.py"
  head='size	input_bytes	command	read_bytes	read1_s	read_s	resident_pct	wall_s	rss_kb	rc	want	status	mem_cap_kb'
  row() { # size command read wall rss_kib status
    printf '%s\t%s\t%s\t0\t0\t%s\t100.0\t%s\t%s\t0\t0\t%s\t1000000\n' "$1" \
      "$(case $1 in 1G) echo 1073741824 ;; *) echo 4294967296 ;; esac)" \
      "$2" "$3" "$4" "$5" "$6"
  }
  good() { # size: rows that meet every target (RSS 100 MiB, wall 2x read)
    row "$1" run 1.0 9.0 4000000 ok
    row "$1" check 1.0 2.0 102400 ok
    row "$1" "compare good" 1.0 2.0 102400 ok
    row "$1" "compare bad" 1.0 2.0 102400 ok
  }
  { echo "$head"; good 1G; good 4G; } > met.tsv
  expect 0 $R met.tsv --sizes "1G 4G"
  has "- time (compare <= 3x read, >= 1 GiB): met"
  has "- flat (compare bad peak RSS grows <= 16 MiB across sizes): met"
  # 4G asked for but not measured: nothing that needs it passes
  { echo "$head"; good 1G; } > partial.tsv
  expect 1 $R partial.tsv --sizes "1G 4G"
  has "Sizes not measured: 4G."
  has "- works (compare, good and bad, every size): not judged"
  has "- time (compare <= 3x read, >= 1 GiB): not judged"
  # compare ran out of memory at 4G: works fails, its memory is not judged
  { echo "$head"; good 1G; good 4G | grep -v compare
    row 4G "compare good" 1.0 30.0 14000000 OOM
    row 4G "compare bad" 1.0 30.0 14000000 OOM; } > oom.tsv
  expect 1 $R oom.tsv --sizes "1G 4G"
  has "| 4G | compare good | 4096 MiB | 1.000 | 100.0 % | 30.00 | 30.0x | 13672 | 3.3x | OOM | not judged | not judged |"
  has "- works (compare, good and bad, every size): **NOT met**"
  # 3.5x the read time, and RSS growing 20 MiB from 1G to 4G
  { echo "$head"; good 1G; good 4G | grep -v "compare bad"
    row 4G "compare bad" 1.0 3.5 122880 ok; } > slow.tsv
  expect 1 $R slow.tsv --sizes "1G 4G"
  has "- time (compare <= 3x read, >= 1 GiB): **NOT met**"
  has "- flat (compare bad peak RSS grows <= 16 MiB across sizes): **NOT met** (grows 20.0 MiB from 1G to 4G)"
  has "- memory (check, compare peak RSS <= 64 MiB + 10 % of input): met"
  ;;
*) echo "unknown scenario $S"; exit 99 ;;
esac
exit $fails
