# probes/pmpi/pmpi.mk - the segment profiler (LD_PRELOAD library), the BSP
# proxy app, and the phony targets eval-segments / bench-profiler.
PMPI_SRCS := $(wildcard probes/pmpi/*.c)
PMPI_OBJS := $(PMPI_SRCS:%.c=$(BUILD)/obj/%.o)
PMPI_SO   := $(BUILD)/lib/libnetvar_pmpi.so
PROXY_BSP := $(BUILD)/bin/netvar-proxy-bsp
ALL_TARGETS += $(PMPI_SO) $(PROXY_BSP)

$(BUILD)/obj/probes/pmpi/%.o: CFLAGS += $(MPI_CFLAGS) $(PAPI_CFLAGS)
$(BUILD)/obj/probes/proxy/%.o: CFLAGS += $(MPI_CFLAGS)

# libnetvar.a objects are position independent; only the ones the profiler
# uses are pulled in, and the version script keeps them all local.
$(PMPI_SO): $(PMPI_OBJS) $(LIBNETVAR) probes/pmpi/libnetvar_pmpi.map
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -shared -Wl,--version-script=probes/pmpi/libnetvar_pmpi.map \
	  -o $@ $(PMPI_OBJS) $(LIBNETVAR) $(MPI_LIBS) $(JSON_LIBS) -ldl -lm -lpthread

$(PROXY_BSP): $(BUILD)/obj/probes/proxy/bsp_proxy.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -pie -o $@ $< $(MPI_LIBS)

.PHONY: eval-segments bench-profiler
eval-segments: $(PMPI_SO) $(PROXY_BSP) $(NETVAR_BIN)
	@bash eval/segments_eval.sh $(BUILD)

bench-profiler: $(PMPI_SO) $(PROXY_BSP)
	@bash eval/bench_profiler.sh $(BUILD)
