#!/bin/sh
# make demo: Gsum on the demo pathmap (2 hosts x 2 threads, one proxy),
# traced into out/demo/trace (an OTF2 archive, docs/trace-format.md), then
# the native MPI_Allreduce baseline with as many contributors, so the two
# lines can be compared, and last papanalyze: the trace into
# out/demo/trace/traces.db (docs/analysis-db.md) and the report of the paper's
# tables, also saved as out/demo/report.{txt,csv,json}; last papviz: every
# picture as SVG and out/demo/report/index.html showing them with the report.
# Then the same threads through an algorithm node (pathmaps/algo-demo.pathmap:
# a gred per host, recursive doubling across), traced into out/demo/algo/trace,
# analysed, its schedule drawn, and a timemap comparing the two trees. Last, a
# plain MPI program (examples/jacobi.c) under bin/paprun: traced by call site,
# analysed, drawn, and run again with its allreduces on PRR (out/demo/app/).
# Output goes to out/demo/.
set -eu
cd "$(dirname "$0")/.."
PATHMAP=${PATHMAP:-pathmaps/demo.pathmap}
N=${N:-20000}
out=out/demo
mkdir -p "$out"

. bench/lib.sh   # paptree_mpirun: the one mpirun command line
summary=$(bin/pathmap-check "$PATHMAP")
hosts=$(echo "$summary" | sed -n 's/.*ok: \([0-9]*\) hosts.*/\1/p')
threads=$(echo "$summary" | sed -n '2s/.*, \([0-9]*\) threads,.*/\1/p')

echo "== pathmap $PATHMAP"
echo "$summary"
echo
echo "== mpirun -np $hosts bin/gsum -p $PATHMAP -n $N -s 4,256 --trace $out/trace --force"
# --force: the demo replaces its own previous archive (only ever an archive).
paptree_mpirun "$hosts" -- bin/gsum -p "$PATHMAP" -n "$N" -s 4,256 --trace "$out/trace" \
    --force | tee "$out/gsum.txt"
echo
echo "== mpirun -np $threads bin/gsum --native -n $N -s 4,256   (the baseline)"
paptree_mpirun "$threads" -- bin/gsum --native -n "$N" -s 4,256 | tee "$out/native.txt"
echo
echo "Trace: $out/trace/traces.otf2 (read it with: otf2-print $out/trace/traces.otf2 | less)"
echo "Results in $out/. This machine has $(nproc) CPUs; with more threads than CPUs both"
echo "runs are oversubscribed, so compare them as a ratio (docs/benchmarks.md)."
bin/papanalyze -q "$out/trace/traces.otf2"
bin/papanalyze --format csv "$out/trace/traces.db" > "$out/report.csv"
bin/papanalyze --format json "$out/trace/traces.db" > "$out/report.json"
bin/papanalyze "$out/trace/traces.db" > "$out/report.txt"
echo "Database: $out/trace/traces.db (sqlite3 $out/trace/traces.db; docs/analysis-db.md)"
echo
echo "== bin/papanalyze $out/trace/traces.otf2   (the report, also in $out/report.txt)"
cat "$out/report.txt"
echo
echo "== bin/papviz report $out/trace/traces.db -o $out/report   (the pictures)"
bin/papviz report "$out/trace/traces.db" -o "$out/report"
ls "$out/report"
echo "Open $out/report/index.html in a browser (hover over a mark for its value)."
echo "Report: $(pwd)/$out/report/index.html"
echo

ALGO_PATHMAP=${ALGO_PATHMAP:-pathmaps/algo-demo.pathmap}
algo=$out/algo
mkdir -p "$algo"
echo "== mpirun -np $hosts bin/gsum -p $ALGO_PATHMAP -n $N -s 4,256 --trace $algo/trace --force"
echo "   (the same threads; an algorithm node, recursive doubling, instead of the proxy and core)"
paptree_mpirun "$hosts" -- bin/gsum -p "$ALGO_PATHMAP" -n "$N" -s 4,256 --trace "$algo/trace" \
    --force | tee "$algo/gsum.txt"
bin/papanalyze -q "$algo/trace/traces.otf2"
bin/papanalyze "$algo/trace/traces.db" > "$algo/report.txt"
echo
echo "== bin/papanalyze $algo/trace/traces.db   (its algorithm-node section; all in $algo/report.txt)"
sed -n '/^Algorithm node/,/^Threads, fastest first/{/^Threads, fastest first/!p;}' "$algo/report.txt"
echo
echo "== bin/papviz schedule $algo/trace/traces.db -o $algo/schedule.svg   (rounds and messages per host)"
bin/papviz schedule "$algo/trace/traces.db" -o "$algo/schedule.svg"
echo "== bin/papviz timemap $out/trace/traces.db --compare $algo/trace/traces.db -o $out/compare-timemap.svg"
bin/papviz timemap "$out/trace/traces.db" --compare "$algo/trace/traces.db" -o "$out/compare-timemap.svg"
bin/papviz report "$algo/trace/traces.db" -o "$algo/report"
bin/papviz timeline -q "$algo/trace/traces.db" -o "$algo/timeline.json"
echo "Algorithm node: $(pwd)/$algo/report/index.html and $(pwd)/$algo/schedule.svg"
echo "Its timeline: $(pwd)/$algo/timeline.json (open it in https://ui.perfetto.dev: every"
echo "visit, round and message; docs/timeline.md)"
echo

# The third loop: a plain MPI program (examples/jacobi.c, built without paptree) run
# unchanged under paprun, its collectives traced by call site, then on PRR by a rule.
app=$out/app
mkdir -p "$app"
echo "== mpirun -np 4 bin/paprun --trace $app/trace --report -- bin/jacobi   (an unmodified MPI program)"
paptree_mpirun 4 -- bin/paprun --trace "$app/trace" --force --report -- bin/jacobi | tee "$app/run.txt"
bin/papanalyze "$app/trace/traces.otf2" > "$app/report.txt"
echo
echo "== bin/papanalyze $app/trace/traces.otf2   (collectives by call site; all in $app/report.txt)"
sed -n '/^Collectives by call site/,$p' "$app/report.txt"
echo
rules='allreduce:*=prr(arrival=history)'
echo "== mpirun -np 4 bin/paprun --algo '$rules' --report -- bin/jacobi   (its allreduces on PRR)"
paptree_mpirun 4 -- bin/paprun --algo "$rules" --trace "$app/prr" --force --report -- bin/jacobi \
    | tee "$app/run-prr.txt"
bin/papanalyze "$app/prr/traces.otf2" > "$app/report-prr.txt"
echo "== bin/papviz arrivals-by-site $app/trace/traces.db -o $app/arrivals-by-site.svg"
bin/papviz arrivals-by-site "$app/trace/traces.db" -o "$app/arrivals-by-site.svg"
echo "Your own program: $(pwd)/$app/arrivals-by-site.svg, $app/report.txt (trace only) and"
echo "$app/report-prr.txt (PRR by the rule); docs/paprun.md"
echo "The two trees side by side: $(pwd)/$out/compare-timemap.svg"
echo "Report: $(pwd)/$out/report/index.html"
