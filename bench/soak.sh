#!/usr/bin/env bash
# Soak test: pushes GIB gibibytes in total (default 100) through fizzgen and `fizzgen check`, in
# rounds of random size with a random consumer between them (none, pv -q, pv -q -C, cat, dd), random
# threads, --reuse policy, rules and --from (past 2^64 and past 10^30 included). Some rounds end
# early on purpose: the consumer exits (head -c RANDOM) or fizzgen gets SIGTERM; then fizzgen must
# exit promptly and what came through must still verify. Every round starts a fresh fizzgen.
# Reports rounds, bytes verified and failures; exits 1 on any failure.
#
#   bench/soak.sh [GIB] [FIZZGEN]      FIZZGEN defaults to build/release/fizzgen; env SOAK_SEED
#                                      (reproducible rounds), SOAK_LOG (kept logs; default a temp dir),
#                                      SOAK_MAX_EXIT_MS (default 3000)
# Needs pv, GNU coreutils (timeout, head, dd).
set -uo pipefail

# How long fizzgen may take to exit once its reader left or it got SIGTERM. Generous: on a loaded
# shared machine a process can wait hundreds of ms for a CPU; the report gives the slowest seen.
max_exit_ms=${SOAK_MAX_EXIT_MS:-3000}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# ---- One round (run as `soak.sh --round ...` under timeout, so a hang is killed as a group) ----
# Prints "verified BYTES" on success; anything else on stdout or a non-zero status is a failure.
if [ "${1:-}" = "--round" ]; then
  shift
  kind=$1 consumer=$2 limit=$3 work=$4
  shift 4
  gen=("$@")  # fizzgen and its options, then "--", then check's options
  for ((i = 0; i < ${#gen[@]}; ++i)); do [ "${gen[i]}" = "--" ] && break; done
  check=("${gen[0]}" check "${gen[@]:i+1}")
  gen=("${gen[@]:0:i}")
  # What must arrive, when it is known: a lost tail fails.
  case $kind in full | head) check+=(--bytes "$limit") ;; esac

  consume() {
    case $consumer in
      pv) exec pv -q ;;
      pvC) exec pv -q -C ;;
      cat) exec cat ;;
      dd) exec dd bs=64K status=none ;;
    esac
  }
  produce() {
    "${gen[@]}" &
    echo $! >"$work/pid"
    wait $!
    echo "$? $(now_ms)" >"$work/gen"
  }
  cut_off() {
    head -c "$limit"
    now_ms >"$work/head"
  }
  pipeline() {  # fizzgen [| consumer] [| head -c LIMIT] | fizzgen check; statuses into $work/status
    case $kind:$consumer in
      head:none) produce | cut_off | "${check[@]}" ;;
      head:*) produce | consume | cut_off | "${check[@]}" ;;
      *:none) produce | "${check[@]}" ;;
      *) produce | consume | "${check[@]}" ;;
    esac >"$work/out" 2>"$work/err"
    echo "${PIPESTATUS[@]}" >"$work/status"
  }

  if [ "$kind" = stop ]; then
    pipeline &
    sleep "$(printf '0.%03d' "$limit")"
    until [ -s "$work/pid" ]; do sleep 0.01; done
    sent=$(now_ms)
    kill -TERM "$(cat "$work/pid")"
    wait
  else
    pipeline
  fi
  read -r -a status <"$work/status"
  check_rc=${status[${#status[@]} - 1]}
  read -r gen_rc gen_end <"$work/gen"
  bytes=$(sed -n 's/^fizzgen check: OK: [0-9]* lines, \([0-9]*\) bytes.*/\1/p' "$work/out")
  # A SIGTERM may come before the first byte: check refuses an empty stream it was not told of.
  if [ "$kind" = stop ] && [ "$check_rc" = 1 ] && grep -q '^fizzgen check: empty input' "$work/err"; then
    check_rc=0 bytes=0
  fi
  if [ "$check_rc" != 0 ] || [ -z "$bytes" ]; then
    echo "check failed: $(cat "$work/out" "$work/err" | head -c 600)"
    exit 1
  fi
  case $kind in
    full)
      [ "$gen_rc" = 0 ] || { echo "fizzgen exited $gen_rc"; exit 1; }
      [ "$bytes" = "$limit" ] || { echo "verified $bytes bytes, wanted $limit"; exit 1; }
      ;;
    head)
      # 141: killed by SIGPIPE as GNU tools are; 0: it had finished before the reader left.
      [ "$gen_rc" = 141 ] || [ "$gen_rc" = 0 ] || { echo "fizzgen exited $gen_rc after the reader left"; exit 1; }
      [ "$bytes" = "$limit" ] || { echo "verified $bytes bytes, head passed $limit"; exit 1; }
      late=$((gen_end - $(cat "$work/head")))
      [ "$late" -le "$max_exit_ms" ] || { echo "fizzgen took ${late} ms to exit after the reader left"; exit 1; }
      echo "exit_ms $late" >"$work/latency"
      ;;
    stop)
      [ "$gen_rc" = 143 ] || { echo "fizzgen exited $gen_rc after SIGTERM, not by the signal"; exit 1; }
      late=$((gen_end - sent))
      [ "$late" -le "$max_exit_ms" ] || { echo "fizzgen took ${late} ms to stop after SIGTERM"; exit 1; }
      echo "exit_ms $late" >"$work/latency"
      ;;
  esac
  echo "verified $bytes"
  exit 0
fi

# ---- The driver --------------------------------------------------------------------------------
gib=${1:-100}
fizzgen=${2:-build/release/fizzgen}
[ -x "$fizzgen" ] || { echo "soak: no fizzgen at $fizzgen (bench/soak.sh [GIB] [FIZZGEN])" >&2; exit 2; }
command -v pv >/dev/null || { echo "soak: needs pv" >&2; exit 2; }
seed=${SOAK_SEED:-$(($(date +%s) % 32768))}
RANDOM=$seed
logs=${SOAK_LOG:-$(mktemp -d /tmp/fizzgen-soak.XXXXXX)}
mkdir -p "$logs"
target=$((gib * 1024 * 1024 * 1024))
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

# The random helpers set variables instead of printing: a $(...) subshell reseeds RANDOM, which
# would make SOAK_SEED useless.
rand64() { r64=$(((RANDOM << 45) ^ (RANDOM << 30) ^ (RANDOM << 15) ^ RANDOM)); }
random_digits() {  # N random digits, the first not 0
  digits=$((1 + RANDOM % 9))
  while [ ${#digits} -lt "$1" ]; do digits+=$((RANDOM % 10)); done
}
random_from() {
  local nines
  case $((RANDOM % 8)) in
    0 | 1 | 2) from=1 ;;
    3) printf -v from '184467440737095%05d' $((51615 - RANDOM % 50000)) ;;  # 2^64 - k: crosses 2^64
    4) random_digits $((20 + RANDOM % 21)) && from=$digits ;;             # 20 to 40 digits
    5)                                                                     # just below 10^k
      printf -v nines '%*s' $((RANDOM % 36 + 1)) ''
      printf -v from '%s%03d' "${nines// /9}" $((RANDOM % 1000))
      ;;
    6) from=$(((RANDOM << 15 | RANDOM) + 1)) ;;
    7) random_digits 1 && from=99999999999999999999999999999$digits ;;  # 30 digits, near 10^30
  esac
}
random_rules() {
  case $((RANDOM % 6)) in
    0) rules="--rule 2:Even --rule 7:Seven" ;;
    1) rules="--rule 3:Fizz --rule 5:Buzz --rule 7:Bazz" ;;
    2) rules="--rule 4:Quad --rule 6:Hex --rule 9:Nine --rule 1000003:Prime" ;;
    *) rules="" ;;  # classic: the vector kernels
  esac
}

rounds=0 verified=0 failures=0 heads=0 stops=0 max_late=0
start=$(now_ms)
echo "soak: $gib GiB through $fizzgen, seed $seed, logs in $logs"
while [ "$verified" -lt "$target" ]; do
  rounds=$((rounds + 1))
  consumers=(none pv pvC cat dd)
  consumer=${consumers[RANDOM % 5]}
  threads=$((1 + RANDOM % 4))
  reuse=auto
  case $((RANDOM % 4)) in
    0) reuse=never ;;
    1) case $consumer in none | pvC | dd) reuse=always ;; esac ;;  # always: only readers that copy
  esac
  random_from
  random_rules
  gen=("$fizzgen" --threads "$threads" --reuse "$reuse" --from "$from")
  read -r -a rule_args <<<"$rules"
  gen+=("${rule_args[@]}")
  check_args=(--from "$from" "${rule_args[@]}")
  [ $((RANDOM % 2)) = 0 ] && check_args+=(--threads 1)
  kind=full
  case $((RANDOM % 20)) in
    0 | 1 | 2) kind=head ;;
    3 | 4 | 5) kind=stop ;;
  esac
  left=$((target - verified))
  case $kind in
    full)
      size=$((1 << (20 + RANDOM % 12)))  # 1 MiB to 2 GiB, log-uniform, then anywhere up to twice
      rand64
      size=$((size + r64 % size))
      [ "$size" -gt "$left" ] && size=$left
      [ "$size" -lt 1 ] && size=1
      gen+=(--bytes "$size")
      limit=$size
      deadline=$((60 + size / (50 * 1024 * 1024)))  # 50 MiB/s is far below any sane run
      ;;
    head)
      rand64
      limit=$((r64 % (1 << (10 + RANDOM % 22))))  # up to 2 GiB
      heads=$((heads + 1))
      deadline=120
      ;;
    stop)
      limit=$((RANDOM % 1000))  # ms before SIGTERM
      stops=$((stops + 1))
      deadline=60
      ;;
  esac
  work="$logs/round-$rounds"
  mkdir -p "$work"
  t0=$(now_ms)
  out=$(timeout -s KILL "$deadline" "$self" --round "$kind" "$consumer" "$limit" "$work" "${gen[@]}" -- "${check_args[@]}")
  rc=$?
  ms=$(($(now_ms) - t0))
  desc="round $rounds: $kind via $consumer, ${gen[*]:1} | check ${check_args[*]} (limit $limit)"
  if [ $rc -eq 0 ] && [[ $out == verified\ * ]]; then
    bytes=${out#verified }
    verified=$((verified + bytes))
    if [ -f "$work/latency" ]; then
      late=$(sed 's/exit_ms //' "$work/latency")
      [ "$late" -gt "$max_late" ] && max_late=$late
    fi
    rm -rf "$work"
    printf 'soak: %-5s ok   %14s bytes %7.2f GiB/s  %s\n' "#$rounds" "$bytes" \
      "$(echo "$bytes $ms" | awk '{ printf "%.2f", ($2 > 0 ? $1 / $2 * 1000 / 2^30 : 0) }')" "${desc#round *: }"
  else
    failures=$((failures + 1))
    [ $rc -eq 137 ] && out="timed out after ${deadline}s (killed) $out"
    echo "$desc" >"$work/what"
    echo "$out" >>"$work/what"
    printf 'soak: %-5s FAIL %s\n      %s\n' "#$rounds" "${desc#round *: }" "$out"
  fi
done
secs=$(( ($(now_ms) - start) / 1000 ))
printf 'soak: %d rounds (%d cut by the reader, %d stopped by SIGTERM), %d bytes (%.1f GiB) verified in %d s, %d failures; slowest exit after the reader left or SIGTERM: %d ms\n' \
  "$rounds" "$heads" "$stops" "$verified" "$(echo "$verified" | awk '{ printf "%.1f", $1 / 2^30 }')" "$secs" "$failures" "$max_late"
[ "$failures" -eq 0 ] && rmdir "$logs" 2>/dev/null
[ "$failures" -eq 0 ]
