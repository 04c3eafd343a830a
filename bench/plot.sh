#!/usr/bin/env bash
# Plots the results of `fizzgen bench --json FILE` with gnuplot (Debian: apt-get install gnuplot-nox).
# The Debian package installs it as /usr/share/fizzgen/plot.sh (and suggests gnuplot-nox):
#
#   bench/plot.sh FILE [OUT_DIR] [svg|png]        (defaults: . svg)
#
# writes OUT_DIR/bench-threads.FMT     throughput against worker threads, one line per measurement
#        OUT_DIR/bench-pipe-size.FMT   throughput against --pipe-size (at the default thread count)
#        OUT_DIR/bench-chunk-size.FMT  throughput against chunk size (at the default thread count)
# Points are medians, error bars min..max of the repetitions. It reads the JSON as fizzgen bench
# writes it (one result per line); nothing else is needed besides gnuplot and awk.
set -euo pipefail
if [[ $# -lt 1 || $# -gt 3 ]]; then
  echo "usage: $0 BENCH_JSON [OUT_DIR] [svg|png]" >&2
  exit 2
fi
json=$1
out=${2:-.}
fmt=${3:-svg}
[[ -r $json ]] || { echo "$0: cannot read $json" >&2; exit 2; }
[[ $fmt == svg || $fmt == png ]] || { echo "$0: format must be svg or png, not $fmt" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "$0: gnuplot is required (apt-get install gnuplot-nox)" >&2; exit 1; }
grep -q '"series": ' "$json" || { echo "$0: $json holds no fizzgen bench results" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One data file per (sweep, series): "x median min max", and the series' title beside it.
awk -v dir="$tmp" '
  function str(k,   m) { return match($0, "\"" k "\": \"[^\"]*\"") ? substr($0, RSTART + length(k) + 5, RLENGTH - length(k) - 6) : "" }
  function num(k)      { return match($0, "\"" k "\": [-0-9.e+]+") ? substr($0, RSTART + length(k) + 4, RLENGTH - length(k) - 4) + 0 : 0 }
  function emit(sweep, x,   name, file) {
    name = str("series"); file = sweep "-" name; gsub(/[^A-Za-z0-9]+/, "_", file)
    if (!((sweep, name) in seen)) { seen[sweep, name] = 1; print file "\t" name > (dir "/" sweep ".series") }
    print x, num("median_gib_per_second"), num("min_gib_per_second"), num("max_gib_per_second") > (dir "/" file ".dat")
  }
  /"cpu_model": / { printf "%s, %d CPUs allowed, kernel %s, THP %s, arch %s\n", str("cpu_model"), num("cpus_allowed"), str("kernel"), str("thp"), str("arch") > (dir "/machine") }
  /"bytes_per_run": / { printf "medians of %d runs of %.2f GiB (bars: min-max)\n", num("reps"), num("bytes_per_run") / 1073741824 > (dir "/settings") }
  /"series": / && /"progress": false/ {
    if ($0 ~ /"sweeps": \[[^]]*"threads"/)     emit("threads", num("threads"))
    if ($0 ~ /"sweeps": \[[^]]*"pipe_size"/)   emit("pipe_size", num("pipe_size"))
    if ($0 ~ /"sweeps": \[[^]]*"chunk_bytes"/) emit("chunk_bytes", num("chunk_bytes"))
  }
' "$json"
for f in "$tmp"/*.dat; do sort -g -o "$f" "$f"; done
machine=$(cat "$tmp/machine" 2>/dev/null || echo "unknown machine")
settings=$(cat "$tmp/settings" 2>/dev/null || echo "")
cpus=$(awk '/"cpus_allowed": / { match($0, /"cpus_allowed": [0-9]+/); print substr($0, RSTART + 16, RLENGTH - 16) }' "$json")

if [[ $fmt == svg ]]; then
  terminal='set terminal svg size 800,520 dynamic noenhanced font "sans,12" background "white"'
else
  terminal='set terminal png size 800,520 noenhanced font "sans,10"'
fi

# plot SWEEP OUTPUT XLABEL LOGX: one gnuplot run over the sweep's series.
plot() {
  local sweep=$1 file=$2 xlabel=$3 logx=$4 cmd="" sep="" data title
  [[ -s $tmp/$sweep.series ]] || { echo "$0: no $sweep results in $json" >&2; return 0; }
  while IFS=$'\t' read -r data title; do
    cmd+="${sep}'$tmp/$data.dat' using 1:2:3:4 with yerrorlines lw 2 pointtype 7 title \"$title\""
    sep=", "
  done <"$tmp/$sweep.series"
  {
    echo "$terminal"
    echo "set output '$out/$file.$fmt'"
    echo "set title \"fizzgen bench: GiB/s against $xlabel\\n$machine\\n$settings\""
    echo "set xlabel '$xlabel'"
    echo "set ylabel 'GiB/s (producer)'"
    echo "set yrange [0:*]"
    echo "set grid"
    echo "set key tmargin center horizontal"
    echo "set offsets graph 0.05, graph 0.05, 0, 0"
    if [[ $logx == yes ]]; then
      echo "set logscale x 2"
      echo "set xtics ('4K' 4096, '16K' 16384, '64K' 65536, '256K' 262144, '512K' 524288, '1M' 1048576, '2M' 2097152, '4M' 4194304, '8M' 8388608, '16M' 16777216, '64M' 67108864)"
    else
      echo "set xtics 1"
      [[ -n $cpus ]] && echo "set arrow from $cpus.5, graph 0 to $cpus.5, graph 1 nohead dashtype 2 lc rgb 'gray'" &&
        echo "set label 'oversubscribed' at $cpus.6, graph 0.95 textcolor rgb 'gray'"
    fi
    echo "plot $cmd"
  } | gnuplot
  echo "$out/$file.$fmt"
}

plot threads bench-threads "worker threads" no
plot pipe_size bench-pipe-size "pipe size (--pipe-size)" yes
plot chunk_bytes bench-chunk-size "chunk size (--chunk-bytes)" yes
