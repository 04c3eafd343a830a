#!/usr/bin/env bash
# Plots the results of `fizzgen bench --json FILE` with gnuplot (Debian: apt-get install gnuplot-nox).
# The Debian package installs it as /usr/share/fizzgen/plot.sh (and suggests gnuplot-nox):
#
#   bench/plot.sh FILE [OUT_DIR] [svg|png]        (defaults: . svg)
#
# writes OUT_DIR/bench-threads.FMT     throughput against worker threads, one line per measurement
#        OUT_DIR/bench-pipe-size.FMT   throughput against --pipe-size (at the default thread count)
#        OUT_DIR/bench-chunk-size.FMT  throughput against chunk size (at the default thread count)
# Points are medians, error bars min..max of the repetitions. It reads the JSON with python3's json
# module, so any layout of the same document works; nothing else is needed besides gnuplot.
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
command -v python3 >/dev/null || { echo "$0: python3 is required (apt-get install python3)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One data file per (sweep, series): "x median min max", and the series' title beside it; the
# machine and settings lines for the titles; the CPU count for the oversubscription mark.
python3 - "$json" "$tmp" "$0" <<'PY' || exit 2
import json, re, sys
path, tmp = sys.argv[1], sys.argv[2]
try:
    with open(path) as f:
        doc = json.load(f)
    results = doc["results"]
except (OSError, ValueError, KeyError, TypeError):
    sys.exit(f"{sys.argv[3]}: {path} holds no fizzgen bench results")
m, st = doc.get("machine", {}), doc.get("settings", {})
with open(f"{tmp}/machine", "w") as f:
    print(f"{m.get('cpu_model', '')}, {m.get('cpus_allowed', 0)} CPUs allowed, kernel {m.get('kernel', '')}, "
          f"THP {m.get('thp', '')}, arch {m.get('arch', '')}", file=f)
with open(f"{tmp}/settings", "w") as f:
    print(f"medians of {st.get('reps', 0)} runs of {st.get('bytes_per_run', 0) / 1073741824:.2f} GiB (bars: min-max)", file=f)
with open(f"{tmp}/cpus", "w") as f:
    print(m.get("cpus_allowed", ""), file=f)
series = {}
for r in results:
    if r.get("progress"):
        continue
    for sweep, x in (("threads", "threads"), ("pipe_size", "pipe_size"), ("chunk_bytes", "chunk_bytes")):
        if sweep in r.get("sweeps", []):
            name = r["series"]
            series.setdefault(sweep, {}).setdefault(name, []).append(
                (r[x], r["median_gib_per_second"], r["min_gib_per_second"], r["max_gib_per_second"]))
for sweep, by_name in series.items():
    with open(f"{tmp}/{sweep}.series", "w") as index:
        for name, points in by_name.items():
            file = re.sub(r"[^A-Za-z0-9]+", "_", f"{sweep}-{name}")
            print(f"{file}\t{name}", file=index)
            with open(f"{tmp}/{file}.dat", "w") as f:
                for p in sorted(points):
                    print(*p, file=f)
PY
mkdir -p "$out"
machine=$(cat "$tmp/machine" 2>/dev/null || echo "unknown machine")
settings=$(cat "$tmp/settings" 2>/dev/null || echo "")
cpus=$(cat "$tmp/cpus" 2>/dev/null || echo "")

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
