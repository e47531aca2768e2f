# netvar top-level build.
#
#   make            build everything (quiet; V=1 shows full commands)
#   make deps       install missing Debian packages (root, or sudo)
#   make check      layering check, unit tests, sanitizer build, integration tests
#   make demo       run the demo on a throwaway local Slurm cluster
#   make install    DESTDIR/PREFIX honoured
#
# Layout: lib/<name>/ is one archive, build/lib/libnetvar_<name>.a, with no
# Slurm and no MPI inside.  Each library sees only its own folder and the
# folders of the libraries it depends on (NV_DEPS_<name> below), so an
# include against the direction fails the build; tests/check_layers.py
# checks the same table and that it has no cycle.  Everything else (cli/,
# plugins/, probes/, lab/, eval/, tests/) links the archives it needs.
# Only lib/vetrain (Variability Estimate training and estimation) calls
# libsvm, and only lib/alloctrain (communication-time trees) calls
# libxgboost, which it loads with dlopen when a training starts (no binary
# depends on it at load): the plugins, the probes and the lab sampler use
# neither.

BUILD   ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
SLURM_PLUGIN_DIR ?= /usr/lib/x86_64-linux-gnu/slurm-wlm
SYSCONFDIR ?= /etc
NETVAR_VERSION := $(shell cat VERSION 2>/dev/null || echo 0)

CC      ?= gcc
MPICC   ?= mpicc
PKG     ?= pkg-config

HARDEN_CFLAGS  = -D_FORTIFY_SOURCE=2 -fstack-protector-strong \
                 -fstack-clash-protection -fcf-protection -fno-strict-aliasing
HARDEN_LDFLAGS = -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack
OPT_CFLAGS    ?= -O2 -g
SAN_CFLAGS    ?=
# -Werror is set by `make check` and CI (WERROR=-Werror), not forced on packagers.
WERROR        ?=
WARN_CFLAGS    = -std=gnu11 -Wall -Wextra $(WERROR) -Wshadow -Wformat=2 \
                 -Wno-missing-field-initializers

JSON_CFLAGS   := $(shell $(PKG) --cflags json-c 2>/dev/null)
JSON_LIBS     := $(shell $(PKG) --libs json-c 2>/dev/null)
PAPI_CFLAGS   := $(shell $(PKG) --cflags papi 2>/dev/null)
MPI_CFLAGS    := $(shell $(PKG) --cflags ompi-c 2>/dev/null)
MPI_LIBS      := $(shell $(PKG) --libs ompi-c 2>/dev/null)
CMOCKA_CFLAGS := $(shell $(PKG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell $(PKG) --libs cmocka 2>/dev/null)
SVM_LIBS      ?= -lsvm

# Ours are NV_CFLAGS/NV_LDFLAGS; a user's CFLAGS/LDFLAGS come after them and
# add to them (make CFLAGS=-O0 keeps the warnings and include paths).
CFLAGS  ?=
LDFLAGS ?=
NV_CFLAGS  = $(WARN_CFLAGS) $(OPT_CFLAGS) $(SAN_CFLAGS) $(HARDEN_CFLAGS) -fPIC \
             -DNETVAR_VERSION='"$(NETVAR_VERSION)"' $(JSON_CFLAGS)
NV_LDFLAGS = $(HARDEN_LDFLAGS) $(SAN_CFLAGS) $(LDFLAGS)
COMPILE    = $(CC) $(NV_CFLAGS) $(CFLAGS)

# Quiet by default: "  CC  lib/model/queue.c"; V=1 prints the commands.
ifeq ($(V),1)
  Q :=
  say :=
else
  Q := @
  say = @printf '  %-4s %s\n' $(1) $(2);
endif

ALL_TARGETS :=

# ---------------------------------------------------------------- lib/
# NV_DEPS_<lib>: every library <lib> may include and link, transitively.
NV_LIBS := util counters alloc alloctrain variability vetrain segments diagnose model records site train report runner
NV_DEPS_util        :=
NV_DEPS_counters    := util
NV_DEPS_alloc       := util
NV_DEPS_alloctrain  := alloc util
NV_DEPS_variability := util
NV_DEPS_vetrain     := variability util
NV_DEPS_segments    := util
NV_DEPS_diagnose    := util
NV_DEPS_model       := alloc variability util
NV_DEPS_records     := model alloc variability counters util
NV_DEPS_site        := records model alloc variability counters util
NV_DEPS_train       := vetrain records model alloc variability counters util
NV_DEPS_report      := train vetrain site records model alloc variability segments diagnose counters util
NV_DEPS_runner      := records model alloc variability counters util

nv_lib_a   = $(BUILD)/lib/libnetvar_$(1).a
nv_incs    = $(foreach l,$(1),-Ilib/$(l))
# link line for a set of libraries: dependents before dependencies
nv_link    = $(foreach l,$(filter $(1),$(NV_LINK_ORDER)),$(call nv_lib_a,$(l)))
NV_LINK_ORDER := report runner train vetrain site records alloctrain model alloc variability diagnose segments counters util

define nv_library
NV_SRCS_$(1) := $$(sort $$(wildcard lib/$(1)/*.c))
NV_OBJS_$(1) := $$(NV_SRCS_$(1):%.c=$$(BUILD)/obj/%.o)
$$(BUILD)/obj/lib/$(1)/%.o: NV_CFLAGS += -Ilib/$(1) $$(call nv_incs,$$(NV_DEPS_$(1)))
$$(call nv_lib_a,$(1)): $$(NV_OBJS_$(1))
	@mkdir -p $$(@D)
	$$(call say,AR,$$@)rm -f $$@ && ar rcs $$@ $$^
ALL_TARGETS += $$(call nv_lib_a,$(1))
endef
$(foreach l,$(NV_LIBS),$(eval $(call nv_library,$(l))))

$(BUILD)/obj/lib/counters/%.o: NV_CFLAGS += $(PAPI_CFLAGS) -Wno-format-truncation

# Every archive, in link order, with what they need from the system
# (NV_SYS_LIBS: what any set of archives needs; libsvm only for vetrain).
NETVAR_ALL_LIBS := $(call nv_link,$(NV_LIBS))
NV_SYS_LIBS = $(JSON_LIBS) -ldl -lm -lpthread
NETVAR_LIBS = $(NETVAR_ALL_LIBS) $(SVM_LIBS) $(NV_SYS_LIBS)
ALL_INCS := $(call nv_incs,$(NV_LIBS))

# ---------------------------------------------------------------- cli/
CLI_SRCS := $(sort $(wildcard cli/*.c cli/verbs/*.c))
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
NETVAR_BIN := $(BUILD)/bin/netvar
ALL_TARGETS += $(NETVAR_BIN)
$(BUILD)/obj/cli/%.o: NV_CFLAGS += -Icli $(ALL_INCS)

$(NETVAR_BIN): $(CLI_OBJS) $(NETVAR_ALL_LIBS)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -pie -o $@ $(CLI_OBJS) $(NETVAR_LIBS)

# ---------------------------------------------------------------- plugins/
# Plugins resolve slurm_* symbols from the daemon at load time, so they are
# not linked with -lslurm; everything of ours stays hidden (version scripts).
SPANK_LIBS := site records model alloc variability counters util
SPANK_SRCS := $(sort $(wildcard plugins/spank/*.c))
SPANK_OBJS := $(SPANK_SRCS:%.c=$(BUILD)/obj/%.o)
SPANK_SO   := $(BUILD)/plugins/spank_netvar.so
$(BUILD)/obj/plugins/spank/%.o: NV_CFLAGS += $(call nv_incs,$(SPANK_LIBS))

JS_LIBS := site records model alloc variability counters util
JS_SRCS := $(sort $(wildcard plugins/job_submit/*.c))
JS_OBJS := $(JS_SRCS:%.c=$(BUILD)/obj/%.o)
JS_SO   := $(BUILD)/plugins/job_submit_netvar.so
$(BUILD)/obj/plugins/job_submit/%.o: NV_CFLAGS += $(call nv_incs,$(JS_LIBS))
ALL_TARGETS += $(SPANK_SO) $(JS_SO)

$(SPANK_SO): $(SPANK_OBJS) $(call nv_link,$(SPANK_LIBS)) plugins/spank/spank_netvar.map
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -shared -Wl,--version-script=plugins/spank/spank_netvar.map \
	  -o $@ $(SPANK_OBJS) $(call nv_link,$(SPANK_LIBS)) $(NV_SYS_LIBS)

$(JS_SO): $(JS_OBJS) $(call nv_link,$(JS_LIBS)) plugins/job_submit/job_submit_netvar.map
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -shared -Wl,--version-script=plugins/job_submit/job_submit_netvar.map \
	  -o $@ $(JS_OBJS) $(call nv_link,$(JS_LIBS)) $(JSON_LIBS) -lm -lpthread

# ------------------------------------------------------- area fragments
include probes/probes.mk
include probes/pmpi/pmpi.mk
include probes/proxy/proxy.mk
include probes/sweep/sweep.mk
include lab/netlab.mk
include eval/eval.mk
include tests/bench/bench.mk
include tests/fuzz/fuzz.mk

# ---------------------------------------------------------------- tests
# Small MPI programs used by the integration tests and the demo.
TEST_MPI_SRCS := $(wildcard tests/mpi/*.c)
TEST_MPI_BINS := $(TEST_MPI_SRCS:tests/mpi/%.c=$(BUILD)/tests/mpi/%)
ALL_TARGETS += $(TEST_MPI_BINS)

$(BUILD)/tests/mpi/%: tests/mpi/%.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(COMPILE) $(MPI_CFLAGS) $(NV_LDFLAGS) -o $@ $< $(MPI_LIBS)

# Unit tests: tests/unit/<lib>/test_*.c, one binary each; a test may use
# every library.  tests/unit/pmpi/ also links the profiler's request table.
UNIT_SRCS := $(sort $(wildcard tests/unit/*/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)
UNIT_HELPER_SRCS := $(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c tests/unit/*/*.c))
UNIT_HELPER_OBJS := $(UNIT_HELPER_SRCS:%.c=$(BUILD)/obj/%.o)

$(BUILD)/obj/tests/unit/%.o: NV_CFLAGS += $(CMOCKA_CFLAGS) -Itests/unit $(ALL_INCS) -Icli -Iprobes/pmpi -Wno-unused-parameter

$(BUILD)/tests/unit/%: $(BUILD)/obj/tests/unit/%.o $(UNIT_HELPER_OBJS) $(NETVAR_ALL_LIBS)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -o $@ $(filter %.o,$^) $(NETVAR_LIBS) $(CMOCKA_LIBS)

$(BUILD)/tests/unit/pmpi/test_pmpi_pending: $(BUILD)/obj/probes/pmpi/nvp_pending.o

# the tests' objects (and their helpers') are kept, so that a second make does not
# compile them again and relink every test
.SECONDARY: $(UNIT_SRCS:%.c=$(BUILD)/obj/%.o) $(UNIT_HELPER_OBJS)

# ---------------------------------------------------------------- rules
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(COMPILE) -MMD -MP -c -o $@ $<

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

.DEFAULT_GOAL := all
.PHONY: all deps unit asan integration check check-layers demo install clean deb

all: $(ALL_TARGETS) $(UNIT_BINS)

deps:
	@sh packaging/install-deps.sh

check-layers:
	@python3 tests/check_layers.py

unit: all
	@sh tests/run-unit.sh $(BUILD)

# Unit tests under AddressSanitizer + UndefinedBehaviorSanitizer.
asan:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT_CFLAGS="-O1 -g" \
	  HARDEN_CFLAGS="-fno-omit-frame-pointer" \
	  SAN_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
	  $(UNIT_BINS:$(BUILD)/%=build-asan/%)
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  sh tests/run-unit.sh build-asan

integration: all
	@bash tests/integration/run.sh $(BUILD)

check: deps
	@$(MAKE) --no-print-directory check-layers
	@$(MAKE) --no-print-directory WERROR=-Werror all
	@$(MAKE) --no-print-directory WERROR=-Werror unit
	@$(MAKE) --no-print-directory WERROR=-Werror asan
	@$(MAKE) --no-print-directory WERROR=-Werror integration

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
	@NETVAR_VERSION=$(NETVAR_VERSION) sh packaging/mkdeb.sh $(BUILD)

clean:
	rm -rf build build-asan
