# tests/bench/bench.mk - benchmarks: they print figures and assert nothing
# (not in ALL_TARGETS; built on demand).
#
#   make bench-model        model load time and ns per prediction (BENCH_PREDICTIONS)
#   make bench-jobsubmit    200 000 calls, 10 000 apps, 10 000 running jobs
#                           (BENCH_JS_ARGS="20000 1000 1000" for a smaller run)
#   make valgrind-jobsubmit init + 2 000 calls + fini under valgrind
#   make bench-counters     cost of one counter snapshot; ImpactB's own cost
#   make bench-sdiag        slurmctld time per submission: none vs lua vs netvar
#   make bench-spank        time spank_netvar adds to a step launch
BENCH_MODEL    := $(BUILD)/bin/bench_model
BENCH_JS       := $(BUILD)/bin/bench_job_submit
BENCH_COUNTERS := $(BUILD)/bin/bench_counters
BENCH_JS_ARGS  ?= 200000 10000 10000
BENCH_ALLOC_TREES ?= 50

$(BUILD)/obj/tests/bench/%.o: NV_CFLAGS += $(ALL_INCS)

$(BENCH_MODEL): $(BUILD)/obj/tests/bench/bench_model.o $(call nv_link,model variability util)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc -o $@ $< \
	  $(call nv_link,model variability util) $(JSON_LIBS) -lm

$(BENCH_JS): $(BUILD)/obj/tests/bench/bench_job_submit.o $(call nv_link,$(JS_LIBS))
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -rdynamic -o $@ $< $(call nv_link,$(JS_LIBS)) \
	  $(NV_SYS_LIBS)

$(BENCH_COUNTERS): $(BUILD)/obj/tests/bench/bench_counters.o $(call nv_link,counters util)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -pie -o $@ $< $(call nv_link,counters util) $(NV_SYS_LIBS)

.PHONY: bench-model bench-jobsubmit valgrind-jobsubmit bench-counters bench-sdiag bench-spank
bench-model: $(BENCH_MODEL)
	$(BENCH_MODEL) $(BENCH_PREDICTIONS)

bench-jobsubmit: $(BENCH_JS) $(JS_SO)
	$(BENCH_JS) $(JS_SO) $(BENCH_JS_ARGS)
	NETVAR_BENCH_ALLOC=$(BENCH_ALLOC_TREES) $(BENCH_JS) $(JS_SO) $(BENCH_JS_ARGS)

valgrind-jobsubmit: $(BENCH_JS) $(JS_SO)
	valgrind --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite \
	  $(BENCH_JS) $(JS_SO) 2000 300 300

bench-counters: $(BENCH_COUNTERS) $(BUILD)/bin/impactb
	@$(BENCH_COUNTERS) tests/fixtures/sysfs
	@BUILD=$(BUILD) sh tests/bench/bench_impactb.sh

bench-sdiag: all
	bash lab/bench/sdiag_compare.sh $(BUILD)

bench-spank: all
	bash lab/bench/spank_step.sh $(BUILD)
