#!/usr/bin/env bash
# End-to-end throughput into `pv >/dev/null`, every configuration against its baselines in the same
# run: the configurations take turns (round-robin), each REPS times, and the medians are compared.
#
#   bench/pipe_bench.sh [BUILD_DIR] [GIB] [REPS]      (defaults: build/release 10 5)
#
# Baselines: the ceiling (bench/vmsplice_ceiling: constant buffers vmspliced with SPLICE_F_NONBLOCK
# in a spin, 1 MiB pipe), the same writer blocking in vmsplice, GNU yes; generation is judged
# against memset into the same buffer by fizzgen_kernel_bench. Afterwards every fizzgen
# configuration is verified through `pv -q` by `fizzgen check` (or cmp for yes).
set -euo pipefail
build=${1:-build/release}
gib=${2:-10}
reps=${3:-5}
fz="$build/fizzgen"
ceiling="$build/bench/vmsplice_ceiling"
bytes=$((gib << 30))
small=$(( (gib < 2 ? gib : 2) << 30 ))  # GNU yes is slow: fewer bytes, same rate
command -v pv >/dev/null || { echo "pv is required (apt-get install pv)" >&2; exit 1; }
# Measure the pipelines as a terminal runs them: descriptors leaked into this script by whatever
# started it (some runners pass pipes down) would make every reader look like a possible forwarder.
for fd in /proc/$$/fd/*; do
  n=${fd##*/}
  if [ "$n" -gt 2 ] 2>/dev/null; then eval "exec $n>&-" 2>/dev/null || true; fi
done

names=(ceiling ceiling_blocking gnu_yes pipe_only always_t1 always_t2 always_t7 default auto_t1 auto_t2 never_t1 never_t2 fizzgen_yes)
declare -A cmd=(
  [ceiling]="$ceiling --bytes $bytes"
  [ceiling_blocking]="$ceiling --block --bytes $bytes"
  [gnu_yes]="yes | head -c $small"
  [pipe_only]="$fz --pipe-only --threads 1 --bytes $bytes"
  [always_t1]="$fz --reuse always --threads 1 --bytes $bytes"
  [always_t2]="$fz --reuse always --threads 2 --bytes $bytes"
  [always_t7]="$fz --reuse always --threads 7 --bytes $bytes"
  [default]="$fz --bytes $bytes"
  [auto_t1]="$fz --threads 1 --bytes $bytes"
  [auto_t2]="$fz --threads 2 --bytes $bytes"
  [never_t1]="$fz --reuse never --threads 1 --bytes $bytes"
  [never_t2]="$fz --reuse never --threads 2 --bytes $bytes"
  [fizzgen_yes]="$fz yes --bytes $bytes"
)
declare -A size=([gnu_yes]=$small)
declare -A runs

rate() {  # GiB/s of one run of configuration $1
  local n=$1 start end b=${size[$1]:-$bytes}
  start=$(date +%s.%N)
  # pv's stderr goes to /dev/null as on a terminal: a pipe there would be a place pv could forward
  # our pages to, and --reuse auto would (rightly) fall back to fresh pages.
  bash -c "${cmd[$n]} | pv -q >/dev/null 2>/dev/null"
  end=$(date +%s.%N)
  awk -v b="$b" -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", b / 1073741824 / (e - s) }'
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, kernel $(uname -r)," \
  "THP $(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled), pipe-max-size $(cat /proc/sys/fs/pipe-max-size)," \
  "arch $("$fz" --list-archs | awk '/default/ { print $1 }')"
echo "$reps rounds of ${gib} GiB each (GNU yes: $((small >> 30)) GiB), round-robin"
for ((r = 1; r <= reps; r++)); do
  for n in "${names[@]}"; do runs[$n]+="$(rate "$n") "; done
done
declare -A med
printf '%-18s %8s   %s\n' config "GiB/s" "runs"
for n in "${names[@]}"; do
  med[$n]=$(echo "${runs[$n]}" | median)
  printf '%-18s %8s   %s\n' "$n" "${med[$n]}" "${runs[$n]}"
done
ratio() { awk -v a="${med[$1]}" -v b="${med[$2]}" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }
best_auto=$(awk -v a="${med[auto_t1]}" -v b="${med[auto_t2]}" 'BEGIN { print (a > b) ? "auto_t1" : "auto_t2" }')
best_always=$(awk -v a="${med[always_t1]}" -v b="${med[always_t2]}" 'BEGIN { print (a > b) ? "always_t1" : "always_t2" }')
echo
echo "ratios (medians, same run):"
echo "  pipe_only / ceiling            $(ratio pipe_only ceiling)   (target >= 0.9)"
echo "  best --reuse always / ceiling  $(ratio "$best_always" ceiling)   (target >= 0.4; $best_always)"
echo "  fizzgen yes / ceiling          $(ratio fizzgen_yes ceiling)   (target >= 0.9)"
echo "  fizzgen yes / GNU yes          $(ratio fizzgen_yes gnu_yes)   (target >= 10)"
echo "  --threads 7 / best             $(ratio always_t7 "$best_always")   (target >= 0.7)"
echo "  default (auto) / always        $(ratio "$best_auto" "$best_always")   (target >= 0.9; best of 1 and 2 threads each)"
echo "  plain fizzgen / best always    $(ratio default "$best_always")   (no options at all: the main job)"
echo "  --reuse never t1 / always t1   $(ratio never_t1 always_t1)   (aim >= 0.5)"
echo "  ceiling blocking / spinning    $(ratio ceiling_blocking ceiling)"

echo
echo "generation alone, 1 thread, 1 MiB chunks (fizzgen_kernel_bench, median of 5):"
kb="$build/bench/fizzgen_kernel_bench"
if [ -x "$kb" ]; then
  arch=$("$fz" --list-archs | awk '/default/ { print $1 }')
  "$kb" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_filter="memset|classic/from_1e9/$arch\$" 2>/dev/null |
    awk '/_median/ { for (i = 1; i <= NF; i++) if ($i ~ /bytes_per_second=/) { split($i, v, "="); r[$1] = v[2] + 0; print "  " $1 " " v[2] } }
         END { for (k in r) if (k ~ /memset/) m = r[k]; else g = r[k]; if (m > 0) printf "  generation / memset            %.2f   (target >= 0.5)\n", g / m }'
fi

echo
echo "verification through pv -q (1 GiB each):"
for t in 1 2 7; do
  for reuse in auto always never; do
    printf '  --reuse %-6s --threads %s: ' "$reuse" "$t"
    "$fz" --reuse "$reuse" --threads "$t" --bytes 1G | pv -q | "$fz" check
  done
done
printf '  fizzgen yes vs GNU yes: '
cmp <("$fz" yes --bytes 1G | pv -q) <(yes | head -c 1G) && echo identical
