# lab/netlab.mk - the network lab's counter sampler (lab/netlab sample).
#   build/bin/netvar-netlab-sample   (in ALL_TARGETS)
NETLAB_SAMPLE_LIBS := records $(NV_DEPS_records)
NETLAB_SAMPLE := $(BUILD)/bin/netvar-netlab-sample
$(BUILD)/obj/lab/%.o: NV_CFLAGS += $(call nv_incs,$(NETLAB_SAMPLE_LIBS))

$(NETLAB_SAMPLE): $(BUILD)/obj/lab/netlab_sample.o $(call nv_link,$(NETLAB_SAMPLE_LIBS))
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -pie -o $@ $< $(call nv_link,$(NETLAB_SAMPLE_LIBS)) \
	  $(NV_SYS_LIBS)

ALL_TARGETS += $(NETLAB_SAMPLE)
