#!/bin/sh
# kvgold's benchmark in one command (docs/performance.md): every target of
# that page measured in one run, then judged.
#
#   sh tools/bench.sh [--ops-only] [--out DIR] [--compare-sizes "1G"]
#                     [bench.py options: --quick, --only SUBSTR...,
#                      --rounds N, --no-scaling, --no-main, --no-torch,
#                      --markdown FILE, --json FILE]
#
# 1. The operators (tools/bench/bench.py): every shape of tools/bench/shapes/
#    against the NumPy golden, the plain PyTorch golden where python3-torch
#    is installed (tools/bench/torch_golden.py; --no-torch leaves it out)
#    and a memcpy of the bytes written; each shape measured once (--rounds
#    1; --rounds 3 gives the ratios' ranges). About 4 minutes here.
#    kvgold_bench is built twice with gcc, Release, the project's own flags
#    (-O3 -std=c99 -ffp-contract=off, never fast-math): build/bench as a
#    default configure builds it (the row kernels in SSE2, AVX2 and AVX-512
#    clones, one picked per CPU at load time: src/kernels/dispatch.h) and
#    build/bench-baseline with -DKVG_DISPATCH=OFF (x86-64 baseline only,
#    SSE2). Both give the same results bit for bit.
# 2. Unless --ops-only: the Python binding's cost per call
#    (tools/bench/python_overhead.py, the two bundled decode examples),
#    compare against the time of reading its files with the page cache warm
#    and cold (tools/bench/bigdump.sh, --compare-sizes, default 1G: about 5
#    GB of scratch in DIR), and check / compare over many cases with --jobs
#    (tools/jobs_bench.sh).
# 3. tools/bench/targets.py judges every target from those files and
#    prints the table; everything is kept in DIR (--out, default
#    build/bench-out).
# Not a test: it prints times and ratios; it fails (exit 1) only if an
# operator's output differs from the golden or a part could not run. A
# target not met is reported, not an error.
set -eu
cd "$(dirname "$0")/.."
py=/usr/bin/python3
out=build/bench-out ops_only=0 sizes=1G ops_json=""
keep=""
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) # the comment above, without running anything
       sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --ops-only) ops_only=1; shift ;;
    --out) out=$2; shift 2 ;;
    --compare-sizes) sizes=$2; shift 2 ;;
    --json) ops_json=$2; shift 2 ;;
    *) keep="$keep $(printf "'%s'" "$(printf %s "$1" | sed "s/'/'\\\\''/g")")"
       shift ;;
  esac
done
eval "set -- $keep"
mkdir -p "$out"
[ -n "$ops_json" ] || ops_json=$out/ops.json
build() { # dir targets -- extra-cmake-args
  dir=$1 targets=$2
  shift 2
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc \
    -DKVG_BUILD_TESTS=OFF -DCMAKE_C_FLAGS= "$@" >/dev/null
  for t in $targets; do
    cmake --build "$dir" -j2 --target "$t" >/dev/null
  done
}
build build/bench "kvgold_bench kvgold_cli kvgold_pycase" -DKVG_DISPATCH=ON
build build/bench-baseline kvgold_bench -DKVG_DISPATCH=OFF
status=0
"$py" tools/bench/bench.py --bench-bin build/bench/tools/kvgold_bench \
  --second-bin build/bench-baseline/tools/kvgold_bench \
  --second-name baseline --rounds 1 "$@" --json "$ops_json" || status=1
[ "$ops_only" = 1 ] && exit "$status"

echo
echo "== Python binding: per call over the C call =="
pyjson=""
for c in deepseek_mla_decode qwen3_qkv_decode; do
  KVGOLD_LIBRARY=$PWD/build/bench/tools/python/lib/libkvgold.so \
    PYTHONPATH=$PWD/tools/python "$py" tools/bench/python_overhead.py \
    --case "vectors/examples/$c" --seconds 0.5 \
    --json "$out/python_$c.json" || status=1
  pyjson="$pyjson $out/python_$c.json"
done

echo
echo "== compare against reading its files ($sizes; warm, then cold) =="
# bigdump.sh's own exit judges its own (older) targets; targets.py below
# judges this page's from the results it leaves, a missing one as "not
# judged"
sh tools/bench/bigdump.sh --kvgold build/bench/tools/kvgold \
  --sizes "$sizes" --dir "$out/bigdump-warm" \
  --markdown "$out/bigdump-warm.md" || true
sh tools/bench/bigdump.sh --kvgold build/bench/tools/kvgold \
  --sizes "$sizes" --dir "$out/bigdump-cold" --cold \
  --markdown "$out/bigdump-cold.md" || true

echo
echo "== check / compare over many cases, --jobs =="
sh tools/jobs_bench.sh build/bench/tools/kvgold vectors 3 "$(nproc)" \
  | tee "$out/jobs.txt" || status=1

echo
"$py" tools/bench/targets.py --ops "$ops_json" --python $pyjson \
  --bigdump "warm=$out/bigdump-warm/results.tsv" \
  "cold=$out/bigdump-cold/results.tsv" --jobs "$out/jobs.txt" \
  | tee "$out/targets.md" || true
exit "$status"
