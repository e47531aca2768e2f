# model/model.mk - benchmark and fuzzer for libnetvar's model (not in
# ALL_TARGETS: the fuzzer needs clang, and both are run on demand).
#
#   make bench-model          build and run the prediction/load benchmark
#   make fuzz-model           build the loader fuzzer and run it ~60 s
#   FUZZ_SECONDS=600 make fuzz-model   for a longer run

BENCH_MODEL     := $(BUILD)/bin/bench_model
FUZZ_MODEL      := $(BUILD)/fuzz/fuzz_model_load
FUZZ_SECONDS    ?= 60
FUZZ_CC         ?= clang
# the loader and everything it calls, compiled with coverage for libFuzzer
FUZZ_MODEL_SRCS := model/model_load.c model/model.c model/model_predict.c model/lookup.c \
                   model/histogram.c model/calibration.c model/compression.c model/advice.c

.PHONY: bench-model fuzz-model

$(BENCH_MODEL): $(BUILD)/obj/model/bench/bench_model.o $(LIBNETVAR)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc -o $@ $< $(LIBNETVAR) $(JSON_LIBS) -lm

bench-model: $(BENCH_MODEL)
	$(BENCH_MODEL) $(BENCH_PREDICTIONS)

$(FUZZ_MODEL): model/fuzz/fuzz_model_load.c $(FUZZ_MODEL_SRCS) $(wildcard model/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  -Imodel $(JSON_CFLAGS) -o $@ model/fuzz/fuzz_model_load.c $(FUZZ_MODEL_SRCS) $(JSON_LIBS) -lm

fuzz-model: $(FUZZ_MODEL)
	@mkdir -p $(BUILD)/fuzz/corpus-model
	$(FUZZ_MODEL) -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 -rss_limit_mb=1024 \
	  -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus-model tests/fixtures/model

# Parsers of outside input other than the model file (fuzz_inputs.c).
FUZZ_INPUTS := $(BUILD)/fuzz/fuzz_inputs
FUZZ_INPUTS_SRCS := $(wildcard model/*.c) probes/counters/ctr_qdisc.c
.PHONY: fuzz-inputs
$(FUZZ_INPUTS): model/fuzz/fuzz_inputs.c $(FUZZ_INPUTS_SRCS) $(wildcard model/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  -Imodel -Iprobes/counters $(JSON_CFLAGS) -o $@ model/fuzz/fuzz_inputs.c $(FUZZ_INPUTS_SRCS) \
	  $(JSON_LIBS) $(SVM_LIBS) -lm

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
