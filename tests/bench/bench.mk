# tests/bench/bench.mk - benchmarks: they print figures and assert nothing
# (not in ALL_TARGETS; built on demand).
#
#   make bench-model        model load time and ns per prediction (BENCH_PREDICTIONS)
#   make bench-model-memory bytes a loaded model keeps per app and per co-location entry
#   make bench-jobsubmit    200 000 calls, 10 000 apps, 10 000 running jobs; then
#                           with the alloc section; then 20 000 calls with the
#                           caches swept (8 MiB) before each, as inside slurmctld;
#                           then (built-in model only) with 40 configurations and 100
#                           joint windows per app, so the nearest configurations
#                           answer every pair (BENCH_JS_JOINT).
#                           bench-model: NV_BENCH_JOINT=K gives every app K joint
#                           windows (scattered; NV_BENCH_JOINT_PHASES=P: about P phases)
#                           BENCH_JS_MODEL=FILE runs them on that model (the
#                           site-scale one of bench-train: BENCH_JS_ARGS="200000 5000 10000")
#                           (BENCH_JS_ARGS="20000 1000 1000" for a smaller run)
#   make valgrind-jobsubmit init + 2 000 calls + fini under valgrind
#   make tsan-jobsubmit     8 threads calling job_submit() at once, model reloads
#                           meanwhile, under ThreadSanitizer (TSAN_JS_ARGS); fails
#                           on any report
#   make bench-counters     cost of one counter snapshot; ImpactB's own cost
#   make bench-sdiag        slurmctld time per submission: none vs lua vs netvar
#   make bench-spank        time spank_netvar adds to a step launch
#   make bench-profiler     + the segment profiler's cost on LAMMPS (bench-profiler-lammps)
#   make bench-train        `netvar train` on a SYNTHETIC site history of 100 000 and
#                           1 000 000 records (BENCH_TRAIN_SIZES): time, rate, peak
#                           memory, model size, and the model's load time and memory
BENCH_MODEL    := $(BUILD)/bin/bench_model
BENCH_MODEL_MEM := $(BUILD)/bin/bench_model_memory
BENCH_JS       := $(BUILD)/bin/bench_job_submit
BENCH_COUNTERS := $(BUILD)/bin/bench_counters
BENCH_JS_ARGS  ?= 200000 10000 10000
BENCH_ALLOC_TREES ?= 50
BENCH_JS_JOINT ?= 100

$(BUILD)/obj/tests/bench/%.o: NV_CFLAGS += $(ALL_INCS)
# the benchmark hands the plugin job_desc_msg_t's: the same headers as it
$(BUILD)/obj/tests/bench/bench_job_submit.o: NV_CFLAGS += $(SLURM_CFLAGS)

$(BENCH_MODEL): $(BUILD)/obj/tests/bench/bench_model.o $(call nv_link,model $(NV_DEPS_model))
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc -o $@ $< \
	  $(call nv_link,model $(NV_DEPS_model)) $(JSON_LIBS) -lm

$(BENCH_MODEL_MEM): $(BUILD)/obj/tests/bench/bench_model_memory.o $(call nv_link,model $(NV_DEPS_model))
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -o $@ $< $(call nv_link,model $(NV_DEPS_model)) $(JSON_LIBS) -lm

# the 30-minute churn test on a lab (lab/soak.sh; SOAK_SECONDS to change it)
.PHONY: soak
soak: $(ALL_TARGETS)
	BUILD=$(abspath $(BUILD)) lab/soak.sh

.PHONY: bench-model-memory
bench-model-memory: $(BENCH_MODEL_MEM)
	python3 tests/bench/model_memory.py $(BENCH_MODEL_MEM)

$(BENCH_JS): $(BUILD)/obj/tests/bench/bench_job_submit.o $(call nv_link,$(JS_LIBS))
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -rdynamic -o $@ $< $(call nv_link,$(JS_LIBS)) \
	  $(NV_SYS_LIBS)

$(BENCH_COUNTERS): $(BUILD)/obj/tests/bench/bench_counters.o $(call nv_link,counters util)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -pie -o $@ $< $(call nv_link,counters util) $(NV_SYS_LIBS)

.PHONY: bench-model bench-jobsubmit valgrind-jobsubmit tsan-jobsubmit bench-counters bench-sdiag bench-spank
bench-model: $(BENCH_MODEL)
	$(BENCH_MODEL) $(BENCH_PREDICTIONS)

BENCH_JS_ENV = $(if $(BENCH_JS_MODEL),NETVAR_BENCH_MODEL=$(BENCH_JS_MODEL))
bench-jobsubmit: $(BENCH_JS) $(JS_SO)
	$(BENCH_JS_ENV) $(BENCH_JS) $(JS_SO) $(BENCH_JS_ARGS)
	$(BENCH_JS_ENV) NETVAR_BENCH_ALLOC=$(BENCH_ALLOC_TREES) $(BENCH_JS) $(JS_SO) $(BENCH_JS_ARGS)
	$(BENCH_JS_ENV) NETVAR_BENCH_COLD=8 $(BENCH_JS) $(JS_SO) 20000 $(wordlist 2,3,$(BENCH_JS_ARGS))
	$(if $(BENCH_JS_MODEL),,NETVAR_BENCH_JOINT=$(BENCH_JS_JOINT) $(BENCH_JS) $(JS_SO) $(BENCH_JS_ARGS))

valgrind-jobsubmit: $(BENCH_JS) $(JS_SO)
	valgrind --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite \
	  $(BENCH_JS) $(JS_SO) 2000 300 300

# CALLS APPS RUNNING_JOBS THREADS; the run lasts a few seconds so that the
# refresher reloads the model (every 1.5 s) while the threads submit
TSAN_JS_ARGS ?= 60000 2000 2000 8
tsan-jobsubmit:
	@$(MAKE) --no-print-directory BUILD=build-tsan OPT_CFLAGS="-O1 -g" \
	  HARDEN_CFLAGS="-fno-omit-frame-pointer" SAN_CFLAGS="-fsanitize=thread" \
	  build-tsan/bin/bench_job_submit build-tsan/plugins/job_submit_netvar.so
	@TSAN_OPTIONS="halt_on_error=0 exitcode=66 second_deadlock_stack=1" \
	  build-tsan/bin/bench_job_submit build-tsan/plugins/job_submit_netvar.so $(TSAN_JS_ARGS) \
	  2>build-tsan/tsan-jobsubmit.log; rc=$$?; \
	  n=$$(grep -c '^WARNING: ThreadSanitizer' build-tsan/tsan-jobsubmit.log); \
	  echo "tsan-jobsubmit: $$n ThreadSanitizer reports (log: build-tsan/tsan-jobsubmit.log)"; \
	  [ $$rc -eq 0 ] && [ $$n -eq 0 ] || { head -n 60 build-tsan/tsan-jobsubmit.log; exit 1; }

bench-counters: $(BENCH_COUNTERS) $(BUILD)/bin/impactb
	@$(BENCH_COUNTERS) tests/fixtures/sysfs
	@BUILD=$(BUILD) sh tests/bench/bench_impactb.sh

bench-sdiag: all
	bash lab/bench/sdiag_compare.sh $(BUILD)

bench-spank: all
	bash lab/bench/spank_step.sh $(BUILD)

# make bench-profiler: the cost of one clock read, the LAMMPS figures
# (tests/bench/bench_profiler_lammps.sh, PAIRS=10), then the proxy's
# (eval/eval.mk).  lammps is installed for this target only.
BENCH_CLOCKS := $(BUILD)/bin/bench_pmpi_clocks
$(BENCH_CLOCKS): $(BUILD)/obj/tests/bench/bench_pmpi_clocks.o
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -pie -o $@ $<

.PHONY: bench-profiler-lammps
bench-profiler: bench-profiler-lammps
bench-profiler-lammps: $(PMPI_SO) $(BENCH_CLOCKS)
	@sh packaging/install-deps.sh lammps
	@$(BENCH_CLOCKS)
	@bash tests/bench/bench_profiler_lammps.sh $(BUILD)

BENCH_TRAIN_SIZES ?= 100000 1000000
.PHONY: bench-train
bench-train: $(NETVAR_BIN) $(SITE_GEN)
	@bash tests/bench/bench_train.sh $(BUILD) $(BENCH_TRAIN_SIZES)

# every benchmark binary is built by `make all` (so by `make check`): none
# can stop linking unseen
ALL_TARGETS += $(BENCH_MODEL) $(BENCH_MODEL_MEM) $(BENCH_JS) $(BENCH_COUNTERS) $(BENCH_CLOCKS)

# make bench-replay: `netvar replay` at 10 000 nodes (tests/bench/bench_replay.sh;
# BENCH_REPLAY_JOBS, BENCH_REPLAY_NODES, BENCH_REPLAY_FEEDBACK): wall time, CPU
# time, peak memory
.PHONY: bench-replay
bench-replay: $(NETVAR_BIN) $(REPLAY_SIM)
	@bash tests/bench/bench_replay.sh $(BUILD)
