# jobsubmit/jobsubmit.mk - the in-process benchmark of job_submit/netvar
# (not in ALL_TARGETS; run on demand).
#
#   make bench-jobsubmit            200 000 calls, 10 000 apps, 10 000 running jobs
#   make bench-jobsubmit BENCH_JS_ARGS="20000 1000 1000"   smaller
#   make valgrind-jobsubmit         init + 2 000 calls + fini under valgrind

BENCH_JS := $(BUILD)/bin/bench_job_submit
BENCH_JS_ARGS ?= 200000 10000 10000

$(BENCH_JS): $(BUILD)/obj/jobsubmit/bench/bench_job_submit.o $(LIBNETVAR)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -rdynamic -o $@ $< $(LIBNETVAR) $(JSON_LIBS) $(SVM_LIBS) -lm -ldl

.PHONY: bench-jobsubmit valgrind-jobsubmit
bench-jobsubmit: $(BENCH_JS) $(JS_SO)
	$(BENCH_JS) $(JS_SO) $(BENCH_JS_ARGS)

valgrind-jobsubmit: $(BENCH_JS) $(JS_SO)
	valgrind --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite \
	  $(BENCH_JS) $(JS_SO) 2000 300 300

# slurmctld time per submission: none vs job_submit/lua vs job_submit/netvar
.PHONY: bench-sdiag
bench-sdiag: all
	bash lab/bench/sdiag_compare.sh $(BUILD)

# time spank_netvar adds to a step launch (lab; alternated with an empty plugstack)
.PHONY: bench-spank
bench-spank: all
	bash lab/bench/spank_step.sh $(BUILD)
