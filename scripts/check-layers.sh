#!/bin/sh
# check-layers.sh - fail on an #include that crosses layers the wrong way.
#
# usage: sh scripts/check-layers.sh              check this checkout
#        sh scripts/check-layers.sh --self-test  check that every rule bites
#        sh scripts/check-layers.sh --root DIR   check the tree at DIR
#
# The layers of docs/architecture.md, as allow-lists (anything not listed is
# forbidden).  "libc" is every <...> header except mpi.h, otf2/* and
# sqlite3.h.
#   common/                     libc, common/
#   runtime/core/, runtime/algo/  libc, common/, runtime/ except runtime/exec/
#                               (pure C: no mpi.h, not even through exec/)
#   runtime/ (api, exec, ...)   libc, common/, runtime/, mpi.h
#   instrument/                 libc, common/, runtime/api/, instrument/, otf2,
#                               mpi.h (OTF2's MPI collectives need it, and
#                               runtime/api/rt_exec.h brings it anyway)
#   analyze/                    libc, common/, instrument/api/, analyze/
#                               (its api/ too), otf2, sqlite3.h
#   viz/                        libc, common/, analyze/api/an_model.h, viz/
#   bridge/                     libc, common/, analyze/api/an_model.h,
#                               runtime/api/rt_pathmap.h, bridge/ (it turns
#                               a parsed pathmap into analyze's model)
#   gen/                        libc, common/, runtime/api/rt_pathmap.h, gen/
#                               (its api/ too; pathgen's model: pure C,
#                               validated by the runtime's parser)
#   advise/                     libc, common/, analyze/api/, gen/api/,
#                               advise/: the advice reads analyze's public
#                               API (no SQL of its own) and makes gen's
#                               edits; nothing below includes it
#   interpose/                  libc, mpi.h, common/, runtime/api/,
#                               instrument/api/, interpose/ (its api/ too):
#                               the MPI profiling library, above the runtime
#                               and the trace writer; nothing below includes it
#   examples/                   libc, mpi.h, common/, runtime/api/,
#                               instrument/api/, its own program's files:
#                               programs written as a user would, against
#                               the public headers
#   tools/, bench/              libc, mpi.h, otf2, sqlite3.h, common/, any
#                               layer's api/ (runtime/api/, gen/api/, ...),
#                               its own program's files (tools/papbench.c and
#                               tools/papbench/*: the program "papbench");
#                               bench/ also tests/ (a reference of the tests
#                               that a benchmark times against the real thing)
#   tests/                      anything (not checked)
# Headers: every header of a checked directory but common/ is either public,
# in an api/ directory, or private and named *_int.h, beside its code.
#
# The tree and its documentation: every top-level directory with C sources
# is checked (it is in LAYER_DIRS below) or is one of NOT_LAYERS; every
# directory of LAYER_DIRS has a row in the layer table of
# docs/architecture.md (its "Include rules" section), and every directory
# that table names exists.
# Project includes are rooted at the repository ("runtime/api/rt_exec.h",
# compiled with -I.); a quoted include with a ".." in it is refused, wherever
# it points.  A quoted name that is no file of the repository is taken as a
# system header ("mpi.h" is still mpi.h).  Only direct includes are checked:
# what a header pulls in is checked where that header lives.
set -eu

LAYER_DIRS="common runtime instrument analyze viz bridge gen advise interpose examples tools bench"
# Top-level directories that may hold C files without a rule: the tests
# (which may include anything) and the build's own output (build/san/ holds
# links to the sources).
NOT_LAYERS="tests build bin lib out"
# The page whose layer table must name every directory of LAYER_DIRS.
ARCH_DOC=docs/architecture.md

# Prints the files to check, relative to the current directory, sorted.
list_files() {
    for d in $LAYER_DIRS; do
        if [ -d "$d" ]; then
            find "$d" -type f \( -name '*.c' -o -name '*.h' \)
        fi
    done | LC_ALL=C sort
}

# Reads file names on stdin; prints one line per forbidden include and exits
# 1, or prints the ok line.
# shellcheck disable=SC2016 # awk's $ fields, not the shell's
CHECK_AWK='
function norm(p,    n, i, m, parts, out, r) {
    n = split(p, parts, "/"); m = 0
    for (i = 1; i <= n; i++) {
        if (parts[i] == "" || parts[i] == ".") continue
        if (parts[i] == ".." && m > 0 && out[m] != "..") { m--; continue }
        out[++m] = parts[i]
    }
    r = ""
    for (i = 1; i <= m; i++) r = r (i > 1 ? "/" : "") out[i]
    return r
}
function exists(p,    junk) {
    if ((getline junk < p) < 0) return 0
    close(p)
    return 1
}
function layer(f,    a) {
    split(f, a, "/")
    if (a[1] == "runtime" && (a[2] == "core" || a[2] == "algo")) return a[1] "/" a[2]
    return a[1]
}
# What a repository path belongs to, as the rules name it.
function area(t,    n, a) {
    if (t == "analyze/api/an_model.h" || t == "runtime/api/rt_pathmap.h") return t
    n = split(t, a, "/")
    if (n == 1) return t
    if (n > 2 && (a[1] == "runtime" ||
                  (a[2] == "api" && (a[1] == "instrument" || a[1] == "analyze" || a[1] == "gen" ||
                                     a[1] == "interpose"))))
        return a[1] "/" a[2] "/"
    return a[1] "/"
}
# The program a file of tools/, bench/ or examples/ belongs to:
# tools/papbench.c and tools/papbench/args.c are both "tools/papbench".
function prog(p,    a, n) {
    n = split(p, a, "/")
    if (n >= 3) return a[1] "/" a[2]
    sub(/\.[ch]$/, "", a[2])
    return a[1] "/" a[2]
}
function own(f, t) {
    return t != "" && prog(t) == prog(f)
}
function sysarea(name) {
    if (name == "mpi.h") return "mpi.h"
    if (name ~ /^otf2\//) return "otf2/"
    if (name == "sqlite3.h") return "sqlite3.h"
    return "libc"
}
# l: the layer of the including file f; z: the area of the included header,
# t: its repository path ("" for a system header).
function allowed(l, z, f, t) {
    if (z == "libc") return 1
    if (l == "common") return z == "common/"
    if (l == "runtime/core" || l == "runtime/algo")
        return z == "common/" || (z ~ /^runtime\// && z != "runtime/exec/")
    if (l == "runtime") return z == "common/" || z ~ /^runtime\// || z == "mpi.h"
    if (l == "instrument")
        return z == "common/" || z ~ /^runtime\/api\// || z ~ /^instrument\// ||
               z == "otf2/" || z == "mpi.h"
    if (l == "analyze")
        return z == "common/" || z == "instrument/api/" || z == "analyze/" ||
               z == "analyze/api/" || z == "analyze/api/an_model.h" || z == "otf2/" ||
               z == "sqlite3.h"
    if (l == "viz") return z == "common/" || z == "analyze/api/an_model.h" || z == "viz/"
    if (l == "bridge")
        return z == "common/" || z == "analyze/api/an_model.h" ||
               z == "runtime/api/rt_pathmap.h" || z == "bridge/"
    if (l == "gen")
        return z == "common/" || z == "runtime/api/rt_pathmap.h" || z == "gen/" ||
               z == "gen/api/"
    if (l == "advise")
        return z == "common/" || z == "analyze/api/" || z == "analyze/api/an_model.h" ||
               z == "gen/api/" || z == "advise/"
    if (l == "interpose")
        return z == "common/" || z ~ /^runtime\/api\// || z == "instrument/api/" ||
               z == "interpose/" || z == "interpose/api/" || z == "mpi.h"
    if (l == "examples")
        return z == "common/" || z == "runtime/api/" || z == "runtime/api/rt_pathmap.h" ||
               z == "instrument/api/" || z == "mpi.h" || own(f, t)
    # A benchmark may also time a reference of the tests against the real
    # thing (bench/clvbench.c: tests/unit/algo/clv_tree.h); tools may not.
    if (l == "bench" && z == "tests/") return 1
    if (l == "tools" || l == "bench")
        return z == "common/" || z == "mpi.h" || z == "otf2/" || z == "sqlite3.h" ||
               t ~ /^[^\/]+\/api\// || own(f, t)
    return 1
}
# A header of a program folder is reported as that folder.
function shown(z, t) {
    return t ~ /^(tools|bench|examples)\// ? prog(t) "/" : z
}
# The repository path a quoted include names, or "" for a system header.
function repo_path(kind, name,    t) {
    if (kind != "\"" || !index(name, "/")) return ""
    t = norm(name)
    return exists(t) ? t : ""
}
function target(kind, name, t) {
    if (kind == "\"" && name ~ /(^|\/)\.\.(\/|$)/) return "UNROOTED"
    return t != "" ? area(t) : sysarea(name)
}
function bad(f, ln, name, l, z) {
    printf "%s:%d: forbidden include \"%s\" (layer %s may not include %s)\n", f, ln, name, l, z
    nbad++
}
function check_line(f, ln, line, l,    rest, kind, endc, name, z, t) {
    if (line ~ /^[ \t]*#[ \t]*include[ \t]+[A-Za-z_]/) {
        rest = line; sub(/^[ \t]*#[ \t]*include[ \t]+/, "", rest); sub(/[ \t].*$/, "", rest)
        bad(f, ln, rest, l, "a computed include")
        return
    }
    if (line !~ /^[ \t]*#[ \t]*include[ \t]*[<"]/) return
    rest = line; sub(/^[ \t]*#[ \t]*include[ \t]*/, "", rest)
    kind = substr(rest, 1, 1); endc = kind == "<" ? ">" : "\""
    name = substr(rest, 2); name = substr(name, 1, index(name, endc) - 1)
    t = repo_path(kind, name)
    z = target(kind, name, t)
    if (z == "UNROOTED") {
        printf "%s:%d: include \"%s\" is not rooted at the repository (write it as from the top: \"runtime/api/rt_exec.h\")\n", f, ln, name
        nbad++
    } else if (!allowed(l, z, f, t)) bad(f, ln, name, l, shown(z, t))
}
# Private headers are *_int.h beside their code; public ones are in an api/
# directory.  common/ is all public and has no api/.
function check_name(f) {
    if (f !~ /\.h$/ || f ~ /^common\// || f ~ /(^|\/)api\// || f ~ /_int\.h$/) return
    printf "%s:1: header neither private nor public by its place: name it *_int.h beside its code, or move it to an api/ directory\n", f
    nbad++
}
{
    f = $0; nfiles++; ln = 0
    check_name(f)
    while ((rc = (getline line < f)) > 0) check_line(f, ++ln, line, layer(f))
    if (rc < 0) { printf "%s: cannot read\n", f; nbad++ }
    close(f)
}
END {
    if (nbad) { printf "check-layers: failed (%d bad includes)\n", nbad; exit 1 }
    printf "check-layers: ok (%d files)\n", nfiles
}'

# Prints one line per drift between the tree, LAYER_DIRS and the layer table
# of $ARCH_DOC (nothing when they agree).  Run in the tree's root.
# shellcheck disable=SC2016 # backquotes are Markdown text here
check_docs() {
    for d in */; do
        d=${d%/}
        case " $LAYER_DIRS $NOT_LAYERS " in *" $d "*) continue ;; esac
        c=$(find "$d" -type f -name '*.c' | LC_ALL=C sort | sed -n 1p)
        [ -z "$c" ] ||
            printf '%s:1: %s/ holds C sources but no rule of scripts/check-layers.sh covers it (add it to LAYER_DIRS with its rule, and a row to %s)\n' \
                "$c" "$d" "$ARCH_DOC"
    done
    h=$(grep -n '^### Include rules' "$ARCH_DOC" 2>/dev/null | sed -n '1s/:.*//p')
    if [ -z "$h" ]; then
        printf '%s:1: no "### Include rules" section (the layer table)\n' "$ARCH_DOC"
        return
    fi
    # "LINE DIR/" for every `DIR/` in the first column of the section's table.
    named=$(awk -v h="$h" 'NR > h && /^#/ { exit }
        NR > h && /^\|/ {
            split($0, col, "|"); rest = col[2]
            while (match(rest, /`[^` ]*\/`/)) {
                print NR, substr(rest, RSTART + 1, RLENGTH - 2)
                rest = substr(rest, RSTART + RLENGTH)
            }
        }' "$ARCH_DOC")
    while read -r ln dir; do
        [ -z "$dir" ] || [ -d "$dir" ] ||
            printf '%s:%s: the layer table names `%s`, which is no directory of the tree\n' \
                "$ARCH_DOC" "$ln" "$dir"
    done <<EOF
$named
EOF
    for d in $LAYER_DIRS; do
        case " $(printf '%s\n' "$named" | sed 's/^[0-9]* //' | tr '\n' ' ')" in
            *" $d/"*) ;;
            *) printf '%s:%s: the layer table has no row for `%s/` (a directory of LAYER_DIRS in scripts/check-layers.sh)\n' \
                   "$ARCH_DOC" "$h" "$d" ;;
        esac
    done
}

check_tree() {
    cd "$1"
    st=0
    out=$(list_files | awk "$CHECK_AWK") || st=1
    drift=$(check_docs)
    if [ -n "$drift" ]; then
        nd="$(printf '%s\n' "$drift" | wc -l | tr -d ' ') drift(s) between the tree, LAYER_DIRS and $ARCH_DOC"
        if [ "$st" -eq 0 ]; then
            out="check-layers: failed ($nd)"
        else
            out=$(printf '%s\n' "$out" | sed "\$s|)\$|; $nd)|")
        fi
        out="$drift
$out"
        st=1
    fi
    if [ "$st" -eq 0 ]; then
        printf '%s\n' "$out"
    else
        printf '%s\n' "$out" >&2
        return 1
    fi
}

# ---- self-test -------------------------------------------------------------

# Headers that includes below point at; they include nothing themselves.
TARGETS="common/cm_err.h common/cm_x.h runtime/api/rt.h runtime/api/rt_pathmap.h
runtime/core/pathmap_int.h runtime/exec/exec_int.h runtime/algo/algo_int.h
instrument/api/ins.h instrument/api/ins_schema.h instrument/ins_int.h
analyze/api/an_model.h analyze/api/an_other.h analyze/an_load_int.h
viz/viz_svg_int.h viz/api/viz_x.h bridge/br_x_int.h tests/tst.h
examples/ex/ex_int.h gen/api/gen_x.h tools/tl/tl_int.h bench/bb/bb_int.h
gen/gen_x_int.h advise/api/adv_x.h advise/adv_int.h interpose/api/ip_x.h interpose/ip_x_int.h"

# file|include line: everything a layer may include.
ALLOWED='common/ok.c|#include <stdio.h>
common/ok.c|#include <pthread.h>
common/ok.c|#include "common/cm_err.h"
common/ok.c|#include "common/cm_x.h"
common/ok.c|// #include <mpi.h> (a comment, not an include)
runtime/core/ok.c|#include <stdint.h>
runtime/core/ok.c|#include "runtime/api/rt.h"
runtime/core/ok.c|#include "runtime/core/pathmap_int.h"
runtime/core/ok.c|#include "common/cm_err.h"
runtime/algo/ok.c|#include "runtime/core/pathmap_int.h"
runtime/api/ok.h|#include <mpi.h>
runtime/api/ok.h|#include "runtime/api/rt.h"
runtime/api/ok.h|#include "common/cm_err.h"
runtime/exec/ok.c|#include <mpi.h>
runtime/exec/ok.c|#  include "runtime/exec/exec_int.h"
runtime/exec/ok.c|#include "runtime/api/rt.h"
runtime/exec/ok.c|#include "runtime/core/pathmap_int.h"
instrument/ok.c|#include <mpi.h>
instrument/ok.c|#include <otf2/OTF2_Archive.h>
instrument/ok.c|#include "runtime/api/rt.h"
instrument/ok.c|#include "runtime/api/rt_pathmap.h"
instrument/ok.c|#include "instrument/api/ins.h"
instrument/ok.c|#include "instrument/ins_int.h"
instrument/ok.c|#include "common/cm_err.h"
analyze/ok.c|#include <sqlite3.h>
analyze/ok.c|#include <otf2/OTF2_Reader.h>
analyze/ok.c|#include "instrument/api/ins_schema.h"
analyze/ok.c|#include "analyze/an_load_int.h"
analyze/ok.c|#include "analyze/api/an_other.h"
analyze/ok.c|#include "common/cm_err.h"
viz/ok.c|#include <math.h>
viz/ok.c|#include "analyze/api/an_model.h"
viz/ok.c|#include "common/cm_err.h"
viz/ok.c|#include "viz/viz_svg_int.h"
bridge/ok.c|#include <stdint.h>
bridge/ok.c|#include "analyze/api/an_model.h"
bridge/ok.c|#include "runtime/api/rt_pathmap.h"
bridge/ok.c|#include "bridge/br_x_int.h"
gen/ok.c|#include <stdio.h>
gen/ok.c|#include "common/cm_err.h"
gen/ok.c|#include "runtime/api/rt_pathmap.h"
gen/ok.c|#include "gen/api/gen_x.h"
gen/ok.c|#include "gen/gen_x_int.h"
advise/ok.c|#include <stdio.h>
advise/ok.c|#include "common/cm_err.h"
advise/ok.c|#include "analyze/api/an_model.h"
advise/ok.c|#include "analyze/api/an_other.h"
advise/ok.c|#include "gen/api/gen_x.h"
advise/ok.c|#include "advise/api/adv_x.h"
advise/ok.c|#include "advise/adv_int.h"
bridge/ok.c|#include "common/cm_err.h"
interpose/ok.c|#include <mpi.h>
interpose/ok.c|#include <pthread.h>
interpose/ok.c|#include "common/cm_err.h"
interpose/ok.c|#include "runtime/api/rt.h"
interpose/ok.c|#include "runtime/api/rt_pathmap.h"
interpose/ok.c|#include "instrument/api/ins.h"
interpose/ok.c|#include "interpose/api/ip_x.h"
interpose/ok.c|#include "interpose/ip_x_int.h"
examples/ok.c|#include <mpi.h>
examples/ok.c|#include <pthread.h>
examples/ok.c|#include "common/cm_err.h"
examples/ok.c|#include "runtime/api/rt.h"
examples/ok.c|#include "runtime/api/rt_pathmap.h"
examples/ok.c|#include "instrument/api/ins.h"
examples/ex.c|#include "examples/ex/ex_int.h"
examples/ex/part.c|#include "examples/ex/ex_int.h"
tests/ok.c|#include <sqlite3.h>
tools/ok.c|#include "advise/api/adv_x.h"
tests/ok.c|#include "runtime/exec/exec_int.h"
tests/ok.h|#include "viz/viz_svg_int.h"
tools/ok.c|#include <mpi.h>
tools/ok.c|#include <otf2/OTF2_Archive.h>
tools/ok.c|#include <sqlite3.h>
tools/ok.c|#include "common/cm_err.h"
tools/ok.c|#include "runtime/api/rt.h"
tools/ok.c|#include "runtime/api/rt_pathmap.h"
tools/ok.c|#include "analyze/api/an_model.h"
tools/ok.c|#include "analyze/api/an_other.h"
tools/ok.c|#include "viz/api/viz_x.h"
tools/ok.c|#include "gen/api/gen_x.h"
tools/tl.c|#include "tools/tl/tl_int.h"
tools/tl/part.c|#include "tools/tl/tl_int.h"
bench/ok.c|#include <mpi.h>
bench/ok.c|#include <otf2/OTF2_Reader.h>
bench/ok.c|#include "common/cm_x.h"
bench/ok.c|#include "instrument/api/ins.h"
bench/bb.c|#include "bench/bb/bb_int.h"
bench/ok.c|#include "tests/tst.h"'

# file|include line|name as written|layer|what it may not include
FORBIDDEN='common/bad.c|#include <mpi.h>|mpi.h|common|mpi.h
interpose/bad.c|#include <otf2/OTF2_Archive.h>|otf2/OTF2_Archive.h|interpose|otf2/
interpose/bad.c|#include <sqlite3.h>|sqlite3.h|interpose|sqlite3.h
interpose/bad.c|#include "runtime/exec/exec_int.h"|runtime/exec/exec_int.h|interpose|runtime/exec/
interpose/bad.c|#include "runtime/core/pathmap_int.h"|runtime/core/pathmap_int.h|interpose|runtime/core/
interpose/bad.c|#include "instrument/ins_int.h"|instrument/ins_int.h|interpose|instrument/
interpose/bad.c|#include "analyze/api/an_other.h"|analyze/api/an_other.h|interpose|analyze/api/
interpose/bad.c|#include "tests/tst.h"|tests/tst.h|interpose|tests/
runtime/exec/bad.c|#include "interpose/ip_x_int.h"|interpose/ip_x_int.h|runtime|interpose/
instrument/bad.c|#include "interpose/api/ip_x.h"|interpose/api/ip_x.h|instrument|interpose/api/
analyze/bad.c|#include "interpose/api/ip_x.h"|interpose/api/ip_x.h|analyze|interpose/api/
examples/bad.c|#include "interpose/api/ip_x.h"|interpose/api/ip_x.h|examples|interpose/api/
tools/bad.c|#include "interpose/ip_x_int.h"|interpose/ip_x_int.h|tools|interpose/
common/bad.c|#include <otf2/OTF2_Archive.h>|otf2/OTF2_Archive.h|common|otf2/
common/bad.h|#include <sqlite3.h>|sqlite3.h|common|sqlite3.h
common/bad.h|#include "runtime/api/rt.h"|runtime/api/rt.h|common|runtime/api/
runtime/exec/bad.c|#include <otf2/OTF2_Archive.h>|otf2/OTF2_Archive.h|runtime|otf2/
runtime/api/bad.h|#include <sqlite3.h>|sqlite3.h|runtime|sqlite3.h
runtime/api/bad.h|#include "instrument/api/ins.h"|instrument/api/ins.h|runtime|instrument/api/
runtime/exec/bad.c|#include "analyze/api/an_model.h"|analyze/api/an_model.h|runtime|analyze/api/an_model.h
runtime/exec/bad.c|#include "viz/viz_svg_int.h"|viz/viz_svg_int.h|runtime|viz/
runtime/exec/bad.c|#include "tests/tst.h"|tests/tst.h|runtime|tests/
runtime/exec/bad.c|#include "bridge/br_x_int.h"|bridge/br_x_int.h|runtime|bridge/
runtime/core/bad.c|#include <mpi.h>|mpi.h|runtime/core|mpi.h
runtime/core/bad.c|  #  include "mpi.h"|mpi.h|runtime/core|mpi.h
runtime/algo/bad.c|#include <mpi.h>|mpi.h|runtime/algo|mpi.h
runtime/core/bad.c|#include "runtime/exec/exec_int.h"|runtime/exec/exec_int.h|runtime/core|runtime/exec/
runtime/core/bad.c|#include "analyze/an_load_int.h"|analyze/an_load_int.h|runtime/core|analyze/
instrument/bad.c|#include <sqlite3.h>|sqlite3.h|instrument|sqlite3.h
instrument/bad.c|#include "analyze/api/an_model.h"|analyze/api/an_model.h|instrument|analyze/api/an_model.h
instrument/bad.c|#include "viz/viz_svg_int.h"|viz/viz_svg_int.h|instrument|viz/
instrument/bad.c|#include "runtime/core/pathmap_int.h"|runtime/core/pathmap_int.h|instrument|runtime/core/
analyze/bad.c|#include <mpi.h>|mpi.h|analyze|mpi.h
analyze/bad.c|#include "runtime/exec/exec_int.h"|runtime/exec/exec_int.h|analyze|runtime/exec/
analyze/bad.c|#include "runtime/api/rt_pathmap.h"|runtime/api/rt_pathmap.h|analyze|runtime/api/rt_pathmap.h
analyze/bad.c|#include "viz/viz_svg_int.h"|viz/viz_svg_int.h|analyze|viz/
analyze/bad.c|#include "instrument/ins_int.h"|instrument/ins_int.h|analyze|instrument/
analyze/bad.c|#include "bridge/br_x_int.h"|bridge/br_x_int.h|analyze|bridge/
viz/bad.c|#include <mpi.h>|mpi.h|viz|mpi.h
viz/bad.c|#include <otf2/OTF2_Reader.h>|otf2/OTF2_Reader.h|viz|otf2/
viz/bad.c|#include <sqlite3.h>|sqlite3.h|viz|sqlite3.h
viz/bad.c|#include "analyze/an_load_int.h"|analyze/an_load_int.h|viz|analyze/
viz/bad.c|#include "analyze/api/an_other.h"|analyze/api/an_other.h|viz|analyze/api/
viz/bad.c|#include "runtime/api/rt_pathmap.h"|runtime/api/rt_pathmap.h|viz|runtime/api/rt_pathmap.h
viz/bad.c|#include "bridge/br_x_int.h"|bridge/br_x_int.h|viz|bridge/
viz/bad.c|#include VIZ_HEADER|VIZ_HEADER|viz|a computed include
bridge/bad.c|#include <mpi.h>|mpi.h|bridge|mpi.h
bridge/bad.c|#include <sqlite3.h>|sqlite3.h|bridge|sqlite3.h
bridge/bad.c|#include "runtime/api/rt.h"|runtime/api/rt.h|bridge|runtime/api/
bridge/bad.c|#include "analyze/an_load_int.h"|analyze/an_load_int.h|bridge|analyze/
bridge/bad.c|#include "viz/viz_svg_int.h"|viz/viz_svg_int.h|bridge|viz/
gen/bad.c|#include <mpi.h>|mpi.h|gen|mpi.h
gen/bad.c|#include <sqlite3.h>|sqlite3.h|gen|sqlite3.h
gen/bad.c|#include "runtime/api/rt.h"|runtime/api/rt.h|gen|runtime/api/
gen/bad.c|#include "runtime/core/pathmap_int.h"|runtime/core/pathmap_int.h|gen|runtime/core/
gen/bad.c|#include "analyze/an_load_int.h"|analyze/an_load_int.h|gen|analyze/
gen/bad.c|#include "analyze/api/an_other.h"|analyze/api/an_other.h|gen|analyze/api/
gen/bad.c|#include "advise/api/adv_x.h"|advise/api/adv_x.h|gen|advise/
analyze/bad.c|#include "advise/api/adv_x.h"|advise/api/adv_x.h|analyze|advise/
analyze/bad.c|#include "gen/api/gen_x.h"|gen/api/gen_x.h|analyze|gen/api/
viz/bad.c|#include "advise/api/adv_x.h"|advise/api/adv_x.h|viz|advise/
advise/bad.c|#include <mpi.h>|mpi.h|advise|mpi.h
advise/bad.c|#include <sqlite3.h>|sqlite3.h|advise|sqlite3.h
advise/bad.c|#include <otf2/OTF2_Reader.h>|otf2/OTF2_Reader.h|advise|otf2/
advise/bad.c|#include "analyze/an_load_int.h"|analyze/an_load_int.h|advise|analyze/
advise/bad.c|#include "gen/gen_x_int.h"|gen/gen_x_int.h|advise|gen/
advise/bad.c|#include "runtime/api/rt_pathmap.h"|runtime/api/rt_pathmap.h|advise|runtime/api/rt_pathmap.h
advise/bad.c|#include "instrument/api/ins_schema.h"|instrument/api/ins_schema.h|advise|instrument/api/
advise/bad.c|#include "viz/viz_svg_int.h"|viz/viz_svg_int.h|advise|viz/
examples/bad.c|#include "runtime/exec/exec_int.h"|runtime/exec/exec_int.h|examples|runtime/exec/
examples/bad.c|#include "runtime/core/pathmap_int.h"|runtime/core/pathmap_int.h|examples|runtime/core/
examples/bad.c|#include "instrument/ins_int.h"|instrument/ins_int.h|examples|instrument/
examples/bad.c|#include "analyze/an_load_int.h"|analyze/an_load_int.h|examples|analyze/
examples/bad.c|#include "tests/tst.h"|tests/tst.h|examples|tests/
examples/bad.c|#include <otf2/OTF2_Archive.h>|otf2/OTF2_Archive.h|examples|otf2/
examples/bad.c|#include <sqlite3.h>|sqlite3.h|examples|sqlite3.h
examples/bad.c|#include "examples/ex/ex_int.h"|examples/ex/ex_int.h|examples|examples/ex/
examples/bad.c|#include "gen/api/gen_x.h"|gen/api/gen_x.h|examples|gen/api/
tools/bad.c|#include "runtime/algo/algo_int.h"|runtime/algo/algo_int.h|tools|runtime/algo/
tools/bad.c|#include "runtime/core/pathmap_int.h"|runtime/core/pathmap_int.h|tools|runtime/core/
tools/bad.c|#include "runtime/exec/exec_int.h"|runtime/exec/exec_int.h|tools|runtime/exec/
tools/bad.c|#include "instrument/ins_int.h"|instrument/ins_int.h|tools|instrument/
tools/bad.c|#include "analyze/an_load_int.h"|analyze/an_load_int.h|tools|analyze/
tools/bad.c|#include "viz/viz_svg_int.h"|viz/viz_svg_int.h|tools|viz/
tools/bad.c|#include "bridge/br_x_int.h"|bridge/br_x_int.h|tools|bridge/
tools/bad.c|#include "tests/tst.h"|tests/tst.h|tools|tests/
tools/bad.c|#include "tools/tl/tl_int.h"|tools/tl/tl_int.h|tools|tools/tl/
tools/tl/bad.c|#include "bench/bb/bb_int.h"|bench/bb/bb_int.h|tools|bench/bb/
bench/bad.c|#include "runtime/algo/algo_int.h"|runtime/algo/algo_int.h|bench|runtime/algo/
bench/bad.c|#include "analyze/an_load_int.h"|analyze/an_load_int.h|bench|analyze/
bench/bad.c|#include "tools/tl/tl_int.h"|tools/tl/tl_int.h|bench|tools/tl/'

# Headers of checked directories that are neither *_int.h nor in an api/
# directory (common/ is all public: its headers are among TARGETS).
MISNAMED="analyze/an_x.h runtime/core/core.h runtime/exec/exec.h runtime/algo/algo.h
instrument/ins_x.h viz/viz.h viz/viz_chart.h bridge/br.h gen/gen_priv.h examples/ex/ex.h
tools/tl/tl.h bench/bb/bb.h interpose/ip_x.h"

# file|include line|name as written: quoted includes that climb with "..",
# refused in every layer wherever they point (includes are rooted).
UNROOTED='common/bad.c|#include "../common/cm_err.h"|../common/cm_err.h
runtime/exec/bad.c|#include "../api/rt.h"|../api/rt.h
viz/bad.c|#include "../../outside.h"|../../outside.h
analyze/bad.c|#include "analyze/../analyze/an_load_int.h"|analyze/../analyze/an_load_int.h'

# Two comment lines first, so that the include is reported on line 3.
add_line() { # root file line
    mkdir -p "$1/$(dirname "$2")"
    if [ ! -f "$1/$2" ]; then
        printf '/* self-test */\n/* layer file */\n' > "$1/$2"
    fi
    printf '%s\n' "$3" >> "$1/$2"
}

# expect_caught FILE LINE WANT: with LINE added to FILE of the allowed tree,
# the check must fail with exactly one report, WANT.  Counts in cases/failed.
expect_caught() {
    cases=$((cases + 1))
    rm -f "$tmp/$1"
    add_line "$tmp" "$1" "$2"
    st=0
    out=$(sh "$0" --root "$tmp" 2>&1) || st=$?
    if [ "$st" -ne 1 ] || [ "$(printf '%s\n' "$out" | sed -n 1p)" != "$3" ] ||
       [ "$(printf '%s\n' "$out" | grep -c '^[^ ]*:[0-9]*: ')" -ne 1 ]; then
        printf 'self-test: not caught as expected: %s\n  want: %s\n  got (exit %s):\n%s\n' \
            "$2" "$3" "$st" "$out" >&2
        failed=$((failed + 1))
    fi
    rm -f "$tmp/$1"
}

# The layer table of the allowed tree's docs/architecture.md: a row for each
# directory of LAYER_DIRS (and tests/), optionally without one (DROP) or
# with one more row (EXTRA).
# shellcheck disable=SC2016 # backquotes are Markdown text here
write_doc() { # drop extra
    mkdir -p "$tmp/docs"
    {
        printf '### Include rules\n\n| directory | may include |\n|---|---|\n'
        for d in $LAYER_DIRS tests; do
            [ "$d" = "$1" ] || printf '| `%s/` | self-test |\n' "$d"
        done
        [ -z "$2" ] || printf '%s\n' "$2"
        printf '\n## After the table\n\n| `not/a/row/` | outside the section |\n'
    } > "$tmp/$ARCH_DOC"
}

# expect_drift DROP EXTRA WANT: with the layer table written so, the check
# must fail with exactly one report, WANT.
expect_drift() {
    cases=$((cases + 1))
    write_doc "$1" "$2"
    st=0
    out=$(sh "$0" --root "$tmp" 2>&1) || st=$?
    if [ "$st" -ne 1 ] || [ "$(printf '%s\n' "$out" | sed -n 1p)" != "$3" ] ||
       [ "$(printf '%s\n' "$out" | grep -c '^[^ ]*:[0-9]*: ')" -ne 1 ]; then
        printf 'self-test: drift not caught as expected: %s\n  want: %s\n  got (exit %s):\n%s\n' \
            "${1:+no row for $1}${2:+row $2}" "$3" "$st" "$out" >&2
        failed=$((failed + 1))
    fi
    write_doc "" ""
}

self_test() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-layers.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    failed=0 cases=0
    for t in $TARGETS; do
        mkdir -p "$tmp/$(dirname "$t")" && : > "$tmp/$t"
    done
    while IFS='|' read -r file line; do
        add_line "$tmp" "$file" "$line"
    done <<EOF
$ALLOWED
EOF
    write_doc "" ""
    # Every forbidden case below runs against this tree, so it also proves
    # that nothing allowed is reported.
    nfiles=$(cd "$tmp" && list_files | wc -l | tr -d ' ')
    if ! out=$(sh "$0" --root "$tmp" 2>&1) ||
       [ "$out" != "check-layers: ok ($nfiles files)" ]; then
        printf 'self-test: the allowed tree was rejected:\n%s\n' "$out" >&2
        failed=$((failed + 1))
    fi
    while IFS='|' read -r file line name lay what; do
        expect_caught "$file" "$line" \
            "$file:3: forbidden include \"$name\" (layer $lay may not include $what)"
    done <<EOF
$FORBIDDEN
EOF
    while IFS='|' read -r file line name; do
        expect_caught "$file" "$line" \
            "$file:3: include \"$name\" is not rooted at the repository (write it as from the top: \"runtime/api/rt_exec.h\")"
    done <<EOF
$UNROOTED
EOF
    for h in $MISNAMED; do
        expect_caught "$h" "/* a header */" \
            "$h:1: header neither private nor public by its place: name it *_int.h beside its code, or move it to an api/ directory"
    done
    # The tree against LAYER_DIRS and the layer table.
    expect_caught "newlayer/sub/x.c" "int x;" \
        "newlayer/sub/x.c:1: newlayer/ holds C sources but no rule of scripts/check-layers.sh covers it (add it to LAYER_DIRS with its rule, and a row to $ARCH_DOC)"
    for d in $LAYER_DIRS; do
        expect_drift "$d" "" \
            "$ARCH_DOC:1: the layer table has no row for \`$d/\` (a directory of LAYER_DIRS in scripts/check-layers.sh)"
    done
    # The extra row comes after the heading, a blank line, the header, the
    # separator and a row for each of LAYER_DIRS and tests/.
    extra=$(($(printf '%s ' "$LAYER_DIRS" tests | wc -w) + 5))
    # shellcheck disable=SC2016 # backquotes are Markdown text here
    expect_drift "" '| `tools/`, `nowhere/` | a directory that is not there |' \
        "$ARCH_DOC:$extra: the layer table names \`nowhere/\`, which is no directory of the tree"
    # shellcheck disable=SC2016 # backquotes are Markdown text here
    expect_drift "" '| `runtime/nothing/` | not there either |' \
        "$ARCH_DOC:$extra: the layer table names \`runtime/nothing/\`, which is no directory of the tree"
    if [ "$failed" -ne 0 ]; then
        echo "check-layers self-test: $failed failure(s)" >&2
        return 1
    fi
    echo "check-layers self-test: ok (allowed tree of $nfiles files, $cases forbidden includes, misnamed headers and drifts caught)"
}

case "${1:-}" in
    "") check_tree "$(dirname "$0")/.." ;;
    --root) check_tree "$2" ;;
    --self-test) self_test ;;
    *) echo "usage: sh scripts/check-layers.sh [--self-test | --root DIR]" >&2
       exit 2 ;;
esac
