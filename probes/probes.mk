# probes/probes.mk - the MPI probes (ImpactB, CompressionB) and the counter
# benchmark.  Included by the top Makefile.
#
#   build/bin/impactb, build/bin/compressionb   (in ALL_TARGETS)
#   make bench-counters                          (phony: snapshot cost, ImpactB cost per exchange)

# Paths here are bounded (sysfs root < 384 chars, names < 64), so
# snprintf truncation warnings on them are noise.
$(BUILD)/obj/probes/counters/%.o: CFLAGS += -Wno-format-truncation

PROBE_OBJS_COMMON := $(BUILD)/obj/probes/probe_common.o

$(BUILD)/obj/probes/probe_common.o $(BUILD)/obj/probes/impactb.o $(BUILD)/obj/probes/compressionb.o: \
  CFLAGS += $(MPI_CFLAGS) -Wno-format-truncation

$(BUILD)/bin/impactb: $(BUILD)/obj/probes/impactb.o $(PROBE_OBJS_COMMON) $(LIBNETVAR)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -pie -o $@ $(BUILD)/obj/probes/impactb.o $(PROBE_OBJS_COMMON) \
	  $(LIBNETVAR) $(MPI_LIBS) $(JSON_LIBS) -lm

$(BUILD)/bin/compressionb: $(BUILD)/obj/probes/compressionb.o $(PROBE_OBJS_COMMON) $(LIBNETVAR)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -pie -o $@ $(BUILD)/obj/probes/compressionb.o $(PROBE_OBJS_COMMON) \
	  $(LIBNETVAR) $(MPI_LIBS) $(JSON_LIBS) -lm

ALL_TARGETS += $(if $(wildcard probes/impactb.c),$(BUILD)/bin/impactb) \
               $(if $(wildcard probes/compressionb.c),$(BUILD)/bin/compressionb)

$(BUILD)/bin/bench_counters: $(BUILD)/obj/probes/bench_counters.o $(LIBCOUNTERS) $(LIBNETVAR)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -pie -o $@ $< $(NETVAR_LIBS)

.PHONY: bench-counters
bench-counters: $(BUILD)/bin/bench_counters $(BUILD)/bin/impactb
	@$(BUILD)/bin/bench_counters tests/fixtures/sysfs
	@BUILD=$(BUILD) sh probes/bench_impactb.sh
