#!/usr/bin/env bash
# fizzgen's Morse encoder and decoder against ripmors (the fast Rust Morse program), same run,
# taking turns: 256 MiB (or MIB) files to /dev/null, the wall time and the CPU time (user + system)
# of each command, medians of ROUNDS rounds, and ripmors / fizzgen as the per-core ratio of each
# (on a shared machine the CPU time is the steadier of the two). Inputs: English-like text
# (seeded), and the encoder's worst cases (every byte without a code, every byte '\n', every byte
# '$', a 7-symbol code); decode reads the Morse of the text and the decoder's worst cases (the
# Morse of the '$' file: every group 7 symbols; every byte '\n'). Each output is first compared
# with ripmors's, byte for byte.
#
#   bench/morse_vs_ripmors.sh FIZZGEN [RIPMORS] [ROUNDS] [MIB]
#
# "text.cat" is the text (for decode: its Morse) copied by cat (see below).
#
# Without ripmors (not found or not given) only fizzgen's times are printed. Needs python3.
set -euo pipefail

fz=${1:?usage: morse_vs_ripmors.sh FIZZGEN [RIPMORS] [ROUNDS] [MIB]}
rip=${2:-$(command -v ripmors || true)}
rounds=${3:-5}
mib=${4:-256}
[ -n "$rip" ] && [ ! -x "$rip" ] && rip=
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$mib" <<'PY'
import random, sys
work, mib = sys.argv[1], int(sys.argv[2])
n = mib << 20
random.seed(14)
words = ("the quick brown fox jumps over a lazy dog Hello, world. FizzBuzz 42 Morse code is fast? "
         "It's (really) e-mail: yes; no!").split()
parts, size = [], 0
while size < n:
    w = random.choice(words) + ("\n" if random.random() < 0.1 else " ")
    parts.append(w)
    size += len(w)
open(f"{work}/text", "w").write("".join(parts)[:n])
for name, byte in (("nocode", b"\x01"), ("newlines", b"\n"), ("dollars", b"$")):
    open(f"{work}/{name}", "wb").write(byte * n)
PY
# The same text written as cat writes a file, a little at a time: the page cache may then hold it
# in small pages where one write(2) left huge ones, and fizzgen reads such a file instead of
# mapping it (README, Morse).
cat "$work/text" >"$work/text.cat"
"$fz" morse encode --threads 1 "$work/text" >"$work/text.morse"
"$fz" morse encode --threads 1 "$work/dollars" >"$work/dollars.morse"
cat "$work/text.morse" >"$work/text.morse.cat"
if [ -n "$rip" ]; then
  for c in "-e ascii text" "-e ascii nocode" "-e ascii newlines" "-e ascii dollars" "-d text.morse" "-d text.morse.cat" "-d dollars.morse" "-d newlines"; do
    set -- $c
    f=${*: -1}
    cmd=encode
    [ "$1" = -d ] && cmd=decode
    if ! cmp -s <("$rip" "${@:1:$#-1}" <"$work/$f") <("$fz" morse $cmd --threads 1 "$work/$f"); then
      echo "morse $cmd of $f: fizzgen's output differs from ripmors's" >&2
      exit 1
    fi
  done
fi

echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, L2 $(lscpu | sed -n 's/^L2 cache: *//p'), kernel $(uname -r)"
echo "# $mib MiB files to /dev/null, wall time (CPU time), medians of $rounds rounds taking turns; fizzgen --threads 1 unless said; outputs identical"
# The timer: one Python process with no inherited fd above 2 (closerange), each command started
# with subprocess (close_fds), input from the file, output to /dev/null.
python3 - "$work" "$fz" "$rip" "$rounds" <<'PY'
import os, resource, statistics, subprocess, sys, time
os.closerange(3, 4096)
work, fz, rip, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
cases = [("encode text", ["-e", "ascii"], "encode", "text"), ("encode text.cat", ["-e", "ascii"], "encode", "text.cat"),
         ("encode nocode", ["-e", "ascii"], "encode", "nocode"),
         ("encode newlines", ["-e", "ascii"], "encode", "newlines"), ("encode dollars", ["-e", "ascii"], "encode", "dollars"),
         ("decode text", ["-d"], "decode", "text.morse"), ("decode text.cat", ["-d"], "decode", "text.morse.cat"),
         ("decode dollars", ["-d"], "decode", "dollars.morse"),
         ("decode newlines", ["-d"], "decode", "newlines")]
runs, cpus = {}, {}
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
def timed(key, argv, path):
    with open(path, "rb") as f, open(os.devnull, "wb") as null:
        c0, t0 = cpu(), time.perf_counter()
        subprocess.run(argv, stdin=f, stdout=null, check=True)
        runs.setdefault(key, []).append(time.perf_counter() - t0)
        cpus.setdefault(key, []).append(cpu() - c0)
for _ in range(rounds):
    for label, ropt, cmd, name in cases:
        path = f"{work}/{name}"
        if rip:
            timed((label, "ripmors"), [rip] + ropt, path)
        timed((label, "fizzgen"), [fz, "morse", cmd, "--threads", "1", path], path)
        if name in ("text", "text.cat", "text.morse", "text.morse.cat"):
            timed((label, "fizzgen x2"), [fz, "morse", cmd, "--threads", "2", path], path)
med = {k: statistics.median(v) for k, v in runs.items()}
cmed = {k: statistics.median(v) for k, v in cpus.items()}
def both(key):
    return f"{med[key]:.3f}s ({cmed[key]:.3f}s)" if key in med else "-"
def ratio(label):
    r, f = (label, "ripmors"), (label, "fizzgen")
    return f"{med[r] / med[f]:.2f}x ({cmed[r] / cmed[f]:.2f}x)" if r in med else "-"
print(f"{'case':<16} {'ripmors':>18} {'fizzgen':>18} {'ratio':>15} {'fizzgen --threads 2':>20}")
for label, _, _, name in cases:
    two = med.get((label, "fizzgen x2"))
    x2 = f"{two:.3f}s ({med[(label, 'fizzgen')] / two:.2f}x)" if two else ""
    print(f"{label:<16} {both((label, 'ripmors')):>18} {both((label, 'fizzgen')):>18} {ratio(label):>15} {x2:>20}")
PY
