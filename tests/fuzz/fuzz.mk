# tests/fuzz/fuzz.mk - libFuzzer targets (need clang; run on demand, and a
# few seconds each in make check through test_fuzz_smoke.sh).
#
#   make fuzz-model      the model file loader, ~60 s (FUZZ_SECONDS=600 for longer)
#   make fuzz-inputs     netvar.conf, job_submit option strings, batch scripts,
#                        `tc -j` JSON, segment profiles, sacct lines,
#                        campaign --bottleneck specs, host lists and the
#                        leaf switches of a --nodelist, Slurm's topology.yaml
#   make fuzz-registry   the running-jobs registry reader, expiry and index
#   make fuzz-records    job records, node start/samples files, node records
#                        merged by collect, segment profiles as alloc rows
#                        (what loads keeps plausible.h's bounds)
#   make fuzz-state      the training state reader (train --state), with
#                        times outside plausible.h's bounds
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_FLAGS    = -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
                $(ALL_INCS) $(JSON_CFLAGS) $(PAPI_CFLAGS)
FUZZ_MODEL   := $(BUILD)/fuzz/fuzz_model_load
FUZZ_INPUTS  := $(BUILD)/fuzz/fuzz_inputs
FUZZ_REGISTRY := $(BUILD)/fuzz/fuzz_registry
FUZZ_RECORDS  := $(BUILD)/fuzz/fuzz_records
FUZZ_STATE    := $(BUILD)/fuzz/fuzz_train_state
# the loader and everything it calls, compiled with coverage: lib/model but
# its builder, and the archives below it (lib/variability has no libsvm call)
FUZZ_MODEL_SRCS  := $(filter-out lib/model/model_builder.c,$(NV_SRCS_model)) $(NV_SRCS_util) \
                    $(NV_SRCS_variability) $(NV_SRCS_alloc)
FUZZ_INPUTS_SRCS := $(foreach l,$(NV_LIBS),$(NV_SRCS_$(l)))
# each library source is compiled once with the fuzz flags, and the five
# targets link the objects they need (three of them need every library)
FUZZ_OBJDIR := $(BUILD)/fuzz/obj
fuzz_objs = $(patsubst %.c,$(FUZZ_OBJDIR)/%.o,$(1))

$(FUZZ_OBJDIR)/%.o: %.c $(wildcard lib/*/*.h)
	@mkdir -p $(@D)
	$(call say,FUZZCC,$@)$(FUZZ_CC) $(FUZZ_FLAGS) -c -o $@ $<

.PHONY: fuzz-model fuzz-inputs fuzz-registry fuzz-records fuzz-state fuzz-targets

# the five targets, built only (each links its harness with the objects it
# lists as prerequisites: $(filter %.c %.o,$^); with -jN they build side by side)
fuzz-targets: $(FUZZ_MODEL) $(FUZZ_INPUTS) $(FUZZ_REGISTRY) $(FUZZ_RECORDS) $(FUZZ_STATE)

$(FUZZ_MODEL): tests/fuzz/fuzz_model_load.c $(call fuzz_objs,$(FUZZ_MODEL_SRCS)) $(wildcard lib/*/*.h)
	@mkdir -p $(@D)
	$(call say,FUZZ,$@)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(filter %.c %.o,$^) \
	  $(JSON_LIBS) -lm

fuzz-model: $(FUZZ_MODEL)
	@mkdir -p $(BUILD)/fuzz/corpus-model
	$(FUZZ_MODEL) -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 -rss_limit_mb=1024 \
	  -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus-model tests/fixtures/model \
	  tests/fixtures/alloc

$(FUZZ_INPUTS): tests/fuzz/fuzz_inputs.c $(call fuzz_objs,$(FUZZ_INPUTS_SRCS)) $(wildcard lib/*/*.h)
	@mkdir -p $(@D)
	$(call say,FUZZ,$@)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(filter %.c %.o,$^) \
	  $(JSON_LIBS) $(SVM_LIBS) $(YAML_LIBS) -ldl -lm -lpthread

fuzz-inputs: $(FUZZ_INPUTS)
	@mkdir -p $(BUILD)/fuzz/corpus-inputs $(BUILD)/fuzz/seeds-inputs
	@i=0; for f in conf/netvar.conf tests/fixtures/jobsubmit/netvar.conf lab/demo/netvar.conf; do \
	  i=$$((i+1)); { printf '\000'; cat $$f; } >$(BUILD)/fuzz/seeds-inputs/conf$$i; done; \
	  for f in tests/fixtures/tc/*.json; do i=$$((i+1)); { printf '\003'; cat $$f; } >$(BUILD)/fuzz/seeds-inputs/tc$$i; done; \
	  for f in tests/fixtures/segments/*.json; do i=$$((i+1)); { printf '\004'; cat $$f; } >$(BUILD)/fuzz/seeds-inputs/seg$$i; done; \
	  printf '\002#!/bin/bash\nsrun -n 4 ./lulesh2.0 -s 30\n' >$(BUILD)/fuzz/seeds-inputs/script; \
	  printf '\001_SLURM_SPANK_OPTION_netvar_netvar=full\000NETVAR_APP=x' >$(BUILD)/fuzz/seeds-inputs/env; \
	  printf '\006aries:3_5,0_0,99_15' >$(BUILD)/fuzz/seeds-inputs/bn1; \
	  printf '\006qdisc:nv001u1,nv001u2' >$(BUILD)/fuzz/seeds-inputs/bn2; \
	  printf '\003cpu  1000 10 500 8000 40 0 50 400 0 0\ncpu0 1 2 3 4\n' >$(BUILD)/fuzz/seeds-inputs/stat; \
	  printf '\003nr_periods 10\nnr_throttled 2\nthrottled_usec 700\n' >$(BUILD)/fuzz/seeds-inputs/cgstat; \
	  printf '\007n[1-3,7],gpu[01-04],h1' >$(BUILD)/fuzz/seeds-inputs/hosts; \
	  for f in tests/fixtures/topology/*.yaml; do i=$$((i+1)); { printf '\010'; cat $$f; } >$(BUILD)/fuzz/seeds-inputs/topo$$i; done; \
	  printf '\00512\037run\0372\0371000\0371100\037COMPLETED\037n[1-2]\037mine netvar:{"v":1,"mode":"counters","app":"a"}\037JS1:x netvar:{"v":2,"app":"b","runtime_s":1.0,"predicted_pct":2.0,"src":"table","claimed_pct":null,"claimed_src":""} netvar:{"v":1,"mode":"counters","own_pct":3.5}' >$(BUILD)/fuzz/seeds-inputs/sacct
	$(FUZZ_INPUTS) -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 -rss_limit_mb=1024 \
	  -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus-inputs $(BUILD)/fuzz/seeds-inputs

# the registry reader and the record readers, with everything they call
FUZZ_REGISTRY_SRCS := $(filter-out lib/model/model_builder.c,$(NV_SRCS_model)) $(NV_SRCS_records) \
                      $(NV_SRCS_util) $(NV_SRCS_variability) $(NV_SRCS_counters) $(NV_SRCS_alloc)
FUZZ_RECORDS_SRCS  := $(FUZZ_INPUTS_SRCS)

$(FUZZ_REGISTRY): tests/fuzz/fuzz_registry.c tests/fuzz/fuzz_dir.h $(call fuzz_objs,$(FUZZ_REGISTRY_SRCS)) $(wildcard lib/*/*.h)
	@mkdir -p $(@D)
	$(call say,FUZZ,$@)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(filter %.c %.o,$^) \
	  $(JSON_LIBS) -ldl -lm

$(FUZZ_RECORDS): tests/fuzz/fuzz_records.c tests/fuzz/fuzz_dir.h $(call fuzz_objs,$(FUZZ_RECORDS_SRCS)) $(wildcard lib/*/*.h)
	@mkdir -p $(@D)
	$(call say,FUZZ,$@)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(filter %.c %.o,$^) \
	  $(JSON_LIBS) $(SVM_LIBS) $(XGB_LIBS) $(YAML_LIBS) -ldl -lm -lpthread

fuzz-registry: $(FUZZ_REGISTRY)
	@mkdir -p $(BUILD)/fuzz/corpus-registry $(BUILD)/fuzz/seeds-registry
	@printf '{"schema":"netvar-running","version":1,"job_id":7,"uid":0,"app":"fftw","mode":"counters","start_unix_s":1000.5,"end_unix_s":4600,"nodes":["n1","n2"],"switches":["s1"],"groups":["g0"]}' \
	  >$(BUILD)/fuzz/seeds-registry/entry
	$(FUZZ_REGISTRY) -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 -rss_limit_mb=1024 \
	  -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus-registry $(BUILD)/fuzz/seeds-registry

fuzz-records: $(FUZZ_RECORDS)
	@mkdir -p $(BUILD)/fuzz/corpus-records $(BUILD)/fuzz/seeds-records
	@{ printf '\000'; printf '{"schema":"netvar-job-record","job_id":5,"app":"amg","runtime_s":400,"start_unix_s":1000,"end_unix_s":1400,"nodes":["n1","n2"],"switches":["s1"],"utilization":{"service_us":1.5,"mu_source":"calibration","ports":[{"rho":0.2},{"rho":0.4}]},"metrics":{"net_traffic":{"mean":2e12,"p95":3e12,"unit":"flits","source":"ports"}},"annotation":"netvar:{\\"v\\":1,\\"own_pct\\":9,\\"action\\":\\"annotate\\"}"}'; } \
	  >$(BUILD)/fuzz/seeds-records/job
	@{ printf '\003'; printf '{"schema":"netvar-node-record","version":1,"job_id":5,"node":"n1","mode":"counters","app":"amg","start_unix_s":10,"end_unix_s":20,"counter_source":"netdev","blade":"b0","switch":"s1"}'; } \
	  >$(BUILD)/fuzz/seeds-records/node
	@{ printf '\004'; cat tests/fixtures/segments/matrix-profile.json; } >$(BUILD)/fuzz/seeds-records/profile
	@{ printf '\000'; printf '{"schema":"netvar-job-record","job_id":6,"app":"amg","runtime_s":1e308,"start_unix_s":-1e308,"end_unix_s":1e308,"nodes":["n1"]}'; } \
	  >$(BUILD)/fuzz/seeds-records/job-absurd
	@{ printf '\003'; printf '{"schema":"netvar-node-record","version":1,"job_id":6,"node":"n1","start_unix_s":-1e308,"end_unix_s":1e308,"delta":{"backend":"netdev","dt_ns":2000000000,"ports":[{"name":"eth0","kind":"netdev","fields":{"bytes_out":{"value":18446744073709551615,"unit":"bytes"}}}]},"line_rate_Bps":{"eth0":1.25e9}}'; } \
	  >$(BUILD)/fuzz/seeds-records/node-absurd
	@{ printf '\004'; printf '{"format":"netvar-segment-profile","version":1,"runtime_us":1e308,"bins":{"work":[1e308],"time_us":[1e308]},"segment_work_bin":[0],"segment_time_bin":[0],"segment_signature":[0],"signatures":[[0,0,0,0,0,0,0,0,0,0]]}'; } \
	  >$(BUILD)/fuzz/seeds-records/profile-absurd
	$(FUZZ_RECORDS) -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 -rss_limit_mb=1024 \
	  -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus-records $(BUILD)/fuzz/seeds-records

$(FUZZ_STATE): tests/fuzz/fuzz_train_state.c tests/fuzz/fuzz_dir.h $(call fuzz_objs,$(FUZZ_RECORDS_SRCS)) $(wildcard lib/*/*.h)
	@mkdir -p $(@D)
	$(call say,FUZZ,$@)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(filter %.c %.o,$^) \
	  $(JSON_LIBS) $(SVM_LIBS) $(XGB_LIBS) $(YAML_LIBS) -ldl -lm -lpthread

fuzz-state: $(FUZZ_STATE)
	@mkdir -p $(BUILD)/fuzz/corpus-state $(BUILD)/fuzz/seeds-state
	@printf '\000\010\000\001\001\002\000\010\000\100\200\002\005\007\000\002\002\003\000\020\000\100\100\001\011\000\000\000' \
	  >$(BUILD)/fuzz/seeds-state/jobs
	$(FUZZ_STATE) -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 -rss_limit_mb=1024 \
	  -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus-state $(BUILD)/fuzz/seeds-state
