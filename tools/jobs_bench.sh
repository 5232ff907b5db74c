#!/bin/sh
# tools/jobs_bench.sh - throughput of kvgold check / compare over many cases
# (docs/performance.md, "Many cases, many cores").
#   sh tools/jobs_bench.sh [KVGOLD [VECTORS [REPS [JOBS...]]]]
# Every committed vector listed five times: check of every case directory,
# compare of every case without expect_error against the golden's own
# outputs (kvgold run) as the NPU dump. Each configuration (one kvgold
# process per case, then --jobs 1 and each JOBS, default "2") runs REPS
# times (default 7), interleaved; prints the median wall time (min-max) and
# that run's user+sys CPU. Scratch files go to a temporary directory that
# is removed at the end.
set -u
K=${1:-build/dev/tools/kvgold} V=${2:-vectors} R=${3:-7}
[ $# -gt 3 ] && shift 3 && JOBS=$* || JOBS=2
case $K in /*) ;; *) K=$PWD/$K ;; esac
case $V in /*) ;; *) V=$PWD/$V ;; esac
[ -x "$K" ] || { echo "jobs_bench: no kvgold at $K" >&2; exit 2; }
W=$(mktemp -d) || exit 2
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 2
find "$V" -name case.json | sed 's,/case.json$,,' | LC_ALL=C sort > cases.txt
: > list.txt
while read -r c; do
  grep -q '"expect_error"' "$c/case.json" && continue
  o=$W/npu/${c#"$V"/}
  "$K" run "$c" --out "$o" > /dev/null 2>&1 && echo "$c $o" >> list.txt
done < cases.txt
for i in 1 2 3 4 5; do cat cases.txt; done > cases5.txt
for i in 1 2 3 4 5; do cat list.txt; done > list5.txt
echo "check: $(wc -l < cases5.txt) cases; compare: $(wc -l < list5.txt) cases; load $(cut -d' ' -f1-3 /proc/loadavg)"
CFGS="check_procs"
for j in 1 $JOBS; do CFGS="$CFGS check_j$j"; done
CFGS="$CFGS compare_procs"
for j in 1 $JOBS; do CFGS="$CFGS compare_j$j"; done
r=0
while [ "$r" -lt "$R" ]; do
  for cfg in $CFGS; do
    case $cfg in
      check_procs) set -- sh -c "while read -r c; do \"$K\" check \"\$c\"; done < cases5.txt" ;;
      check_j*) set -- "$K" check $(cat cases5.txt) --jobs "${cfg#check_j}" ;;
      compare_procs) set -- sh -c "while read -r c n; do \"$K\" compare \"\$c\" \"\$n\"; done < list5.txt" ;;
      compare_j*) set -- "$K" compare --cases list5.txt --jobs "${cfg#compare_j}" ;;
    esac
    /usr/bin/time -f "$cfg %e %U %S" "$@" > /dev/null 2> time.txt
    tail -1 time.txt >> res.txt
  done
  r=$((r + 1))
done
for cfg in $CFGS; do
  grep "^$cfg " res.txt | awk '{print $2, $3 + $4}' | sort -n |
    awk -v c="$cfg" '{w[NR] = $1; u[NR] = $2}
      END {m = int((NR + 1) / 2); printf "%-14s median %.2f s (%.2f-%.2f), CPU %.2f s, %d runs\n", c, w[m], w[1], w[NR], u[m], NR}'
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
