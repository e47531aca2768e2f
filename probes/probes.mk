# probes/probes.mk - the MPI probes ImpactB and CompressionB (in ALL_TARGETS).
# Their outputs are written through lib/records (probe_output), so the
# schema and its reader live in one module.
PROBE_LIBS := records $(NV_DEPS_records)
PROBE_OBJS_COMMON := $(BUILD)/obj/probes/probe_common.o

$(BUILD)/obj/probes/probe_common.o $(BUILD)/obj/probes/impactb.o $(BUILD)/obj/probes/compressionb.o: \
  NV_CFLAGS += $(MPI_CFLAGS) $(call nv_incs,$(PROBE_LIBS)) -Wno-format-truncation

$(BUILD)/bin/impactb $(BUILD)/bin/compressionb: $(BUILD)/bin/%: $(BUILD)/obj/probes/%.o $(PROBE_OBJS_COMMON) \
                                                $(call nv_link,$(PROBE_LIBS))
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -pie -o $@ $< $(PROBE_OBJS_COMMON) \
	  $(call nv_link,$(PROBE_LIBS)) $(MPI_LIBS) $(JSON_LIBS) -lm

ALL_TARGETS += $(BUILD)/bin/impactb $(BUILD)/bin/compressionb

# the reference kernels of `netvar calibrate --fabric` (their output is
# written and read by lib/model/fabric.c)
$(BUILD)/obj/probes/fabric_kernels.o: NV_CFLAGS += $(MPI_CFLAGS) $(call nv_incs,$(PROBE_LIBS))
$(BUILD)/bin/netvar-fabric-kernels: $(BUILD)/obj/probes/fabric_kernels.o $(call nv_link,$(PROBE_LIBS))
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -pie -o $@ $< $(call nv_link,$(PROBE_LIBS)) \
	  $(MPI_LIBS) $(JSON_LIBS) -lm

ALL_TARGETS += $(BUILD)/bin/netvar-fabric-kernels
