#!/usr/bin/env bash
# Generation speed of the FizzBuzz stream in Morse against the plain stream, one thread,
# generate-only, for the classic rules and custom rules, in bytes per second (the Morse lines are
# longer). The configurations take turns (round-robin), each REPS times; each round's Morse run is
# divided by the same round's plain run, and the medians and the range of those ratios are printed.
# With OLD_FIZZGEN, that binary's Morse run takes its turn too (old against new, same rounds).
#
#   bench/morse_fizzbuzz_ratio.sh [FIZZGEN] [BYTES] [REPS] [OLD_FIZZGEN]   (defaults: build/release/fizzgen 8G 5)
set -euo pipefail
fz=${1:-build/release/fizzgen}
bytes=${2:-8G}
reps=${3:-5}
old=${4:-}

rule_sets=("" "--rule 3:Fizz --rule 5:Buzz --rule 7:Bazz" "--rule 2:Even --rule 7:Seven")
names=("classic" "3:Fizz 5:Buzz 7:Bazz" "2:Even 7:Seven")

# GiB/s of one generate-only run, from the --stats line.
rate() {
  "$@" --generate-only --threads 1 --bytes "$bytes" --stats 2>&1 >/dev/null |
    sed -n 's/.*= \([0-9.]*\) GiB\/s.*/\1/p' | head -1
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }'; }

echo "fizzgen $fz, $bytes per run, $reps rounds, one thread, generate-only${old:+, old binary $old}"
echo "$(lscpu | sed -n 's/^Model name: *//p'), L2 $(lscpu | sed -n 's/^L2 cache: *//p'), kernel $(uname -r)"
printf '%-22s %10s %10s %18s' "rules" "plain" "morse" "morse/plain"
[ -n "$old" ] && printf ' %10s %18s' "old morse" "new/old morse"
echo
for i in "${!rule_sets[@]}"; do
  # shellcheck disable=SC2206  # the rules are words on purpose
  rules=(${rule_sets[$i]})
  plain=() morse=() olds=() ratio=() gain=()
  for ((r = 0; r < reps; ++r)); do
    p=$(rate "$fz" "${rules[@]}")
    m=$(rate "$fz" morse "${rules[@]}")
    plain+=("$p") morse+=("$m")
    ratio+=("$(awk -v m="$m" -v p="$p" 'BEGIN { print m / p }')")
    if [ -n "$old" ]; then
      o=$(rate "$old" morse "${rules[@]}")
      olds+=("$o")
      gain+=("$(awk -v m="$m" -v o="$o" 'BEGIN { print m / o }')")
    fi
  done
  printf '%-22s %10s %10s %7.2f (%s)' "${names[$i]}" "$(median "${plain[@]}")" "$(median "${morse[@]}")" \
    "$(median "${ratio[@]}")" "$(range "${ratio[@]}")"
  [ -n "$old" ] && printf ' %10s %7.2f (%s)' "$(median "${olds[@]}")" "$(median "${gain[@]}")" "$(range "${gain[@]}")"
  echo
done
