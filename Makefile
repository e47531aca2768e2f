# netvar top-level build.
#
#   make            build everything (quiet; V=1 shows full commands), one
#                   job per CPU unless -jN is given (-j1: one at a time)
#   make deps       install missing Debian packages (root, or sudo)
#   make check      layering check, unit tests, sanitizer build, integration tests
#   make demo       run the demo on a throwaway local Slurm cluster
#   make install    DESTDIR/PREFIX honoured
#   make deb        Debian source and binary packages (debian/, dpkg-buildpackage) in build/deb
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

# A plain `make` (or `make all`, `make programs`) builds on every CPU: some 250 files one at
# a time take about a minute on 2 cores.  Only for the build goals, so
# that benchmarks and test targets keep running one thing at a time; a
# -jN on the command line wins over this.
ifeq ($(filter-out all programs,$(MAKECMDGOALS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

BUILD   ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
SLURM_PLUGIN_DIR ?= /usr/lib/x86_64-linux-gnu/slurm-wlm
# The Slurm headers the plugins compile against: the system's <slurm/*.h>
# (libslurm-dev) unless SLURM_INCLUDE names a directory holding slurm/slurm.h
# (a site's own release: make SLURM_INCLUDE=/opt/slurm/include).
SLURM_INCLUDE ?=
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
# libyaml: Slurm's topology.yaml (lib/topoyaml), linked only into what reads
# Slurm's topology (the plugins, the CLI, their tests and fuzz targets)
YAML_CFLAGS   := $(shell $(PKG) --cflags yaml-0.1 2>/dev/null)
YAML_LIBS     := $(or $(shell $(PKG) --libs yaml-0.1 2>/dev/null),-lyaml)

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
NV_LIBS := util counters topoyaml alloc alloctrain variability vetrain segments diagnose model records site train report runner upkeep replay
NV_DEPS_util        :=
NV_DEPS_counters    := util
NV_DEPS_topoyaml    := counters util
NV_DEPS_alloc       := util
NV_DEPS_alloctrain  := alloc util
NV_DEPS_variability := util
NV_DEPS_vetrain     := variability util
NV_DEPS_segments    := util
NV_DEPS_diagnose    := util
NV_DEPS_model       := alloc variability util
NV_DEPS_records     := model alloc variability counters util
NV_DEPS_site        := records model alloc variability counters util
NV_DEPS_train       := vetrain records model alloc variability segments counters util
NV_DEPS_report      := train vetrain site records alloctrain model alloc variability segments diagnose counters util
NV_DEPS_runner      := records model alloc variability counters util
NV_DEPS_replay      := site records model alloc variability counters util
NV_DEPS_upkeep      := report train vetrain site records alloctrain model alloc variability segments diagnose counters util

nv_lib_a   = $(BUILD)/lib/libnetvar_$(1).a
nv_incs    = $(foreach l,$(1),-Ilib/$(l))
# link line for a set of libraries: dependents before dependencies
nv_link    = $(foreach l,$(filter $(1),$(NV_LINK_ORDER)),$(call nv_lib_a,$(l)))
NV_LINK_ORDER := replay upkeep report runner train vetrain site records alloctrain model alloc variability diagnose segments topoyaml counters util

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
$(BUILD)/obj/lib/topoyaml/%.o: NV_CFLAGS += $(YAML_CFLAGS)

# Every archive, in link order, with what they need from the system
# (NV_SYS_LIBS: what any set of archives needs; libsvm only for vetrain).
NETVAR_ALL_LIBS := $(call nv_link,$(NV_LIBS))
NV_SYS_LIBS = $(JSON_LIBS) -ldl -lm -lpthread
NETVAR_LIBS = $(NETVAR_ALL_LIBS) $(SVM_LIBS) $(YAML_LIBS) $(NV_SYS_LIBS)
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
SPANK_LIBS := site records model alloc variability topoyaml counters util
SPANK_SRCS := $(sort $(wildcard plugins/spank/*.c))
SPANK_OBJS := $(SPANK_SRCS:%.c=$(BUILD)/obj/%.o)
SPANK_SO   := $(BUILD)/plugins/spank_netvar.so
# -I for SLURM_INCLUDE, and the feature tests' -D flags for those headers
# (computed once per make, only when a plugin object is compiled)
SLURM_CFLAGS = $(if $(SLURM_INCLUDE),-I$(SLURM_INCLUDE)) $(NV_SLURM_FEATURES)
NV_SLURM_FEATURES = $(eval NV_SLURM_FEATURES := $$(shell sh plugins/slurm_features.sh $$(CC) \
                    $$(if $$(SLURM_INCLUDE),-I$$(SLURM_INCLUDE))))$(NV_SLURM_FEATURES)
$(BUILD)/obj/plugins/spank/%.o: NV_CFLAGS += $(call nv_incs,$(SPANK_LIBS)) $(SLURM_CFLAGS)

JS_LIBS := site records model alloc variability topoyaml counters util
JS_SRCS := $(sort $(wildcard plugins/job_submit/*.c))
JS_OBJS := $(JS_SRCS:%.c=$(BUILD)/obj/%.o)
JS_SO   := $(BUILD)/plugins/job_submit_netvar.so
$(BUILD)/obj/plugins/job_submit/%.o: NV_CFLAGS += $(call nv_incs,$(JS_LIBS)) $(SLURM_CFLAGS)
ALL_TARGETS += $(SPANK_SO) $(JS_SO)

$(SPANK_SO): $(SPANK_OBJS) $(call nv_link,$(SPANK_LIBS)) plugins/spank/spank_netvar.map
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -shared -Wl,--version-script=plugins/spank/spank_netvar.map \
	  -o $@ $(SPANK_OBJS) $(call nv_link,$(SPANK_LIBS)) $(YAML_LIBS) $(NV_SYS_LIBS)

$(JS_SO): $(JS_OBJS) $(call nv_link,$(JS_LIBS)) plugins/job_submit/job_submit_netvar.map
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -shared -Wl,--version-script=plugins/job_submit/job_submit_netvar.map \
	  -o $@ $(JS_OBJS) $(call nv_link,$(JS_LIBS)) $(YAML_LIBS) $(JSON_LIBS) -lm -lpthread

# netvar-acct: the accounting summary writer, the one program linked with
# libslurm (it talks to slurmdbd); its logic is in lib/upkeep.
ACCT_LIBS := upkeep $(NV_DEPS_upkeep)
ACCT_BIN  := $(BUILD)/bin/netvar-acct
$(BUILD)/obj/plugins/acct/%.o: NV_CFLAGS += $(call nv_incs,$(ACCT_LIBS))
$(ACCT_BIN): $(BUILD)/obj/plugins/acct/netvar_acct.o $(call nv_link,$(ACCT_LIBS))
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -pie -o $@ $< $(call nv_link,$(ACCT_LIBS)) $(SVM_LIBS) $(NV_SYS_LIBS) -lslurm
ALL_TARGETS += $(ACCT_BIN)

# netvar-mail: Slurm's MailProg that adds the job's report (lib/upkeep)
MAIL_BIN := $(BUILD)/bin/netvar-mail
$(MAIL_BIN): $(BUILD)/obj/plugins/acct/netvar_mail.o $(call nv_link,$(ACCT_LIBS))
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -pie -o $@ $< $(call nv_link,$(ACCT_LIBS)) $(SVM_LIBS) $(NV_SYS_LIBS)
ALL_TARGETS += $(MAIL_BIN)

# ------------------------------------------------------- area fragments
include probes/probes.mk
include probes/pmpi/pmpi.mk
include probes/proxy/proxy.mk
include probes/sweep/sweep.mk
include lab/netlab.mk
include eval/eval.mk
include tests/bench/bench.mk
include tests/fuzz/fuzz.mk
include tools/replay/replay.mk
include lab/slurm.mk

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
# tests/unit/spank/ and job_submit/ link the plugin file they test; the
# js_state test injects an allocation failure into the index build
$(BUILD)/tests/unit/spank/test_spool: $(BUILD)/obj/plugins/spank/spool.o
$(BUILD)/tests/unit/job_submit/test_js_state: $(BUILD)/obj/plugins/job_submit/js_state.o \
  $(BUILD)/obj/plugins/job_submit/js_stats.o
# tests/unit/cli/ links the CLI's option tables (cli/opts.c, cli/args.c)
$(BUILD)/tests/unit/cli/test_opts: $(BUILD)/obj/cli/opts.o $(BUILD)/obj/cli/args.o
$(BUILD)/tests/unit/job_submit/test_js_state: NV_LDFLAGS += -Wl,--wrap=nv_running_index_build
# the Aries sampler test runs against a stand-in for PAPI's Aries component
# (tests/fixtures/papi/fake_papi.c), found first on LD_LIBRARY_PATH
FAKE_PAPI := $(BUILD)/tests/lib/libpapi.so.7.0
$(FAKE_PAPI): tests/fixtures/papi/fake_papi.c
	@mkdir -p $(@D)
	$(call say,LD,$@)$(COMPILE) $(NV_LDFLAGS) -shared -o $@ $<
$(BUILD)/tests/unit/runner/test_bottleneck_aries: | $(FAKE_PAPI)
$(BUILD)/obj/tests/unit/runner/test_bottleneck_aries.o: NV_CFLAGS += -DNV_FAKE_PAPI_DIR='"$(abspath $(BUILD)/tests/lib)"'

# the tests' objects (and their helpers') are kept, so that a second make does not
# compile them again and relink every test
.SECONDARY: $(UNIT_SRCS:%.c=$(BUILD)/obj/%.o) $(UNIT_HELPER_OBJS)

# ---------------------------------------------------------------- rules
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(COMPILE) -MMD -MP -c -o $@ $<

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

.DEFAULT_GOAL := all
.PHONY: all deps unit asan integration check check-layers lint demo install clean deb rpm programs

all: $(ALL_TARGETS) $(UNIT_BINS)

deps:
	@sh packaging/install-deps.sh

check-layers:
	@python3 tests/check_layers.py

# Linters (settings in .shellcheckrc and .flake8; Debian: shellcheck,
# python3-flake8).  shellcheck reads the shell scripts under LINT_SH_DIRS:
# every *.sh and every file whose first line runs sh or bash, found anew
# each time, so a new script is checked.  flake8 reads eval/*.py and every
# .py under tests/ but LINT_PY_SKIP.  Debian's flake8 is a module of the
# system python3.
LINT_SH_DIRS := lab eval packaging tests
LINT_PY_SKIP :=
LINT_PY = $(filter-out $(LINT_PY_SKIP),$(sort $(wildcard eval/*.py) $(shell find tests -name '*.py')))
FLAKE8 ?= $(firstword $(wildcard /usr/bin/python3) python3) -m flake8
# the C style: .clang-format, applied to the whole tree once; Debian 12's is 14
CLANG_FORMAT ?= clang-format
lint:
	@command -v shellcheck >/dev/null || { echo "netvar: lint: shellcheck not installed (make deps)" >&2; exit 1; }
	@$(FLAKE8) --version >/dev/null 2>&1 || { echo "netvar: lint: $(FLAKE8) does not run (make deps)" >&2; exit 1; }
	@command -v $(CLANG_FORMAT) >/dev/null || { echo "netvar: lint: $(CLANG_FORMAT) not installed (make deps)" >&2; exit 1; }
	@sh=$$(find $(LINT_SH_DIRS) -type f \( -name '*.sh' -print -o -exec awk \
	    'FNR == 1 && /^#!.*[\/ ](ba|da)?sh( |$$)/ { print FILENAME } { nextfile }' {} + \) | LC_ALL=C sort); \
	rc=0; \
	shellcheck -x $$sh || rc=1; \
	echo "netvar: lint: shellcheck $$(shellcheck --version | sed -n 's/^version: //p') on $$(echo $$sh | wc -w) scripts"; \
	$(FLAKE8) $(LINT_PY) || rc=1; \
	echo "netvar: lint: flake8 $$($(FLAKE8) --version | sed -n '1s/ .*//p') on $(words $(LINT_PY)) Python files"; \
	c=$$(git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^tests/fixtures/' || find lib cli plugins probes lab tests eval \( -name '*.c' -o -name '*.h' \) ! -path 'tests/fixtures/*'); \
	$(CLANG_FORMAT) --dry-run -Werror $$c || rc=1; \
	echo "netvar: lint: $$($(CLANG_FORMAT) --version | sed 's/.*version \([0-9.]*\).*/clang-format \1/') on $$(echo $$c | wc -w) C files (.clang-format)"; \
	exit $$rc

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
	@$(MAKE) --no-print-directory lint
	@$(MAKE) --no-print-directory check-slurm
	@$(MAKE) --no-print-directory WERROR=-Werror all
	@$(MAKE) --no-print-directory WERROR=-Werror unit
	@$(MAKE) --no-print-directory WERROR=-Werror asan
	@$(MAKE) --no-print-directory WERROR=-Werror tsan-jobsubmit TSAN_JS_ARGS="20000 500 500 8"
	@$(MAKE) --no-print-directory WERROR=-Werror integration

demo: deps
	@$(MAKE) --no-print-directory all
	@bash lab/demo.sh $(BUILD)

# Install layout (the packages set these; see packaging/).  netvar.conf and
# the plugstack snippet are installed only where none exists yet, so a
# reinstall never replaces an admin's edit.
SLURM_SYSCONFDIR ?= $(SYSCONFDIR)/slurm
NETVAR_LIBDIR ?= $(PREFIX)/lib/netvar
LIBEXECDIR    ?= $(PREFIX)/libexec/netvar
MANDIR        ?= $(PREFIX)/share/man
UNITDIR       ?= $(PREFIX)/lib/systemd/system
LOCALSTATEDIR ?= /var
SPOOLDIR      ?= $(LOCALSTATEDIR)/spool/netvar
STATEDIR      ?= $(LOCALSTATEDIR)/lib/netvar
NV_SUBST = sed -e 's|@PLUGIN_DIR@|$(SLURM_PLUGIN_DIR)|g' -e 's|@PREFIX@|$(PREFIX)|g' \
  -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' -e 's|@SLURM_SYSCONFDIR@|$(SLURM_SYSCONFDIR)|g' \
  -e 's|@NETVAR_LIBDIR@|$(NETVAR_LIBDIR)|g' -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' \
  -e 's|@SPOOLDIR@|$(SPOOLDIR)|g' -e 's|@STATEDIR@|$(STATEDIR)|g' -e 's|@VERSION@|$(NETVAR_VERSION)|g' \
  -e 's|@NETVAR_ACCT@|$(LIBEXECDIR)/netvar-acct|g'
NV_MAN1 := man/netvar.1 man/impactb.1 man/compressionb.1 man/netvar-fabric-kernels.1
NV_MAN5 := conf/netvar.conf.5
NV_MAN8 := man/spank_netvar.8 man/netvar-acct.8 man/job_submit_netvar.8 man/netvar-mail.8

# what install and the packages ship; 'make programs' builds only these
NV_INSTALL_BINS := $(NETVAR_BIN) $(SPANK_SO) $(JS_SO) $(BUILD)/bin/impactb $(BUILD)/bin/compressionb $(PMPI_SO) \
                   $(BUILD)/bin/netvar-fabric-kernels \
                   $(ACCT_BIN) $(MAIL_BIN)
programs: $(NV_INSTALL_BINS)

install: $(NV_INSTALL_BINS)
	install -d $(DESTDIR)$(SLURM_PLUGIN_DIR) $(DESTDIR)$(PREFIX)/bin \
	  $(DESTDIR)$(NETVAR_LIBDIR) $(DESTDIR)$(SYSCONFDIR)/netvar $(DESTDIR)$(LIBEXECDIR) \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(UNITDIR)
	install -d -m 0755 $(DESTDIR)$(SPOOLDIR) $(DESTDIR)$(STATEDIR) $(DESTDIR)$(STATEDIR)/jobsubmit \
	  $(DESTDIR)$(PREFIX)/share/netvar/grafana
	install -m 0644 packaging/grafana/netvar.json $(DESTDIR)$(PREFIX)/share/netvar/grafana/
	install -m 0755 $(SPANK_SO) $(JS_SO) $(DESTDIR)$(SLURM_PLUGIN_DIR)/
	install -m 0755 $(NETVAR_BIN) $(wildcard $(BUILD)/bin/impactb $(BUILD)/bin/compressionb $(BUILD)/bin/netvar-fabric-kernels) \
	  $(DESTDIR)$(PREFIX)/bin/
	$(if $(wildcard $(BUILD)/lib/libnetvar_pmpi.so),install -m 0755 $(BUILD)/lib/libnetvar_pmpi.so $(DESTDIR)$(NETVAR_LIBDIR)/)
	[ -e $(DESTDIR)$(SYSCONFDIR)/netvar/netvar.conf ] || \
	  install -m 0644 conf/netvar.conf $(DESTDIR)$(SYSCONFDIR)/netvar/netvar.conf
	[ -e $(DESTDIR)$(SYSCONFDIR)/netvar/plugstack.conf ] || \
	  { $(NV_SUBST) conf/plugstack.conf.in > $(DESTDIR)$(SYSCONFDIR)/netvar/plugstack.conf && \
	    chmod 0644 $(DESTDIR)$(SYSCONFDIR)/netvar/plugstack.conf; }
	[ -e $(DESTDIR)$(SYSCONFDIR)/netvar/train.env ] || \
	  { $(NV_SUBST) packaging/systemd/train.env.in > $(DESTDIR)$(SYSCONFDIR)/netvar/train.env && \
	    chmod 0644 $(DESTDIR)$(SYSCONFDIR)/netvar/train.env; }
	install -m 0644 $(NV_MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(NV_MAN5) $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 $(NV_MAN8) $(DESTDIR)$(MANDIR)/man8/
	for f in netvar-train.service netvar-train.timer netvar-export.service netvar-export.timer; do \
	  $(NV_SUBST) packaging/systemd/$$f.in > $(DESTDIR)$(UNITDIR)/$$f && chmod 0644 $(DESTDIR)$(UNITDIR)/$$f || exit 1; done
	$(NV_SUBST) packaging/systemd/netvar-train-run.in > $(DESTDIR)$(LIBEXECDIR)/netvar-train-run
	chmod 0755 $(DESTDIR)$(LIBEXECDIR)/netvar-train-run
	$(NV_SUBST) packaging/acct/epilog-slurmctld.in > $(DESTDIR)$(LIBEXECDIR)/epilog-slurmctld
	install -m 0755 $(ACCT_BIN) $(MAIL_BIN) $(DESTDIR)$(LIBEXECDIR)/
	chmod 0755 $(DESTDIR)$(LIBEXECDIR)/epilog-slurmctld

# The Debian source package and netvar, netvar-mpi, netvar-spank,
# netvar-jobsubmit: dpkg-buildpackage on debian/ in a copy of the tree
# (packaging/mkdeb.sh; SLURM_INCLUDE/SLURM_PLUGIN_DIR choose the Slurm)
deb:
	@sh packaging/mkdeb.sh $(BUILD)

# RPMs from packaging/rpm/netvar.spec against the installed Slurm
# (packaging/mkrpm.sh; RPM_FROM_SOURCE=1 compiles inside rpmbuild)
rpm: programs
	@NETVAR_VERSION=$(NETVAR_VERSION) RPM_FROM_SOURCE=$(RPM_FROM_SOURCE) sh packaging/mkrpm.sh $(BUILD)

clean:
	rm -rf build build-asan build-tsan build-slurm-*
