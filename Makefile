# paptree - plain GNU Makefile.  `make help` lists the targets.
#
# Layout of what is built:
#   lib/libpaptree.a   common/ + runtime/ (core, algo, exec) + instrument/
#   lib/libpapanalyze.a  analyze/ (the only code that links SQLite)
#   lib/libpapviz.a    viz/
#   bin/               every executable: the programs users run (tools/*.c)
#                      and the benchmarks (bench/*.c), one file each
#   build/             objects, test runner, test programs, sanitizer builds
#
# Includes are rooted at the repository (-I.): #include "runtime/api/rt_exec.h".
# The pure layers (common, runtime/core, runtime/algo, bridge, analyze, viz)
# compile without MPI's flags, so an mpi.h that sneaks into one of them fails
# the build, not just `make check-layers`.

CC       ?= cc
MPI_CFLAGS := $(shell pkg-config --cflags ompi-c 2>/dev/null)
MPI_LIBS   := $(shell pkg-config --libs ompi-c 2>/dev/null)
OTF2_LIBS  := $(shell pkg-config --libs otf2 2>/dev/null || echo -lopen-trace-format2)
SQLITE_LIBS := $(shell pkg-config --libs sqlite3 2>/dev/null || echo -lsqlite3)

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -pthread $(WARN)
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

# tools/foo.c -> bin/foo (the programs users run); bench/foo.c -> bin/foo
TOOL_SRC    := $(wildcard tools/*.c)
BENCH_SRC   := $(wildcard bench/*.c)
TOOL_PROGS  := $(TOOL_SRC:tools/%.c=bin/%)
BENCH_PROGS := $(BENCH_SRC:bench/%.c=bin/%)
PROG_SRC    := $(TOOL_SRC) $(BENCH_SRC)
PROGS       := $(TOOL_PROGS) $(BENCH_PROGS)

# Test runner: the registry (tests/test_list.h), the runner and every unit test.
TEST_SRC := tests/run_tests.c $(wildcard tests/unit/*/*.c)
TEST_OBJ := $(TEST_SRC:%.c=build/obj/%.o)
RUNNER   := build/run_tests
# MPI test programs: tests/mpi/foo.c -> build/tests/foo
MPIT_SRC := $(wildcard tests/mpi/*.c)
MPIT     := $(MPIT_SRC:tests/mpi/%.c=build/tests/%)
# Trace readers for the tests (OTF2, no MPI): tests/tools/foo.c -> build/tests/foo
TTOOL_SRC := $(wildcard tests/tools/*.c)
TTOOLS    := $(TTOOL_SRC:tests/tools/%.c=build/tests/%)

# Every object the build makes; each has a dependency file (-MMD) that is
# included at the end, so touching any header rebuilds what includes it.
ALL_OBJ  := $(LIB_OBJ) $(ANA_OBJ) $(VIZ_OBJ) $(BRIDGE_OBJ) $(TEST_OBJ) \
            $(PROG_SRC:%.c=build/obj/%.o) $(MPIT_SRC:%.c=build/obj/%.o) \
            $(TTOOL_SRC:%.c=build/obj/%.o)
# Sources that see MPI's flags; every other directory is pure C.
uses_mpi  = $(filter runtime/exec/% instrument/% tools/% bench/% tests/%,$1)

# The parser alone, built with AddressSanitizer + UBSan for the bad-input corpus.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_SRC   := $(wildcard common/*.c runtime/core/*.c) tools/pathmap-check.c
ASAN_CHECK := build/asan/pathmap-check

# Keep objects of programs: they are not throw-away intermediates.
.SECONDARY:

.PHONY: all deps test check check-mpi demo check-layers clean help bench asan soak

all: $(LIB) $(ANA_LIB) $(VIZ_LIB) $(PROGS) $(RUNNER) $(MPIT) $(TTOOLS) $(ASAN_CHECK)

help:
	@echo "make            build lib/libpaptree.a, bin/*, the test runner"
	@echo "make deps       install missing Debian packages (Open MPI, OTF2, SQLite)"
	@echo "make test       the whole suite (unit, MPI, end-to-end); last line 'N passed, N failed'"
	@echo "make check      unit tests only (no MPI), seconds"
	@echo "make demo       deps, build, Gsum on pathmaps/demo.pathmap"
	@echo "make bench      compare-native, gredbench, tracebench, trace-overhead, analyze-bench, viz-bench, clvbench, papsim-paper"
	@echo "make check-layers  fail on an #include that crosses layers the wrong way"
	@echo "make soak       long runs: 8W cluster x 25,000, 1 M demo allreduces with flat RSS, traced and analysed (minutes)"
	@echo "make clean"

deps:
	@sh scripts/deps.sh

build/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(if $(call uses_mpi,$<),$(MPI_CFLAGS)) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p lib
	rm -f $@
	ar rcs $@ $^

$(ANA_LIB): $(ANA_OBJ)
	@mkdir -p lib
	rm -f $@
	ar rcs $@ $^

$(VIZ_LIB): $(VIZ_OBJ)
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

# The analyser (no MPI).
bin/papanalyze: $(ANA_LIB)
bin/papanalyze: PROG_LIBS = $(ANA_LIB) $(LIB) $(OTF2_LIBS) $(SQLITE_LIBS) $(LDLIBS)
# The charts (no MPI; the pathmap parser of libpaptree and bridge/ for
# `papviz tree PATHMAP`).
bin/papviz: $(BRIDGE_OBJ) $(VIZ_LIB) $(ANA_LIB)
bin/papviz: PROG_LIBS = $(VIZ_LIB) $(ANA_LIB) $(LIB) $(OTF2_LIBS) $(SQLITE_LIBS) $(LDLIBS)
# The pathmap checker needs neither MPI nor OTF2.
bin/pathmap-check: PROG_LIBS = $(LIB) $(LDLIBS)

$(RUNNER): $(TEST_OBJ) $(VIZ_LIB) $(ANA_LIB) $(LIB)
	$(CC) $(CFLAGS) -o $@ $(TEST_OBJ) $(VIZ_LIB) $(ANA_LIB) $(LIB) $(MPI_LIBS) $(OTF2_LIBS) $(SQLITE_LIBS) $(LDLIBS)

build/tests/%: build/obj/tests/mpi/%.o $(LIB)
	@mkdir -p build/tests
	$(CC) $(CFLAGS) -o $@ $< $(LIB) $(MPI_LIBS) $(OTF2_LIBS) $(LDLIBS)

build/tests/%: build/obj/tests/tools/%.o $(LIB)
	@mkdir -p build/tests
	$(CC) $(CFLAGS) -o $@ $< $(LIB) $(MPI_LIBS) $(OTF2_LIBS) $(LDLIBS)

asan: $(ASAN_CHECK)
$(ASAN_CHECK): $(ASAN_SRC) $(wildcard common/*.h runtime/api/*.h runtime/core/*.h)
	@mkdir -p build/asan
	$(CC) -std=c11 -D_GNU_SOURCE $(CPPFLAGS) $(WARN) $(ASAN_FLAGS) -o $@ $(ASAN_SRC)

# test and demo install missing packages first, then build in a sub-make:
# MPI_CFLAGS above is read when make starts, before deps could install MPI.
test:
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory all
	@$(RUNNER)

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
	@OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe --bind-to none \
	    --mca btl self,vader -np 1 bin/tracebench
	@bash bench/trace-overhead.sh
	@bash bench/analyze-bench.sh
	@bash bench/viz-bench.sh
	@bin/clvbench
	@sh bench/papsim-paper.sh

check-layers:
	@sh scripts/check-layers.sh

soak: all
	@sh tests/soak/soak.sh

clean:
	rm -rf build lib bin out

-include $(ALL_OBJ:.o=.d)
