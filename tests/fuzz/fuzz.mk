# tests/fuzz/fuzz.mk - libFuzzer targets (need clang; run on demand, and a
# few seconds each in make check through test_fuzz_smoke.sh).
#
#   make fuzz-model      the model file loader, ~60 s (FUZZ_SECONDS=600 for longer)
#   make fuzz-inputs     netvar.conf, job_submit option strings, batch scripts,
#                        `tc -j` JSON, segment profiles
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_FLAGS    = -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
                $(ALL_INCS) $(JSON_CFLAGS) $(PAPI_CFLAGS)
FUZZ_MODEL   := $(BUILD)/fuzz/fuzz_model_load
FUZZ_INPUTS  := $(BUILD)/fuzz/fuzz_inputs
# the loader and everything it calls, compiled with coverage: lib/model but
# its builder, and the archives below it (lib/variability has no libsvm call)
FUZZ_MODEL_SRCS  := $(filter-out lib/model/model_builder.c,$(NV_SRCS_model)) $(NV_SRCS_util) \
                    $(NV_SRCS_variability) $(NV_SRCS_alloc)
FUZZ_INPUTS_SRCS := $(foreach l,$(NV_LIBS),$(NV_SRCS_$(l)))

.PHONY: fuzz-model fuzz-inputs

$(FUZZ_MODEL): tests/fuzz/fuzz_model_load.c $(FUZZ_MODEL_SRCS) $(wildcard lib/*/*.h)
	@mkdir -p $(@D)
	$(call say,FUZZ,$@)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_model_load.c $(FUZZ_MODEL_SRCS) \
	  $(JSON_LIBS) -lm

fuzz-model: $(FUZZ_MODEL)
	@mkdir -p $(BUILD)/fuzz/corpus-model
	$(FUZZ_MODEL) -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 -rss_limit_mb=1024 \
	  -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus-model tests/fixtures/model \
	  tests/fixtures/alloc

$(FUZZ_INPUTS): tests/fuzz/fuzz_inputs.c $(FUZZ_INPUTS_SRCS) $(wildcard lib/*/*.h)
	@mkdir -p $(@D)
	$(call say,FUZZ,$@)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_inputs.c $(FUZZ_INPUTS_SRCS) \
	  $(JSON_LIBS) $(SVM_LIBS) -ldl -lm -lpthread

fuzz-inputs: $(FUZZ_INPUTS)
	@mkdir -p $(BUILD)/fuzz/corpus-inputs $(BUILD)/fuzz/seeds-inputs
	@i=0; for f in conf/netvar.conf tests/fixtures/jobsubmit/netvar.conf lab/demo/netvar.conf; do \
	  i=$$((i+1)); { printf '\000'; cat $$f; } >$(BUILD)/fuzz/seeds-inputs/conf$$i; done; \
	  for f in tests/fixtures/tc/*.json; do i=$$((i+1)); { printf '\003'; cat $$f; } >$(BUILD)/fuzz/seeds-inputs/tc$$i; done; \
	  for f in tests/fixtures/segments/*.json; do i=$$((i+1)); { printf '\004'; cat $$f; } >$(BUILD)/fuzz/seeds-inputs/seg$$i; done; \
	  printf '\002#!/bin/bash\nsrun -n 4 ./lulesh2.0 -s 30\n' >$(BUILD)/fuzz/seeds-inputs/script; \
	  printf '\001_SLURM_SPANK_OPTION_netvar_netvar=full\000NETVAR_APP=x' >$(BUILD)/fuzz/seeds-inputs/env
	$(FUZZ_INPUTS) -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 -rss_limit_mb=1024 \
	  -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus-inputs $(BUILD)/fuzz/seeds-inputs
