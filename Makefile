# paptree - plain GNU Makefile.  `make help` lists the targets.
#
# Layout of what is built:
#   lib/libpaptree.a   common/ + runtime/ (core, algo, exec) + instrument/
#   lib/libpapanalyze.a  analyze/ (the only code that links SQLite)
#   lib/libpapviz.a    viz/
#   lib/libpapadvise.a advise/ (advice: above analyze and gen)
#   bin/               every executable: the programs users run (tools/*.c),
#                      the benchmarks (bench/*.c), one file each, and the
#                      examples (examples/*.c, with examples/NAME/*.c)
#   build/             objects, test runner, test programs, sanitizer builds
#
# Includes are rooted at the repository (-I.): #include "runtime/api/rt_exec.h".
# The pure layers (common, runtime/core, runtime/algo, bridge, analyze, viz,
# gen, advise)
# compile without MPI's flags, so an mpi.h that sneaks into one of them fails
# the build, not just `make check-layers`.

CC       ?= cc
MPI_CFLAGS := $(shell pkg-config --cflags ompi-c 2>/dev/null)
MPI_LIBS   := $(shell pkg-config --libs ompi-c 2>/dev/null)
OTF2_LIBS  := $(shell pkg-config --libs otf2 2>/dev/null || echo -lopen-trace-format2)
SQLITE_LIBS := $(shell pkg-config --libs sqlite3 2>/dev/null || echo -lsqlite3)

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS   ?= -O2 -g
# SANITIZE: compile and link flags of a sanitizer tree (build/san/NAME, below);
# empty in the plain build.  Last, so its -O1 wins over CFLAGS' -O2.
SANITIZE ?=
CFLAGS   += -std=c11 -D_GNU_SOURCE -pthread $(WARN) $(SANITIZE)
CPPFLAGS += -I.
LDLIBS   := -pthread -lm

# Sources by layer.  Only runtime/exec, instrument/, programs and tests see
# MPI; only instrument/ (and analyze/'s reader) see OTF2 (make check-layers
# enforces what each directory may include).
LIB_SRC  := $(wildcard common/*.c runtime/core/*.c runtime/algo/*.c runtime/exec/*.c \
                       instrument/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=build/obj/%.o)
LIB      := lib/libpaptree.a
# analyze/: the trace analyser (OTF2 reader, metrics, SQLite), a library of
# its own so that only programs that analyse link SQLite.
ANA_SRC  := $(wildcard analyze/*.c)
ANA_OBJ  := $(ANA_SRC:%.c=build/obj/%.o)
ANA_LIB  := lib/libpapanalyze.a
# viz/: SVG charts from analyze's model (analyze/api/an_model.h); no SQL.
VIZ_SRC  := $(wildcard viz/*.c)
VIZ_OBJ  := $(VIZ_SRC:%.c=build/obj/%.o)
VIZ_LIB  := lib/libpapviz.a
# bridge/: converts runtime's parsed pathmap into analyze's model (papviz tree
# PATHMAP); linked only into the programs that need both sides.
BRIDGE_SRC := $(wildcard bridge/*.c)
BRIDGE_OBJ := $(BRIDGE_SRC:%.c=build/obj/%.o)
# gen/: pathgen's tree model, builders and edits (pure C; the runtime's
# pathmap parser validates what it writes).  bin/pathgen and the runner.
PGEN_SRC := $(wildcard gen/*.c)
PGEN_OBJ := $(PGEN_SRC:%.c=build/obj/%.o)
PGEN_LIB := lib/libpapgen.a
# advise/: advice from a database as pathgen edits; above analyze (whose
# public API it reads) and gen (whose edits it makes).  pathgen, papanalyze
# and the runner.
ADV_SRC  := $(wildcard advise/*.c)
ADV_OBJ  := $(ADV_SRC:%.c=build/obj/%.o)
ADV_LIB  := lib/libpapadvise.a

# tools/foo.c -> bin/foo (the programs users run); bench/foo.c -> bin/foo
TOOL_SRC    := $(wildcard tools/*.c)
# bench/mpicall.c is a plain MPI program (no paptree), built by mpicc alone (below).
BENCH_SRC   := $(filter-out bench/mpicall.c,$(wildcard bench/*.c))
TOOL_PROGS  := $(TOOL_SRC:tools/%.c=bin/%)
BENCH_PROGS := $(BENCH_SRC:bench/%.c=bin/%)
# examples/foo.c -> bin/foo: programs that use paptree as a user would (the
# public headers only: runtime/api, instrument/api, common; make check-layers);
# an example of several files keeps the others in examples/foo/ (below).
EXAMPLE_SRC   := $(wildcard examples/*.c)
EXAMPLE_PROGS := $(EXAMPLE_SRC:examples/%.c=bin/%)
EXAMPLE_PARTS := $(wildcard examples/*/*.c)
PROG_SRC    := $(TOOL_SRC) $(BENCH_SRC) $(EXAMPLE_SRC) $(EXAMPLE_PARTS)
# bin/papbench has parts of its own: tools/papbench/*.c (options, rows, output).
PAPBENCH_OBJ := $(patsubst %.c,build/obj/%.o,$(wildcard tools/papbench/*.c))
# bin/pathgen too: tools/pathgen/*.c (the subcommands).
PATHGEN_OBJ := $(patsubst %.c,build/obj/%.o,$(wildcard tools/pathgen/*.c))
# bin/gsum too: tools/gsum/*.c (options, agreement, expected results, memory, runs).
GSUM_OBJ := $(patsubst %.c,build/obj/%.o,$(wildcard tools/gsum/*.c))
# bin/papsim too: tools/papsim/*.c (options, one run and its lines).
PAPSIM_OBJ := $(patsubst %.c,build/obj/%.o,$(wildcard tools/papsim/*.c))
# bin/papviz too: tools/papviz/*.c (the timeline command).
PAPVIZ_OBJ := $(patsubst %.c,build/obj/%.o,$(wildcard tools/papviz/*.c))
PROGS       := $(TOOL_PROGS) $(BENCH_PROGS) $(EXAMPLE_PROGS) bin/mpicall

# Test runner: the registry (tests/test_list.h), the runner and every unit test.
TEST_SRC := tests/run_tests.c $(wildcard tests/unit/*/*.c)
TEST_OBJ := $(TEST_SRC:%.c=build/obj/%.o)
RUNNER   := build/run_tests
# MPI test programs: tests/mpi/foo.c -> build/tests/foo
MPIT_SRC := $(wildcard tests/mpi/*.c)
MPIT     := $(MPIT_SRC:tests/mpi/%.c=build/tests/%)
# Random pathmaps (tests/randtree/randtree.h, pure C): linked into the runner (its unit
# tests), build/tests/randtree (prints one seed's) and build/tests/exec_random.
GEN_OBJ  := build/obj/tests/randtree/randtree.o
GEN_PROG := build/tests/randtree
# Trace readers for the tests (OTF2, no MPI): tests/oracles/foo.c -> build/tests/foo,
# linked with its parts, tests/oracles/foo/*.c, if it has any (below).
TTOOL_SRC := $(wildcard tests/oracles/*.c)
TTOOLS    := $(TTOOL_SRC:tests/oracles/%.c=build/tests/%)
TTOOL_PARTS := $(wildcard tests/oracles/*/*.c)

# libFuzzer targets: tests/fuzz/fuzz_NAME.c defines LLVMFuzzerTestOneInput,
# seeds in tests/fuzz/NAME/.  A new input format is one more word here and its
# source file.  Built with clang in build/san/fuzz/ (make fuzz); the same
# sources linked with tests/fuzz/replay.c (a main that feeds it files) are
# build/tests/fuzz_NAME, which replay the corpora in every build (make test).
FUZZ_TARGETS := pathmap trace
FUZZ_OBJ     := $(FUZZ_TARGETS:%=build/obj/tests/fuzz/fuzz_%.o) build/obj/tests/fuzz/replay.o
FUZZ_REPLAY  := $(FUZZ_TARGETS:%=build/tests/fuzz_%)
FUZZ_BIN     := $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)
# Every object the build makes; each has a dependency file (-MMD) that is
# included at the end, so touching any header rebuilds what includes it.
ALL_OBJ  := $(LIB_OBJ) $(ANA_OBJ) $(VIZ_OBJ) $(BRIDGE_OBJ) $(PGEN_OBJ) $(ADV_OBJ) $(TEST_OBJ) \
            $(PROG_SRC:%.c=build/obj/%.o) $(MPIT_SRC:%.c=build/obj/%.o) \
            $(TTOOL_SRC:%.c=build/obj/%.o) $(FUZZ_OBJ) $(GEN_OBJ) build/obj/tests/randtree/randtree_main.o \
            $(PAPBENCH_OBJ) $(PATHGEN_OBJ) $(GSUM_OBJ) $(PAPSIM_OBJ) $(PAPVIZ_OBJ) $(TTOOL_PARTS:%.c=build/obj/%.o)
# Sources that see MPI's flags; every other directory is pure C.
uses_mpi  = $(filter runtime/exec/% instrument/% tools/% bench/% examples/% tests/%,$1)

# The parser alone, built with AddressSanitizer + UBSan for the bad-input corpus
# (with runtime/algo: an algorithm node's run= is checked against its table).
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_SRC   := $(wildcard common/*.c runtime/core/*.c runtime/algo/*.c) tools/pathmap-check.c
ASAN_CHECK := build/asan/pathmap-check

# Keep objects of programs: they are not throw-away intermediates.
.SECONDARY:

.PHONY: all deps test check check-mpi demo check-layers clean help bench asan \
        check-asan check-tsan fuzz fuzz-short fuzz-build san-tree soak pathmaps

all: $(LIB) $(ANA_LIB) $(VIZ_LIB) $(PGEN_LIB) $(ADV_LIB) $(PROGS) $(RUNNER) $(MPIT) $(TTOOLS) $(ASAN_CHECK) \
     $(FUZZ_REPLAY) $(GEN_PROG)

help:
	@echo "make            build lib/libpaptree.a, bin/*, the test runner"
	@echo "make deps       install missing Debian packages (Open MPI, OTF2, SQLite)"
	@echo "make test       the whole suite (unit, MPI, end-to-end); last line 'N passed, N failed'"
	@echo "make check      unit tests only (no MPI), seconds"
	@echo "make demo       deps, build, Gsum on pathmaps/demo.pathmap"
	@echo "make bench      compare-native, gredbench, tracebench, trace-overhead, analyze-bench, viz-bench, clvbench, papsim-paper,"
	@echo "                algobench, algo-tree, schedgen, pathgen-paper, osu-compare (with OSU_ALLREDUCE=path/to/osu_allreduce),"
	@echo "                paprun-overhead, paprun-osu (with OSU_DIR=dir of osu_allreduce, osu_bcast); bench/paprun-app.sh apart (apt-get hpcc)"
	@echo "make check-layers  fail on an #include that crosses layers the wrong way"
	@echo "make pathmaps   write the sample pathmaps again from pathmaps/MANIFEST (bin/pathgen)"
	@echo "make soak       long runs: 8W cluster x 25,000, 1 M demo allreduces with flat RSS, traced and analysed (minutes)"
	@echo "make check-asan  everything built with ASan+UBSan in build/san/asan/, the whole suite on it"
	@echo "make check-tsan  runtime built with TSan in build/san/tsan/: gred unit tests, Gsum, oracle, random trees"
	@echo "make fuzz        every libFuzzer target at once for FUZZ_SECONDS (default 600) s; fuzz-short: 40 s"
	@echo "make clean"

deps:
	@sh scripts/deps.sh

build/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(if $(call uses_mpi,$<),$(MPI_CFLAGS)) -MMD -MP -c $< -o $@

# The reduction kernels (runtime/exec/reduce.c): gcc 12's -O2 leaves them scalar (its
# "very cheap" vectoriser refuses loops that need a run-time aliasing check), and a
# 512 KiB int32 sum then takes 44 us instead of 15 us, which the schedule executor pays
# at every round of a large allreduce (docs/benchmarks.md, issue 15).  Element-wise, so
# vectorised results are bit-identical.  (Rebuilt when this file changes: a flag is
# not a prerequisite.)
build/obj/runtime/exec/reduce.o: CFLAGS += -ftree-vectorize
build/obj/runtime/exec/reduce.o: Makefile

$(LIB): $(LIB_OBJ)
	@mkdir -p lib
	rm -f $@
	ar rcs $@ $^

# ---- lib/libpaptree-mpi.so: the MPI profiling library (interpose/) -------
# Position-independent objects of their own (build/pic/): interpose/ and, in
# an archive from which the link takes only what it needs, common/,
# runtime/ and instrument/.  Every object that calls MPI but the wrappers
# (interpose/ip_wrap.c) is compiled with interpose/ip_pmpi_int.h forced in,
# which calls the intercepted functions by their PMPI_ names (that header
# says why).  The version script exports only the MPI_* and mpi_* names.
IP_SRC   := $(wildcard interpose/*.c)
IP_OBJ   := $(IP_SRC:%.c=build/pic/%.o)
IP_LIB   := lib/libpaptree-mpi.so
PIC_OBJ  := $(LIB_SRC:%.c=build/pic/%.o)
PIC_LIB  := build/pic/libpaptree-pic.a
ALL_OBJ  += $(IP_OBJ) $(PIC_OBJ)
all: $(IP_LIB)
ip_mpi    = $(filter runtime/exec/% instrument/% interpose/%,$1)
ip_pmpi   = $(if $(filter-out interpose/ip_wrap.c,$(call ip_mpi,$1)),-include interpose/ip_pmpi_int.h)

build/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC $(if $(filter interpose/%,$<),,-fvisibility=hidden) \
	  $(if $(call ip_mpi,$<),$(MPI_CFLAGS) $(call ip_pmpi,$<)) -MMD -MP -c $< -o $@
$(PIC_OBJ) $(IP_OBJ): interpose/ip_pmpi_int.h
# interpose/ is built position-independent only: build/obj/ has no object of it
# but paprun's rules (ip_rules.o) and the report's test copy (ip_report.c, in
# build/obj/tests/), so the plain rule must not offer one (make -n, as
# tests/infra/header-deps.sh asks it, would list objects nothing builds).
$(filter-out build/obj/interpose/ip_rules.o build/obj/interpose/ip_report.o,$(IP_SRC:%.c=build/obj/%.o)): ;
build/pic/runtime/exec/reduce.o: CFLAGS += -ftree-vectorize

$(PIC_LIB): $(PIC_OBJ)
	rm -f $@
	ar rcs $@ $^

$(IP_LIB): $(IP_OBJ) $(PIC_LIB) interpose/ip_exports.map
	@mkdir -p lib
	$(CC) $(CFLAGS) -shared -o $@ $(IP_OBJ) $(PIC_LIB) -Wl,--version-script=interpose/ip_exports.map \
	  -Wl,-z,defs $(MPI_LIBS) $(OTF2_LIBS) $(LDLIBS) -ldl

# The library's smoke test: a plain MPI program, built with MPI's flags alone
# (no paptree header or library), run with the library preloaded
# (tests/mpi/ip-smoke.sh).
all: build/tests/ip_smoke
build/tests/ip_smoke: tests/interpose/ip_smoke.c
	@mkdir -p build/tests
	$(CC) -O2 -g -Wall -Wextra -Werror -pthread $(MPI_CFLAGS) -o $@ $< $(MPI_LIBS)

$(ANA_LIB): $(ANA_OBJ)
	@mkdir -p lib
	rm -f $@
	ar rcs $@ $^

$(VIZ_LIB): $(VIZ_OBJ)
	@mkdir -p lib
	rm -f $@
	ar rcs $@ $^

$(PGEN_LIB): $(PGEN_OBJ)
	@mkdir -p lib
	rm -f $@
	ar rcs $@ $^

$(ADV_LIB): $(ADV_OBJ)
	@mkdir -p lib
	rm -f $@
	ar rcs $@ $^

# A program is tools/NAME.c or bench/NAME.c, linked with libpaptree, MPI and
# OTF2 unless it says otherwise below (PROG_LIBS, one line per program).
PROG_LIBS = $(LIB) $(MPI_LIBS) $(OTF2_LIBS) $(LDLIBS)

$(TOOL_PROGS): bin/%: build/obj/tools/%.o $(LIB)
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(PROG_LIBS)

$(BENCH_PROGS): bin/%: build/obj/bench/%.o $(LIB)
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(PROG_LIBS)

# An example links its own parts, examples/NAME/*.c, too.
$(EXAMPLE_PROGS): bin/%: build/obj/examples/%.o $(LIB)
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(PROG_LIBS)
bin/cg: $(patsubst %.c,build/obj/%.o,$(wildcard examples/cg/*.c))
# bin/jacobi is a plain MPI program (paprun's example): MPI alone, no paptree.
bin/jacobi: PROG_LIBS = $(MPI_LIBS) $(LDLIBS)
bin/papbench: $(PAPBENCH_OBJ)
bin/gsum: $(GSUM_OBJ)
bin/papsim: $(PAPSIM_OBJ)
# bin/clvbench measures clv against the reference Clairvoyant, which lives
# with the tests (tests/unit/algo/clv_tree.c), not in the library.
bin/clvbench: build/obj/tests/unit/algo/clv_tree.o
# tools/sweep is a Python 3 script (configurations x rounds of gsum/papbench):
# bin/sweep is a symbolic link to it (one copy: an edit of tools/sweep is
# what bin/sweep runs, with no make in between), part of `all`.
all: bin/sweep
bin/sweep: tools/sweep
	@mkdir -p bin
	ln -sfn ../tools/sweep $@

# bin/mpicall times collectives as a user's program would (bench/paprun-*.sh run it
# plainly and under bin/paprun): mpicc and nothing of paptree.
bin/mpicall: bench/mpicall.c
	@mkdir -p bin
	mpicc -O2 -g -std=c11 -D_GNU_SOURCE $(WARN) -o $@ $<

# The analyser (no MPI); advise/ and gen/ for --advise.
bin/papanalyze: $(ADV_LIB) $(PGEN_LIB) $(ANA_LIB)
bin/papanalyze: PROG_LIBS = $(ADV_LIB) $(PGEN_LIB) $(ANA_LIB) $(LIB) $(OTF2_LIBS) $(SQLITE_LIBS) $(LDLIBS)
# The charts (no MPI; the pathmap parser of libpaptree and bridge/ for
# `papviz tree PATHMAP`).
bin/papviz: $(BRIDGE_OBJ) $(PAPVIZ_OBJ) $(VIZ_LIB) $(ANA_LIB)
bin/papviz: PROG_LIBS = $(VIZ_LIB) $(ANA_LIB) $(LIB) $(OTF2_LIBS) $(SQLITE_LIBS) $(LDLIBS)
# pathgen: gen/, the parser, and advise/ with analyze/ for `pathgen advise DB` (no MPI).
bin/pathgen: $(PATHGEN_OBJ) $(ADV_LIB) $(PGEN_LIB) $(ANA_LIB)
bin/pathgen: PROG_LIBS = $(ADV_LIB) $(PGEN_LIB) $(ANA_LIB) $(LIB) $(OTF2_LIBS) $(SQLITE_LIBS) $(LDLIBS)
# The pathmap checker needs neither MPI nor OTF2.
bin/pathmap-check: PROG_LIBS = $(LIB) $(LDLIBS)
# paprun, the per-rank launcher of the profiling library, is no MPI program:
# it checks the --algo rules (interpose/ip_rules.o, pure C) before its exec.
IP_RULES_OBJ := build/obj/interpose/ip_rules.o
ALL_OBJ      += $(IP_RULES_OBJ)
bin/paprun: $(IP_RULES_OBJ)
bin/paprun: PROG_LIBS = $(LIB) $(LDLIBS)

$(RUNNER): $(TEST_OBJ) $(GEN_OBJ) $(BRIDGE_OBJ) $(IP_RULES_OBJ) $(ADV_LIB) $(PGEN_LIB) $(VIZ_LIB) $(ANA_LIB) $(LIB)
	$(CC) $(CFLAGS) -o $@ $(TEST_OBJ) $(GEN_OBJ) $(BRIDGE_OBJ) $(IP_RULES_OBJ) $(ADV_LIB) $(PGEN_LIB) $(VIZ_LIB) $(ANA_LIB) $(LIB) $(MPI_LIBS) $(OTF2_LIBS) $(SQLITE_LIBS) $(LDLIBS)

build/tests/%: build/obj/tests/mpi/%.o $(LIB)
	@mkdir -p build/tests
	$(CC) $(CFLAGS) -o $@ $< $(LIB) $(MPI_LIBS) $(OTF2_LIBS) $(LDLIBS)

# The random-trees test also links the generator; the generator's own
# program needs nothing else.
build/tests/exec_random: build/obj/tests/mpi/exec_random.o $(GEN_OBJ) $(LIB)
	@mkdir -p build/tests
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(LIB) $(MPI_LIBS) $(OTF2_LIBS) $(LDLIBS)

# The report of paprun --report (interpose/ip_report.c) compiled into its test, apart
# from the library's own object (tests/mpi/ip-report.sh).
build/obj/tests/interpose/ip_report.o: interpose/ip_report.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(MPI_CFLAGS) -MMD -MP -c $< -o $@
ALL_OBJ += build/obj/tests/interpose/ip_report.o
build/tests/ip_report: build/obj/tests/mpi/ip_report.o build/obj/tests/interpose/ip_report.o $(LIB)
	@mkdir -p build/tests
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(LIB) $(MPI_LIBS) $(OTF2_LIBS) $(LDLIBS)

$(GEN_PROG): build/obj/tests/randtree/randtree_main.o $(GEN_OBJ)
	@mkdir -p build/tests
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

build/tests/%: build/obj/tests/oracles/%.o $(LIB)
	@mkdir -p build/tests
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(LIB) $(MPI_LIBS) $(OTF2_LIBS) $(LDLIBS)
build/tests/trace_check: $(patsubst %.c,build/obj/%.o,$(wildcard tests/oracles/trace_check/*.c))
build/tests/synth_trace: $(patsubst %.c,build/obj/%.o,$(wildcard tests/oracles/synth_trace/*.c))

# Programs as users write them (tests/mpiapps/, run under bin/paprun by
# tests/interpose/*.sh): plain mpicc / mpifort, no paptree header or library.
MPIAPP_C := $(wildcard tests/mpiapps/*.c)
MPIAPP_F := $(wildcard tests/mpiapps/*.f90)
MPIAPPS  := $(MPIAPP_C:tests/mpiapps/%.c=build/mpiapps/%) $(MPIAPP_F:tests/mpiapps/%.f90=build/mpiapps/%)
all: $(MPIAPPS)
build/mpiapps/%: tests/mpiapps/%.c
	@mkdir -p build/mpiapps
	mpicc -O2 -g -Wall -Wextra -Werror -pthread -o $@ $< -lm
build/mpiapps/%: tests/mpiapps/%.f90
	@mkdir -p build/mpiapps/mod
	mpifort -O2 -g -Wall -Werror -J build/mpiapps/mod -o $@ $<

# Reproducers of faults in OTF2 itself (tests/otf2/*.c: OTF2 only, no paptree
# code): tests/otf2/NAME.c -> build/tests/NAME.
OTF2R_SRC := $(wildcard tests/otf2/*.c)
OTF2R     := $(OTF2R_SRC:tests/otf2/%.c=build/tests/%)
ALL_OBJ   += $(OTF2R_SRC:%.c=build/obj/%.o)
all: $(OTF2R)
$(OTF2R): build/tests/%: build/obj/tests/otf2/%.o
	@mkdir -p build/tests
	$(CC) $(CFLAGS) -o $@ $< $(OTF2_LIBS) $(LDLIBS)

# A fuzz target's replay program: the plain build's compiler and flags.
$(FUZZ_REPLAY): build/tests/fuzz_%: build/obj/tests/fuzz/fuzz_%.o build/obj/tests/fuzz/replay.o \
                $(ANA_LIB) $(LIB)
	@mkdir -p build/tests
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(ANA_LIB) $(LIB) $(OTF2_LIBS) $(SQLITE_LIBS) $(LDLIBS)

# The fuzzer itself (only in build/san/fuzz, where CC is clang and SANITIZE
# has -fsanitize=fuzzer-no-link): libFuzzer's main instead of replay.c.
fuzz-build: $(FUZZ_BIN)
$(FUZZ_BIN): build/fuzz/fuzz_%: build/obj/tests/fuzz/fuzz_%.o $(ANA_LIB) $(LIB)
	@mkdir -p build/fuzz
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(ANA_LIB) $(LIB) $(OTF2_LIBS) $(SQLITE_LIBS) $(LDLIBS)

asan: $(ASAN_CHECK)
$(ASAN_CHECK): $(ASAN_SRC) $(wildcard common/*.h runtime/api/*.h runtime/core/*.h runtime/algo/*.h)
	@mkdir -p build/asan
	$(CC) -std=c11 -D_GNU_SOURCE $(CPPFLAGS) $(WARN) $(ASAN_FLAGS) -o $@ $(ASAN_SRC) -lm

# Tests run at once by make test (the runner's -j; docs/testing.md, Running
# tests in parallel: 2 measured best on 2 cores; a test marked TST_EXCLUSIVE
# in tests/test_list.h always runs alone).  TEST_JOBS=1: one at a time.
TEST_JOBS ?= 2
# Entries every tier starts before the rest (the runner's --first; a name the
# tier does not select is ignored, one that is no entry stops the tier):
# first the exclusive ones, which then run alone at the start instead of
# waiting in the middle for the running tests to drain, then the longest
# ones (docs/testing.md gives their times), so that -j 2 does not end on one
# long test running beside an idle core.
TEST_FIRST := mpi_watchdog mpi_netns_tcp exec_idle_demo exec_idle_pair_2x1 trace_interrupt app_cut_short \
              algo_run_np8 viz analyze_bad_input sweep_reduce_bcast trace_errors \
              trace_algo_samples e2e_readme analyze_part analyze_mpi_part viz_timeline \
              gsum_mpmd algo_types_by_gsum build_header_deps \
              gsum_args gred_threads random_trees_traced trace_archive random_trees_tsan \
              steps_estimate gsum_wrong_result mpi_job_errors \
              app_coll_matrix_np4 app_coll_matrix_np3 app_coll_matrix_np2

# test and demo install missing packages first, then build in a sub-make:
# MPI_CFLAGS above is read when make starts, before deps could install MPI.
test:
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory all
	@$(RUNNER) -j $(TEST_JOBS) $(TEST_FIRST:%=--first %)

check: $(RUNNER) $(PROGS) $(ASAN_CHECK)
	@$(RUNNER) --kind unit

check-mpi: all
	@$(RUNNER) --kind unit --kind mpi

demo:
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh

bench: all
	@bash bench/compare-native.sh
	@bin/gredbench
	@sh -c '. bench/lib.sh && paptree_mpirun 1 -- bin/tracebench'
	@bash bench/trace-overhead.sh
	@bash bench/analyze-bench.sh
	@bash bench/viz-bench.sh
	@bin/clvbench
	@sh bench/papsim-paper.sh
	@bash bench/algobench.sh
	@bash bench/algo-tree.sh
	@bin/schedgen
	@bash bench/pathgen-paper.sh
	@if [ -n "$${OSU_ALLREDUCE:-}" ]; then bash bench/osu-compare.sh; \
	 else echo "bench: OSU_ALLREDUCE unset: bench/osu-compare.sh skipped (docs/benchmarks.md, issue 15)"; fi
	@bash bench/paprun-overhead.sh
	@if [ -n "$${OSU_DIR:-}" ]; then bash bench/paprun-osu.sh "$$OSU_DIR"; \
	 else echo "bench: OSU_DIR unset: bench/paprun-osu.sh skipped (docs/benchmarks.md, issue 25)"; fi

check-layers:
	@sh scripts/check-layers.sh

# The sample pathmaps, from their pathgen commands (pathmaps/MANIFEST).
pathmaps: bin/pathgen
	@sh scripts/pathmaps.sh

soak: all
	@sh tests/soak/soak.sh

# ---- sanitizer trees ---------------------------------------------------
# build/san/NAME/ is a root of its own: its bin/, lib/ and build/ are real
# directories, everything else of the checkout is a symlink to it.  A sub-make
# runs this Makefile there with SANITIZE set, so `bin/gsum`,
# `build/tests/exec_oracle` and `build/run_tests` are the sanitized ones, and
# the runner, started from there, finds its root there (the directory above
# build/) and runs every test, script and README command unchanged against
# them.  The plain build's paths stay as they are.
SAN_LINKS := $(filter-out bin build lib out,$(wildcard *))
SAN_MAKE   = $(MAKE) --no-print-directory -C build/san/$1
ASAN_RUN_FLAGS := $(ASAN_FLAGS)
TSAN_FLAGS := -O1 -g -fsanitize=thread -fno-omit-frame-pointer
FUZZ_FLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
              -fno-sanitize-recover=all
# Sanitizer options for the runs (the runner appends its exit codes to these).
# Leaks: LSan stays on, with Open MPI's own leaks suppressed (the file says
# which).  fast_unwind_on_malloc=0: Open MPI is built without frame pointers,
# so the fast unwinder stops inside it and no suppression could match; the
# slow one costs little here.  allocator_may_return_null=1: a huge calloc
# returns NULL, as in the plain build, instead of aborting (OTF2 asks for
# 32 GB on a bent anchor file, and says so when it gets NULL).  mpirun itself
# is not instrumented.  PAPTREE_SANITIZER tells the tests which sanitizer runs
# (tests/lib.sh: mem_cap).
SAN_SUPP    = $(CURDIR)/tests/sanitizers
ASAN_ENV    = PAPTREE_SANITIZER=address ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:detect_stack_use_after_return=1:allocator_may_return_null=1 \
              LSAN_OPTIONS=suppressions=$(SAN_SUPP)/lsan.supp:print_suppressions=0 \
              UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# ignore_noninstrumented_modules=1: Open MPI's own memcpy into a receive buffer
# is not recorded as a write, so our reads of the buffer once the request has
# completed are not races TSan must check one by one (the ring's 8 MiB stall,
# docs/testing.md, "TSan and Open MPI's copies").
TSAN_ENV    = PAPTREE_SANITIZER=thread TSAN_OPTIONS="suppressions=$(SAN_SUPP)/tsan.supp second_deadlock_stack=1 history_size=4 ignore_noninstrumented_modules=1"
# What check-asan runs: the runner's selection (empty: the whole suite),
# less ASAN_SKIP: registry entries whose code under test is not our C, or
# whose C runs under ASan already (docs/testing.md gives each reason):
#   check_layers, check_layers_selftest  shell reading the sources' #includes
#   build_header_deps                    make -n on the tree (the build graph)
#   mpi_launch_oversubscribed            mpirun and sh alone
#   pathmap_bad_asan                     build/asan/pathmap-check: ASan already,
#                                        and pathmap_bad runs the same corpus
#                                        on the ASan-built bin/pathmap-check
#   random_trees_services, random_trees_big  the executor's paths that
#                                        random_trees_threads and _delays run
#                                        under ASan, with the old engine (kept
#                                        under ASan by gsum_demo_links_services)
#                                        or bigger tuples
#   exec_idle_demo, exec_idle_pair_2x1   a measurement of the CPU an idle rank
#                                        uses, which ASan's own cost per wake-up
#                                        would decide; what they run (create,
#                                        allreduce, destroy) every other MPI
#                                        test runs under ASan
#   pathgen_sweep                          Python driving gsum, papanalyze and
#                                        papviz, which other entries run under
#                                        ASan (pathgen_follow_advice runs the
#                                        sweep with the real pathgen there)
ASAN_TESTS ?=
ASAN_SKIP  ?= check_layers check_layers_selftest build_header_deps \
              mpi_launch_oversubscribed pathmap_bad_asan exec_idle_demo exec_idle_pair_2x1 \
              random_trees_services random_trees_big pathgen_sweep
# Tests run at once in the sanitizer tiers (the runner's -j).
ASAN_JOBS  ?= 2
TSAN_JOBS  ?= 2
# Timeouts of the suite under each sanitizer (PAPTREE_TEST_TIMEOUT_SCALE).
ASAN_TIMEOUT_SCALE ?= 4
TSAN_TIMEOUT_SCALE ?= 6
# The runtime's tests under TSan: gred and the waiting it uses (unit), Gsum on
# every sample and the oracle (MPI), Gsum's output and a wrong result found by
# every thread at once, and traced
# runs (instrument/'s per-thread OTF2 writers) checked by trace_check (sh), the
# schedule executor (algo_run_, MPI), and an algorithm location recorded and
# flushed by a new thread per operation (trace_algo), and a dozen random trees with
# random delays (random_trees_tsan), and the arrival estimator's background thread (exec_edge_),
# and papanalyze's reading threads with its SQLite writer thread (analyze_part).
# Less TSAN_SKIP: Gsum's option checks (gsum_args, gsum_mpmd, gsum_memory)
# run before any thread of ours starts, where TSan has nothing to find; the
# few runs in them that go on into the tree are the samples' runs that the
# gsum_* MPI entries make under TSan (about 115 s of TSan's time).
TSAN_SKIP  ?= gsum_args gsum_mpmd gsum_memory
TSAN_TESTS ?= --kind unit --kind mpi --kind sh gred_ wait_phases reduce_kernels gsum_ oracle_ \
              trace_archive algo_run_ trace_algo random_trees_tsan exec_edge_ analyze_part

san-tree:
	@for t in asan tsan fuzz; do mkdir -p build/san/$$t; \
	  for f in $(SAN_LINKS); do ln -sfn ../../../$$f build/san/$$t/$$f; done; done

check-asan: san-tree
	@sh scripts/deps.sh
	@+$(call SAN_MAKE,asan) SANITIZE='$(ASAN_RUN_FLAGS)' all
	@cd build/san/asan && $(ASAN_ENV) PAPTREE_TEST_TIMEOUT_SCALE=$(ASAN_TIMEOUT_SCALE) \
	  build/run_tests -j $(ASAN_JOBS) $(TEST_FIRST:%=--first %) $(ASAN_SKIP:%=--skip %) $(ASAN_TESTS)

check-tsan: san-tree
	@sh scripts/deps.sh
	@+$(call SAN_MAKE,tsan) SANITIZE='$(TSAN_FLAGS)' build/run_tests bin/gsum build/tests/exec_oracle \
	  build/tests/trace_check bin/pathmap-check build/tests/algo_run build/tests/trace_algo \
	  build/tests/exec_random build/tests/exec_edge bin/papanalyze build/tests/synth_trace
	@cd build/san/tsan && $(TSAN_ENV) PAPTREE_TEST_TIMEOUT_SCALE=$(TSAN_TIMEOUT_SCALE) \
	  build/run_tests -j $(TSAN_JOBS) $(TEST_FIRST:%=--first %) $(TSAN_SKIP:%=--skip %) $(TSAN_TESTS)

# make fuzz: each target for FUZZ_SECONDS; new inputs in build/fuzz-corpus/NAME/,
# crashes in build/fuzz-crashes/NAME/ (copy each into tests/fuzz/NAME/ once
# fixed: the replay test keeps it fixed).  Last line: "N passed, N failed".
FUZZ_SECONDS ?= 600
fuzz: san-tree
	@sh scripts/deps.sh
	@+$(call SAN_MAKE,fuzz) CC=clang SANITIZE='$(FUZZ_FLAGS)' fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# fuzz-short (CI): the targets build, replay their seeds and mutate for
# FUZZ_SHORT_SECONDS (both at once): 265,000 pathmap and 2,200 trace inputs
# in 40 s on a shared machine (2026-11-26); the long search is make fuzz.
FUZZ_SHORT_SECONDS ?= 40
fuzz-short:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_SHORT_SECONDS)

clean:
	rm -rf build lib bin out

-include $(ALL_OBJ:.o=.d)
