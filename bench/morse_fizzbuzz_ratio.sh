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

gib=$(numfmt --from=iec "$bytes" | awk '{ print $1 / 1073741824 }')
stats=$(mktemp)
trap 'rm -f "$stats"' EXIT
# One generate-only run: GiB/s from its --stats line (wall time), and GiB per CPU second (user +
# system, which a machine shared with other work disturbs less: a preempted run is not charged).
rate() {
  local cpu
  cpu=$({ TIMEFORMAT='%U %S' && time "$@" --generate-only --threads 1 --bytes "$bytes" --stats >/dev/null 2>"$stats"; } 2>&1)
  printf '%s %s\n' "$(sed -n 's/.*= \([0-9.]*\) GiB\/s.*/\1/p' "$stats" | head -1)" \
    "$(awk -v g="$gib" -v c="$cpu" 'BEGIN { split(c, t, " "); printf "%.2f", g / (t[1] + t[2]) }')"
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }'; }

echo "fizzgen $fz, $bytes per run, $reps rounds, one thread, generate-only${old:+, old binary $old}"
echo "$(lscpu | sed -n 's/^Model name: *//p'), L2 $(lscpu | sed -n 's/^L2 cache: *//p'), kernel $(uname -r)"
echo "GiB/s: wall (from --stats) / per CPU second; ratios: median of the rounds' ratios (min-max)"
for i in "${!rule_sets[@]}"; do
  # shellcheck disable=SC2206  # the rules are words on purpose
  rules=(${rule_sets[$i]})
  for kind in wall cpu; do declare -a "plain_$kind=()" "morse_$kind=()" "old_$kind=()" "ratio_$kind=()" "gain_$kind=()"; done
  for ((r = 0; r < reps; ++r)); do
    read -r pw pc < <(rate "$fz" "${rules[@]}")
    read -r mw mc < <(rate "$fz" morse "${rules[@]}")
    plain_wall+=("$pw") plain_cpu+=("$pc") morse_wall+=("$mw") morse_cpu+=("$mc")
    ratio_wall+=("$(awk -v m="$mw" -v p="$pw" 'BEGIN { print m / p }')")
    ratio_cpu+=("$(awk -v m="$mc" -v p="$pc" 'BEGIN { print m / p }')")
    if [ -n "$old" ]; then
      read -r ow oc < <(rate "$old" morse "${rules[@]}")
      old_wall+=("$ow") old_cpu+=("$oc")
      gain_wall+=("$(awk -v m="$mw" -v o="$ow" 'BEGIN { print m / o }')")
      gain_cpu+=("$(awk -v m="$mc" -v o="$oc" 'BEGIN { print m / o }')")
    fi
  done
  for kind in wall cpu; do
    declare -n pl="plain_$kind" mo="morse_$kind" ol="old_$kind" ra="ratio_$kind" ga="gain_$kind"
    printf '%-22s %-4s plain %6s  morse %6s  morse/plain %5.2f (%s)' "${names[$i]}" "$kind" "$(median "${pl[@]}")" \
      "$(median "${mo[@]}")" "$(median "${ra[@]}")" "$(range "${ra[@]}")"
    [ -n "$old" ] && printf '  old morse %6s  new/old %5.2f (%s)' "$(median "${ol[@]}")" "$(median "${ga[@]}")" \
      "$(range "${ga[@]}")"
    echo
    unset -n pl mo ol ra ga
  done
done
