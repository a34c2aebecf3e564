# paptree - plain GNU Makefile.  `make help` lists the targets.
#
# Layout of what is built:
#   lib/libpaptree.a   common/ + runtime/ (core, algo, exec) + instrument/
#   bin/               the programs users run (bench/*.c, one program each)
#   build/             objects, test runner, test programs, sanitizer builds

CC       ?= cc
MPI_CFLAGS := $(shell pkg-config --cflags ompi-c 2>/dev/null)
MPI_LIBS   := $(shell pkg-config --libs ompi-c 2>/dev/null)
OTF2_LIBS  := $(shell pkg-config --libs otf2 2>/dev/null || echo -lopen-trace-format2)
SQLITE_LIBS := $(shell pkg-config --libs sqlite3 2>/dev/null || echo -lsqlite3)

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -pthread $(WARN)
LDLIBS   := -pthread -lm

# Sources by layer.  runtime/core is pure C; only runtime/exec, instrument/
# and programs see MPI, only instrument/ sees OTF2 (make check-layers
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

# bench/foo.c -> bin/foo (bench/foo_bar.c needs its own rule, as pathmap-check)
PROG_SRC := $(wildcard bench/*.c)
PROGS    := $(patsubst bench/%.c,bin/%,$(subst _,-,$(PROG_SRC)))

# Test runner: the registry (tests/test_list.h), the runner and every unit test.
TEST_SRC := tests/run_tests.c $(wildcard tests/unit/*/*.c)
TEST_OBJ := $(TEST_SRC:%.c=build/obj/%.o)
RUNNER   := build/run_tests
# MPI test programs: tests/mpi/foo.c -> build/tests/foo
MPIT_SRC := $(wildcard tests/mpi/*.c)
MPIT     := $(MPIT_SRC:tests/mpi/%.c=build/tests/%)
# Trace readers for the tests (OTF2, no MPI): tests/tools/foo.c -> build/tests/foo
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOLS    := $(TOOL_SRC:tests/tools/%.c=build/tests/%)

# The parser alone, built with AddressSanitizer + UBSan for the bad-input corpus.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_SRC   := $(wildcard common/*.c runtime/core/*.c) bench/pathmap_check.c
ASAN_CHECK := build/asan/pathmap-check

# Keep objects of programs: they are not throw-away intermediates.
.SECONDARY:

.PHONY: all deps test check check-mpi demo check-layers clean help bench asan

all: $(LIB) $(ANA_LIB) $(VIZ_LIB) $(PROGS) $(RUNNER) $(MPIT) $(TOOLS) $(ASAN_CHECK)

help:
	@echo "make            build lib/libpaptree.a, bin/*, the test runner"
	@echo "make deps       install missing Debian packages (Open MPI, OTF2, SQLite)"
	@echo "make test       the whole suite (unit, MPI, end-to-end); last line 'N passed, N failed'"
	@echo "make check      unit tests only (no MPI), seconds"
	@echo "make demo       deps, build, Gsum on pathmaps/demo.pathmap"
	@echo "make bench      compare-native, gredbench, tracebench, trace-overhead, analyze-bench, viz-bench, clvbench, papsim-paper"
	@echo "make check-layers  fail on an #include that crosses layers the wrong way"
	@echo "make clean"

deps:
	@sh scripts/deps.sh

build/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(MPI_CFLAGS) -MMD -MP -c $< -o $@

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

bin/%: build/obj/bench/%.o $(LIB)
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $< $(LIB) $(MPI_LIBS) $(OTF2_LIBS) $(LDLIBS)

# The analyser (no MPI).
bin/papanalyze: build/obj/bench/papanalyze.o $(ANA_LIB) $(LIB)
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $< $(ANA_LIB) $(LIB) $(OTF2_LIBS) $(SQLITE_LIBS) $(LDLIBS)

# The charts (no MPI; the pathmap parser of libpaptree for `papviz tree`).
bin/papviz: build/obj/bench/papviz.o $(VIZ_LIB) $(ANA_LIB) $(LIB)
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $< $(VIZ_LIB) $(ANA_LIB) $(LIB) $(OTF2_LIBS) $(SQLITE_LIBS) $(LDLIBS)

# Programs whose file names have '_' (bin/pathmap-check <- bench/pathmap_check.c).
bin/pathmap-check: build/obj/bench/pathmap_check.o $(LIB)
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(RUNNER): $(TEST_OBJ) $(ANA_LIB) $(LIB)
	$(CC) $(CFLAGS) -o $@ $(TEST_OBJ) $(ANA_LIB) $(LIB) $(MPI_LIBS) $(OTF2_LIBS) $(SQLITE_LIBS) $(LDLIBS)

build/tests/%: build/obj/tests/mpi/%.o $(LIB)
	@mkdir -p build/tests
	$(CC) $(CFLAGS) -o $@ $< $(LIB) $(MPI_LIBS) $(OTF2_LIBS) $(LDLIBS)

build/tests/%: build/obj/tests/tools/%.o $(LIB)
	@mkdir -p build/tests
	$(CC) $(CFLAGS) -o $@ $< $(LIB) $(MPI_LIBS) $(OTF2_LIBS) $(LDLIBS)

asan: $(ASAN_CHECK)
$(ASAN_CHECK): $(ASAN_SRC) $(wildcard common/*.h runtime/api/*.h runtime/core/*.h)
	@mkdir -p build/asan
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(ASAN_FLAGS) -o $@ $(ASAN_SRC)

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
	@bash bench/compare-native
	@bin/gredbench
	@OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe --bind-to none \
	    --mca btl self,vader -np 1 bin/tracebench
	@bash bench/trace-overhead
	@bash bench/analyze-bench
	@bash bench/viz-bench
	@bin/clvbench
	@sh bench/papsim-paper

check-layers:
	@sh scripts/check-layers.sh

clean:
	rm -rf build lib bin out

-include $(LIB_OBJ:.o=.d) $(ANA_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(PROG_SRC:bench/%.c=build/obj/bench/%.d) \
         $(MPIT_SRC:%.c=build/obj/%.d) $(TOOL_SRC:%.c=build/obj/%.d)
