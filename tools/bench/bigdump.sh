#!/bin/sh
# The big-dump benchmark: kvgold run / check / compare on big dumps.
#
#   sh tools/bench/bigdump.sh [--dir DIR] [--sizes "256M 1G 4G"]
#       [--kvgold BIN] [--mem-cap BYTES] [--timeout SECONDS] [--keep]
#       [--markdown FILE] [--cold] [--pairs N]
#
# For each size: writes a DeepSeek-V3 MLA decode step (bigdump.py says which
# operator and why: Bkv 64, PA_BLK_NZ, int8 caches) whose input files add up
# to that many bytes, with expected caches from the NumPy golden,
# then measures, one command at a time:
#   run            kvgold run CASE --out GOOD   (its output is the good dump)
#   check          kvgold check CASE
#   compare good   kvgold compare CASE GOOD     (must pass, exit 0)
#   compare bad    kvgold compare CASE BAD      (one token one slot off: exit 1)
# Before each command the files it needs are read once with `cat FILES >
# /dev/null` (warm: that fills the page cache), then the read and the
# command are timed in --pairs pairs (default 3), back to back, the first
# of the two alternating; the row gives the medians and the median of the
# pairs' ratios, which the time targets judge. `fincore` says how much of
# the files the page cache holds before the command (warm = 100 %). With
# --cold the files leave the page cache (fsync, then posix_fadvise
# DONTNEED on each file: no root, and no other program's cache is dropped)
# before every timed read and every run (cached ~0 %). The
# command runs in that state, under /usr/bin/time (wall
# clock, peak RSS), `ulimit -v` (--mem-cap, e.g. 16G; default 3/4 of MemAvailable
# when it starts) and `timeout` (--timeout, default 900 s), so a command
# that runs out of memory is reported as OOM or killed, not the machine.
# The files each command needs: run = the case's inputs; check = inputs +
# expected; compare = inputs + that NPU dump (today's loader also reads
# expected for every command: that is part of what is measured).
#
# Builds kvgold (gcc, Release) in build/bigdump if needed; the data goes to
# DIR (default build/bigdump-data), one size at a time, deleted after each
# size unless --keep: the 4 GiB size needs about 17 GB of disk. Prints a
# markdown table with the ratios to the read time, RSS / input bytes and
# the issue's targets (tools/bench/bigdump_report.py). Not a test (the
# suite never runs it): exit 0 only when every command gave its verdict
# and every target is met, 1 otherwise. docs/performance.md, "Big dumps".
set -eu
cd "$(dirname "$0")/../.."
root=$(pwd)
py=/usr/bin/python3
dir=build/bigdump-data
sizes="256M 1G 4G"
kvgold=""
mem_cap=""
limit=900
keep=0
cold=0
pairs=3
markdown=""
while [ $# -gt 0 ]; do
  case $1 in
    --dir) dir=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --kvgold) kvgold=$2; shift 2 ;;
    --mem-cap) mem_cap=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --cold) cold=1; shift ;;
    --pairs) pairs=$2; shift 2 ;;
    --markdown) markdown=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
    *) echo "bigdump.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

sh tools/setup-debian.sh
if [ -z "$kvgold" ]; then
  if [ ! -f build/bigdump/CMakeCache.txt ]; then
    cmake -S . -B build/bigdump -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=gcc -DKVG_BUILD_TESTS=OFF >/dev/null
  fi
  cmake --build build/bigdump -j2 --target kvgold_cli >/dev/null
  kvgold=$root/build/bigdump/tools/kvgold
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
load_start=$(cut -d' ' -f1 /proc/loadavg)  # the machine is shared: say how busy
results=$dir/results.tsv
printf 'size\tinput_bytes\tcommand\tread_bytes\tread1_s\tread_s\tresident_pct\twall_s\trss_kb\trc\twant\tstatus\tmem_cap_kb\tpairs\tratio\n' \
  > "$results"

bytes_of() { # label like 256M / 1G -> bytes
  case $1 in
    *G) echo $(( ${1%G} * 1073741824 )) ;;
    *M) echo $(( ${1%M} * 1048576 )) ;;
    *) echo "$1" ;;
  esac
}

sum_sizes() { # FILES... -> total bytes (%.0f: mawk's %d stops at 2^31 - 1)
  stat -c %s "$@" | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

resident_pct() { # FILES... -> % of their bytes in the page cache
  total=$(sum_sizes "$@")
  fincore --bytes --noheadings --output RES "$@" |
    awk -v t="$total" '{ s += $1 } END {
      p = t ? 100 * s / t : 100; printf "%.1f\n", (p > 100 ? 100 : p) }'
}

evict() { # FILES...: out of the page cache (written pages first reach disk)
  "$py" -c 'import os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY)
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)' "$@"
}

seconds_of() { # CMD... -> wall seconds to the microsecond, stdout discarded
  t0=$(date +%s%N)
  "$@" >/dev/null
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", (b - a) / 1e9 }'
}

mem_cap_kb() {
  if [ -n "$mem_cap" ]; then
    echo $(( $(bytes_of "$mem_cap") / 1024 ))
  else
    awk '/^MemAvailable:/ { printf "%.0f\n", $2 * 3 / 4 }' /proc/meminfo
  fi
}

# classify RC WANT WALL: what became of a command
classify() {
  if [ "$1" -eq "$2" ]; then echo ok
  elif [ "$1" -eq 124 ]; then echo timeout
  elif [ "$1" -eq 137 ] && awk -v w="${3:-0}" -v l="$limit" \
      'BEGIN { exit !(w >= l) }'; then echo timeout
  elif grep -qi 'out of memory\|cannot allocate' "$dir/cmd.err"; then echo OOM
  elif [ "$1" -gt 128 ]; then echo "killed (signal $(($1 - 128)))"
  else echo "exit $1, want $2"
  fi
}

median() { # NUMBERS... -> their median
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    if (NR % 2) print v[(NR + 1) / 2]
    else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

timed_read() { # the read time of $files (--cold: out of the page cache first)
  # shellcheck disable=SC2086
  [ "$cold" -eq 0 ] || evict $files
  # shellcheck disable=SC2086
  seconds_of cat $files
}

run_once() { # CMD...: one timed run (--cold: $files evicted first); sets
  # rc, wall, rss and res (how much of $files the page cache held)
  # shellcheck disable=SC2086
  [ "$cold" -eq 0 ] || evict $files
  # shellcheck disable=SC2086
  res=$(resident_pct $files)
  rm -f "$dir/cmd.time"
  t0=$(date +%s%N)
  set +e
  (
    ulimit -v "$cap"
    exec /usr/bin/time -f '%e %M' -o "$dir/cmd.time" \
      timeout -k 10 "$limit" "$@"
  ) >"$dir/cmd.out" 2>"$dir/cmd.err"
  rc=$?
  set -e
  t1=$(date +%s%N)
  # no time file: the command could not even start (it shows as an error);
  # the wall time to the microsecond (time's %e has 10 ms steps), time's
  # own start included
  wall=""
  [ ! -s "$dir/cmd.time" ] || wall=$(awk -v a="$t0" -v b="$t1" \
    'BEGIN { printf "%.6f\n", (b - a) / 1e9 }')
  rss=$(tail -n 1 "$dir/cmd.time" 2>/dev/null | cut -d' ' -f2)
}

# measure SIZE NAME WANT FILES -- CMD...: one row of results.tsv. The read
# and the command are timed in --pairs pairs, back to back, which of the
# two goes first alternating: the row's read and wall times are the
# medians, its ratio the median of the pairs' ratios (the VM's disk read
# the same 1 GiB cold in 1.3 s and in 3.1 s minutes apart), its peak RSS
# the largest. A command that fails is not run again.
measure() {
  size=$1 name=$2 want=$3
  shift 3
  files=""
  while [ "$1" != "--" ]; do files="$files $1"; shift; done
  shift
  cap=$(mem_cap_kb)
  # shellcheck disable=SC2086
  rbytes=$(sum_sizes $files)
  read1=$(timed_read)  # warm: the read that fills the page cache
  reads="" walls="" ratios="" peak=0 i=1 r=""
  while [ "$i" -le "$pairs" ]; do
    if [ $((i % 2)) -eq 1 ]; then
      r=$(timed_read)
      run_once "$@"
    else
      run_once "$@"
      r=$(timed_read)
    fi
    [ "$i" -gt 1 ] || warm=$res
    status=$(classify "$rc" "$want" "$wall")
    [ "$status" = ok ] || break
    reads="$reads $r" walls="$walls $wall"
    ratios="$ratios $(awk -v w="$wall" -v r="$r" 'BEGIN {
      printf "%.6f\n", (r > 0 ? w / r : 1e9) }')"
    [ "$rss" -le "$peak" ] || peak=$rss
    i=$((i + 1))
  done
  if [ "$status" = ok ]; then
    # shellcheck disable=SC2086
    read2=$(median $reads) wall=$(median $walls) ratio=$(median $ratios)
    rss=$peak
  else
    read2=${r:-$read1} ratio=""
  fi
  echo "bigdump: $size $name: read ${read2}s, ${wall}s, ratio ${ratio:-?} (median of $((i - 1)) pairs), peak RSS ${rss} KiB, exit $rc: $status"
  if [ "$status" != ok ]; then sed -n '1,5p' "$dir/cmd.err" | sed 's/^/  stderr: /'; fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
    "$size" "$input_bytes" "$name" "$rbytes" "$read1" "$read2" "$warm" \
    "$wall" "$rss" "$rc" "$want" "$status" "$cap" "$((i - 1))" "$ratio" \
    >> "$results"
}

d=""
# an error or ^C must not leave gigabytes behind
trap '[ "$keep" -eq 1 ] || [ -z "$d" ] || rm -rf "$d"' EXIT
trap 'exit 130' INT TERM
for size in $sizes; do
  want_bytes=$(bytes_of "$size")
  avail=$(df --output=avail -B1 "$dir" | tail -n 1)
  if [ "$avail" -lt $(( want_bytes * 9 / 2 + 1073741824 )) ]; then
    echo "bigdump: $size: not enough disk in $dir ($avail bytes free); skipped"
    continue
  fi
  d=$dir/$size
  rm -rf "$d"
  mkdir -p "$d/good"
  echo "bigdump: $size: writing the case into $d ..."
  "$py" tools/bench/bigdump.py case --out "$d/case" --input-bytes "$size"
  c=$d/case
  inputs="$c/case.json $c/kv.npy $c/gamma.npy $c/cos.npy $c/sin.npy \
$c/index.npy $c/k_rope_scale.npy $c/c_kv_scale.npy $c/k_cache.npy \
$c/ckv_cache.npy"
  expected="$c/expected_k_cache.npy $c/expected_ckv_cache.npy"
  # shellcheck disable=SC2086
  input_bytes=$(sum_sizes $inputs)
  # shellcheck disable=SC2086
  measure "$size" run 0 $inputs -- "$kvgold" run "$c" --out "$d/good"
  # a run that failed may have left a partial file: bigdump.py then fills
  # the good dump from the NumPy expected caches
  [ "$status" = ok ] || rm -f "$d/good/k_cache.npy" "$d/good/ckv_cache.npy"
  "$py" tools/bench/bigdump.py dumps "$c" "$d/good" "$d/bad"
  # shellcheck disable=SC2086
  measure "$size" check 0 $inputs $expected -- "$kvgold" check "$c"
  for dump in good bad; do
    want=0
    [ "$dump" = bad ] && want=1
    # shellcheck disable=SC2086
    measure "$size" "compare $dump" "$want" $inputs "$d/$dump/k_cache.npy" \
      "$d/$dump/ckv_cache.npy" -- "$kvgold" compare "$c" "$d/$dump"
  done
  [ "$keep" -eq 1 ] || rm -rf "$d"
  d=""
done
rm -f "$dir/cmd.time" "$dir/cmd.out" "$dir/cmd.err"

set +e
title="kvgold $(git rev-parse --short HEAD 2>/dev/null || echo '?'), \
$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, \
$(awk '/^MemTotal:/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, \
load average $load_start at the start, $(cut -d' ' -f1 /proc/loadavg) at the end"
[ "$kvgold" = "$root/build/bigdump/tools/kvgold" ] || title="$title, $kvgold"
[ "$cold" -eq 0 ] || title="$title, cold page cache (--cold)"
"$py" tools/bench/bigdump_report.py "$results" --sizes "$sizes" \
  --title "$title" > "$dir/report.md"
rc=$?
cat "$dir/report.md"
[ -z "$markdown" ] || cp "$dir/report.md" "$markdown"
echo "bigdump: measurements in $results"
exit "$rc"
