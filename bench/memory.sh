#!/usr/bin/env bash
# Peak resident memory of `fizzgen --threads N --bytes X | cat >/dev/null` for N = 1..8 and each X:
# it should follow threads x buffers (each worker owns a few 2 MiB-aligned buffers, the number
# chosen to cover the pipe twice), and not grow with the length of the run.
#
#   bench/memory.sh [FIZZGEN] [SIZE...]        default build/release/fizzgen, sizes 1G 8G
#
# Peak RSS is getrusage's ru_maxrss as GNU time reports it (/usr/bin/time -f %M), or, without GNU
# time, the VmHWM line of /proc/PID/status sampled every 10 ms. The "buffers" column is
# threads x buffers per worker x 2 MiB, from --stats-json.
set -euo pipefail

fizzgen=${1:-build/release/fizzgen}
shift || true
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1G 8G)
[ -x "$fizzgen" ] || { echo "memory: no fizzgen at $fizzgen (bench/memory.sh [FIZZGEN] [SIZE...])" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs fizzgen with the given options into cat; prints its peak RSS in KiB.
peak_kib() {
  if /usr/bin/time -f %M true >/dev/null 2>&1; then
    /usr/bin/time -f %M -o "$work/rss" "$fizzgen" "$@" | cat >/dev/null
    tail -1 "$work/rss"
  else
    local hwm=0 line
    "$fizzgen" "$@" > >(cat >/dev/null) &
    local pid=$!
    while line=$(grep VmHWM "/proc/$pid/status" 2>/dev/null); do
      hwm=$(echo "$line" | awk '{ print $2 }')
      sleep 0.01
    done
    wait "$pid"
    echo "$hwm"
  fi
}

json() { sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p" "$work/stats.json" | head -1; }

printf '%-8s %-12s %-12s' threads 'buffers/wkr' 'buffers MiB'
for x in "${sizes[@]}"; do printf ' %-14s' "peak RSS $x"; done
printf '\n'
for n in 1 2 3 4 5 6 7 8; do
  row=() per_worker=?
  for x in "${sizes[@]}"; do
    kib=$(peak_kib --threads "$n" --bytes "$x" --stats-json "$work/stats.json")
    per_worker=$(json buffers_per_worker)
    row+=("$(awk -v k="$kib" 'BEGIN { printf "%.1f MiB", k / 1024 }')")
  done
  printf '%-8s %-12s %-12s' "$n" "$per_worker" "$((n * per_worker * 2))"
  for r in "${row[@]}"; do printf ' %-14s' "$r"; done
  printf '\n'
done
echo "fizzgen $("$fizzgen" --version | awk '{ print $NF }'), $(nproc) CPUs, pipe reader: cat >/dev/null"
