#!/bin/sh
# tests/fuzz/make-seeds.sh - (re)makes the generated seeds of the fuzz
# corpora: tests/fuzz/trace/synth-*.paparc from build/tests/synth_trace's
# (and synth_mpi's)
# scenarios and a short traced Gsum run (fuzz_pathmap reads the sample,
# test and bad pathmaps in place: tests/fuzz/pathmap.seeds).  Run from the
# repository root after `make`; commit the result.  Inputs that a fuzzer
# found (crash-*, kept as regression tests) are not touched.  OTF2 archives
# are not byte-for-byte reproducible: rerun only to change the scenarios.
set -eu
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

mkdir -p tests/fuzz/trace
for s in gred3 chain foreign; do
  build/tests/synth_trace "$s" "$tmp/$s" > /dev/null
  python3 tests/fuzz/paparc.py pack "$tmp/$s" > "tests/fuzz/trace/synth-$s.paparc"
done
# An application trace (the profiling library's kind), hand-timed.
build/tests/synth_mpi "$tmp/mpi"
python3 tests/fuzz/paparc.py pack "$tmp/mpi" > tests/fuzz/trace/synth-mpi.paparc
# A real (small) trace: 2 hosts, a few operations.
$(mpirun_cmd) -np 2 bin/gsum -p pathmaps/demo.pathmap -n 3 -w 1 -s 4 --trace "$tmp/gsum" \
  > /dev/null
python3 tests/fuzz/paparc.py pack "$tmp/gsum" > tests/fuzz/trace/gsum-demo-n3.paparc
ls -l tests/fuzz/trace
