# lab/slurm.mk - netvar against every supported Slurm release.
#
#   make check-slurm         compile both plugins against each release's public
#                            headers in SLURM_HEADERS, -Werror, one line per
#                            release (part of make check; seconds)
#   make slurm-modern        build Slurm SLURM_MODERN_VERSION from SLURM_SRC into
#                            $(NETVAR_SLURM_CACHE)/slurm-X.Y.Z (default
#                            /var/cache/netvar), once; prints the build time
#   make check-slurm-modern  slurm-modern, the plugins built against its headers
#                            (BUILD=build-slurm-X.Y.Z), and the lab's plugin tests
#                            (SLURM_MODERN_TESTS) run on it
#   make burst-slurm-modern  8 parallel sbatch loops, 2 000 jobs, a model reload
#                            midway, on that Slurm; with and without job_submit/netvar
#   make tsan-jobsubmit      the in-process job_submit benchmark with threads
#                            under ThreadSanitizer (0 reports expected)
SLURM_HEADERS        ?= ../shared/slurm/headers
SLURM_SRC            ?= ../shared/slurm/src
SLURM_MODERN_VERSION ?= 25.11.7
SLURM_MODERN_PREFIX   = $(or $(NETVAR_SLURM_CACHE),/var/cache/netvar)/slurm-$(SLURM_MODERN_VERSION)
SLURM_MODERN_BUILD   ?= build-slurm-$(SLURM_MODERN_VERSION)
SLURM_MODERN_TESTS   ?= test_slurm_modern.sh test_lab_plugins.sh test_jobsubmit_policy.sh test_spank_collection.sh

.PHONY: check-slurm slurm-modern check-slurm-modern burst-slurm-modern tsan-jobsubmit

check-slurm:
	@CC="$(CC)" NV_MATRIX_CFLAGS="$(filter-out -Werror,$(WARN_CFLAGS)) $(OPT_CFLAGS) $(HARDEN_CFLAGS) -fPIC" \
	  bash tests/slurm_matrix.sh $(SLURM_HEADERS)

slurm-modern:
	@bash lab/slurm-build.sh $(SLURM_SRC) >/dev/null

# The plugins (and their archives) are built again against the modern
# headers in their own tree; everything else the tests use (the CLI, the
# profiler, the MPI test programs) does not depend on Slurm and is linked
# in from $(BUILD).
check-slurm-modern: slurm-modern all
	@$(MAKE) --no-print-directory BUILD=$(SLURM_MODERN_BUILD) WERROR=-Werror \
	  SLURM_INCLUDE=$(SLURM_MODERN_PREFIX)/include \
	  $(SLURM_MODERN_BUILD)/plugins/spank_netvar.so $(SLURM_MODERN_BUILD)/plugins/job_submit_netvar.so
	@BUILD=$(BUILD) MODERN_BUILD=$(SLURM_MODERN_BUILD) bash lab/slurm-modern-tree.sh
	@NETVAR_LAB_SLURM=$(SLURM_MODERN_PREFIX) TESTS="$(SLURM_MODERN_TESTS)" \
	  bash tests/integration/run.sh $(SLURM_MODERN_BUILD)

burst-slurm-modern: slurm-modern all
	@$(MAKE) --no-print-directory BUILD=$(SLURM_MODERN_BUILD) \
	  SLURM_INCLUDE=$(SLURM_MODERN_PREFIX)/include \
	  $(SLURM_MODERN_BUILD)/plugins/spank_netvar.so $(SLURM_MODERN_BUILD)/plugins/job_submit_netvar.so
	@BUILD=$(BUILD) MODERN_BUILD=$(SLURM_MODERN_BUILD) bash lab/slurm-modern-tree.sh
	@NETVAR_LAB_SLURM=$(SLURM_MODERN_PREFIX) bash lab/bench/slurm_burst.sh $(SLURM_MODERN_BUILD)
