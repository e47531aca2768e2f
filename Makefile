# netvar top-level build.
# Every part is built into $(BUILD)/; area fragments (*/*.mk) add their own
# targets to ALL_TARGETS and may add unit-test link libraries.
#
#   make            build everything
#   make deps       install missing Debian packages (root, or sudo)
#   make check      unit tests, sanitizer build, integration tests in the lab
#   make demo       run the demo on a throwaway local Slurm cluster
#   make install    DESTDIR/PREFIX honoured

BUILD   ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
SLURM_PLUGIN_DIR ?= /usr/lib/x86_64-linux-gnu/slurm-wlm
SYSCONFDIR ?= /etc

CC      ?= gcc
MPICC   ?= mpicc
PKG     ?= pkg-config

HARDEN_CFLAGS  = -D_FORTIFY_SOURCE=2 -fstack-protector-strong \
                 -fstack-clash-protection -fcf-protection -fno-strict-aliasing
HARDEN_LDFLAGS = -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack
OPT_CFLAGS    ?= -O2 -g
SAN_CFLAGS    ?=
WARN_CFLAGS    = -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wformat=2 \
                 -Wno-missing-field-initializers

JSON_CFLAGS   := $(shell $(PKG) --cflags json-c 2>/dev/null)
JSON_LIBS     := $(shell $(PKG) --libs json-c 2>/dev/null)
PAPI_CFLAGS   := $(shell $(PKG) --cflags papi 2>/dev/null)
PAPI_LIBS     := $(shell $(PKG) --libs papi 2>/dev/null)
MPI_CFLAGS    := $(shell $(PKG) --cflags ompi-c 2>/dev/null)
MPI_LIBS      := $(shell $(PKG) --libs ompi-c 2>/dev/null)
CMOCKA_CFLAGS := $(shell $(PKG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell $(PKG) --libs cmocka 2>/dev/null)

CFLAGS  = $(WARN_CFLAGS) $(OPT_CFLAGS) $(SAN_CFLAGS) $(HARDEN_CFLAGS) -fPIC \
          -Imodel -Iprobes/counters $(JSON_CFLAGS)
LDFLAGS = $(HARDEN_LDFLAGS) $(SAN_CFLAGS)

ALL_TARGETS :=
UNIT_TEST_LIBS :=

# ---------------------------------------------------------------- model/
MODEL_SRCS := $(wildcard model/*.c)
MODEL_OBJS := $(MODEL_SRCS:%.c=$(BUILD)/obj/%.o)
LIBNETVAR  := $(BUILD)/lib/libnetvar.a
ALL_TARGETS += $(LIBNETVAR)

$(LIBNETVAR): $(MODEL_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# ------------------------------------------------- probes/counters (readers)
COUNTER_SRCS := $(wildcard probes/counters/*.c)
COUNTER_OBJS := $(COUNTER_SRCS:%.c=$(BUILD)/obj/%.o)
LIBCOUNTERS  := $(BUILD)/lib/libnetvar_counters.a
ALL_TARGETS  += $(LIBCOUNTERS)

$(LIBCOUNTERS): $(if $(COUNTER_OBJS),$(COUNTER_OBJS),$(BUILD)/obj/empty.o)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/obj/probes/counters/%.o: CFLAGS += $(PAPI_CFLAGS)

SVM_LIBS ?= -lsvm
NETVAR_LIBS = $(LIBCOUNTERS) $(LIBNETVAR) $(JSON_LIBS) $(SVM_LIBS) -ldl -lm -lpthread

# ---------------------------------------------------------------- cli/
CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
NETVAR_BIN := $(BUILD)/bin/netvar
ALL_TARGETS += $(NETVAR_BIN)

$(NETVAR_BIN): $(CLI_OBJS) $(LIBNETVAR) $(LIBCOUNTERS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -pie -o $@ $(CLI_OBJS) $(NETVAR_LIBS)

# ---------------------------------------------------------------- plugins
SPANK_SRCS := $(wildcard spank/*.c)
SPANK_OBJS := $(SPANK_SRCS:%.c=$(BUILD)/obj/%.o)
SPANK_SO   := $(BUILD)/plugins/spank_netvar.so
JS_SRCS    := $(wildcard jobsubmit/*.c)
JS_OBJS    := $(JS_SRCS:%.c=$(BUILD)/obj/%.o)
JS_SO      := $(BUILD)/plugins/job_submit_netvar.so
ALL_TARGETS += $(SPANK_SO) $(JS_SO)

# Plugins resolve slurm_* symbols from the daemon at load time, so they are
# not linked with -lslurm; everything of ours stays hidden (version scripts).
$(SPANK_SO): $(SPANK_OBJS) $(LIBNETVAR) $(LIBCOUNTERS) spank/spank_netvar.map
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -shared -Wl,--version-script=spank/spank_netvar.map \
	  -o $@ $(SPANK_OBJS) $(NETVAR_LIBS)

$(JS_SO): $(JS_OBJS) $(LIBNETVAR) jobsubmit/job_submit_netvar.map
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -shared -Wl,--version-script=jobsubmit/job_submit_netvar.map \
	  -o $@ $(JS_OBJS) $(LIBNETVAR) $(JSON_LIBS) $(SVM_LIBS) -lm -lpthread

# ------------------------------------------------------- area fragments
# probes/probes.mk (MPI programs), probes/pmpi/pmpi.mk (segment profiler) ...
-include $(sort $(wildcard */*.mk */*/*.mk))

# ---------------------------------------------------------------- tests
# Small MPI programs used by the integration tests and the demo.
TEST_MPI_SRCS := $(wildcard tests/mpi/*.c)
TEST_MPI_BINS := $(TEST_MPI_SRCS:tests/mpi/%.c=$(BUILD)/tests/mpi/%)
ALL_TARGETS += $(TEST_MPI_BINS)

$(BUILD)/tests/mpi/%: tests/mpi/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(MPI_CFLAGS) $(LDFLAGS) -o $@ $< $(MPI_LIBS)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)
UNIT_HELPER_SRCS := $(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c))
UNIT_HELPER_OBJS := $(UNIT_HELPER_SRCS:%.c=$(BUILD)/obj/%.o)

$(BUILD)/obj/tests/unit/%.o: CFLAGS += $(CMOCKA_CFLAGS) -Itests/unit -Wno-unused-parameter

$(BUILD)/tests/unit/%: $(BUILD)/obj/tests/unit/%.o $(UNIT_HELPER_OBJS) $(LIBNETVAR) $(LIBCOUNTERS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(UNIT_HELPER_OBJS) $(UNIT_TEST_LIBS) $(NETVAR_LIBS) $(CMOCKA_LIBS)

# ---------------------------------------------------------------- rules
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/obj/empty.o:
	@mkdir -p $(@D)
	echo 'static const int netvar_empty_unit __attribute__((unused));' | $(CC) $(CFLAGS) -x c -c -o $@ -

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

.DEFAULT_GOAL := all
.PHONY: all deps unit asan integration check demo install clean deb

all: $(ALL_TARGETS) $(UNIT_BINS)

deps:
	@sh packaging/install-deps.sh

unit: all
	@sh tests/run-unit.sh $(BUILD)

# Unit tests under AddressSanitizer + UndefinedBehaviorSanitizer.
asan:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT_CFLAGS="-O1 -g" \
	  HARDEN_CFLAGS="-fno-omit-frame-pointer" \
	  SAN_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
	  build-asan/lib/libnetvar.a build-asan/lib/libnetvar_counters.a \
	  $(UNIT_BINS:$(BUILD)/%=build-asan/%)
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  sh tests/run-unit.sh build-asan

integration: all
	@bash tests/integration/run.sh $(BUILD)

check: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory asan
	@$(MAKE) --no-print-directory integration

demo: deps
	@$(MAKE) --no-print-directory all
	@bash lab/demo.sh $(BUILD)

install: all
	install -d $(DESTDIR)$(SLURM_PLUGIN_DIR) $(DESTDIR)$(PREFIX)/bin \
	  $(DESTDIR)$(PREFIX)/lib/netvar $(DESTDIR)$(SYSCONFDIR)/netvar \
	  $(DESTDIR)$(SYSCONFDIR)/slurm/plugstack.conf.d
	install -m 0755 $(SPANK_SO) $(JS_SO) $(DESTDIR)$(SLURM_PLUGIN_DIR)/
	install -m 0755 $(NETVAR_BIN) $(wildcard $(BUILD)/bin/impactb $(BUILD)/bin/compressionb) \
	  $(DESTDIR)$(PREFIX)/bin/
	$(if $(wildcard $(BUILD)/lib/libnetvar_pmpi.so),install -m 0755 $(BUILD)/lib/libnetvar_pmpi.so $(DESTDIR)$(PREFIX)/lib/netvar/)
	install -m 0644 conf/netvar.conf $(DESTDIR)$(SYSCONFDIR)/netvar/netvar.conf.example
	install -d $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 0644 conf/netvar.conf.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	sed 's|@PLUGIN_DIR@|$(SLURM_PLUGIN_DIR)|g; s|@PREFIX@|$(PREFIX)|g' conf/plugstack.conf.d/netvar.conf.in \
	  > $(DESTDIR)$(SYSCONFDIR)/slurm/plugstack.conf.d/netvar.conf

# Debian package; depends on the exact Slurm release it was built against
deb: all
	@sh packaging/mkdeb.sh $(BUILD)

clean:
	rm -rf build build-asan
