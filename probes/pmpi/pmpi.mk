# probes/pmpi/pmpi.mk - the segment profiler (LD_PRELOAD library) and the
# BSP proxy app; eval-segments and bench-profiler are in eval/eval.mk.
PMPI_LIBS := segments util
PMPI_SRCS := $(sort $(wildcard probes/pmpi/*.c))
PMPI_OBJS := $(PMPI_SRCS:%.c=$(BUILD)/obj/%.o)
PMPI_SO   := $(BUILD)/lib/libnetvar_pmpi.so
PROXY_BSP := $(BUILD)/bin/netvar-proxy-bsp
ALL_TARGETS += $(PMPI_SO) $(PROXY_BSP)

$(BUILD)/obj/probes/pmpi/%.o: NV_CFLAGS += $(MPI_CFLAGS) $(PAPI_CFLAGS) $(call nv_incs,$(PMPI_LIBS))

# The archives' objects are position independent; only the ones the
# profiler uses are pulled in, and the version script keeps them all local.
$(PMPI_SO): $(PMPI_OBJS) $(call nv_link,$(PMPI_LIBS)) probes/pmpi/libnetvar_pmpi.map
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -shared -Wl,--version-script=probes/pmpi/libnetvar_pmpi.map \
	  -o $@ $(PMPI_OBJS) $(call nv_link,$(PMPI_LIBS)) $(MPI_LIBS) $(JSON_LIBS) -ldl -lm -lpthread

$(PROXY_BSP): $(BUILD)/obj/probes/proxy/bsp_proxy.o
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -pie -o $@ $< $(MPI_LIBS)
