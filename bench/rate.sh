#!/usr/bin/env bash
# --rate accuracy: for each rate, fizzgen --rate R --duration SECONDS into a reader that stamps
# every read(2) with a monotonic clock, then the bytes of every whole second (the reads after each
# read up to a second later) against the rate: the lowest and highest window as a ratio to R. An
# ideal pacer gives 1.000 / 1.000; the aim is 2%. The reader is Python: on a loaded machine its own
# delays show up as both extremes, and it cannot keep up with rates of about 1 GiB/s or more.
#
#   bench/rate.sh [SECONDS] [FIZZGEN] [RATES...]    (defaults: 4, build/release/fizzgen, 1K 64K 1M 100M 1G)
set -euo pipefail
seconds=${1:-4}
fizzgen=${2:-build/release/fizzgen}
shift $(($# < 2 ? $# : 2))
rates=("$@")
[ ${#rates[@]} -gt 0 ] || rates=(1K 64K 1M 100M 1G)
[ -x "$fizzgen" ] || { echo "rate.sh: no fizzgen at $fizzgen" >&2; exit 2; }

reader='
import os, sys, time, bisect
rate = int(sys.argv[1])
stamps, totals, total = [], [], 0
while True:
    b = os.read(0, 1 << 20)
    if not b:
        break
    total += len(b)
    stamps.append(time.monotonic())
    totals.append(total)
lo, hi = float("inf"), 0.0
for i, t in enumerate(stamps):
    j = bisect.bisect_right(stamps, t + 1.0)
    if j == len(stamps):
        break
    got = totals[j - 1] - totals[i]  # reads stamped in (t, t + 1]
    lo, hi = min(lo, got / rate), max(hi, got / rate)
print("%d bytes; whole seconds: lowest %.4f, highest %.4f of the rate" % (total, lo, hi))
'

bytes_of() { "$fizzgen" --count 0 --rate "$1" --stats 2>&1 | sed -n 's/.*--rate \([0-9]*\) bytes.*/\1/p'; }
for r in "${rates[@]}"; do
  per_second=$(bytes_of "$r")
  printf '%-6s %12s B/s: ' "$r" "$per_second"
  "$fizzgen" --rate "$r" --duration "$seconds" | python3 -c "$reader" "$per_second"
done
