# probes/proxy/proxy.mk - the proxy apps of the network lab evaluation
# (one MPI program per file; bsp_proxy.c is linked by probes/pmpi/pmpi.mk).
#   build/bin/netvar-proxy-{alltoall,stencil,cg,montecarlo,phased}   (in ALL_TARGETS)
# and the corpus's proxies (eval/apps/corpus.apps), covering what those lack:
#   build/bin/netvar-proxy-{wavefront,pulse,medium,coll,overlap}
NETLAB_PROXIES := alltoall stencil cg montecarlo phased
CORPUS_PROXIES := wavefront pulse medium coll overlap
NETLAB_PROXY_BINS := $(NETLAB_PROXIES:%=$(BUILD)/bin/netvar-proxy-%) \
                     $(CORPUS_PROXIES:%=$(BUILD)/bin/netvar-proxy-%)

$(BUILD)/obj/probes/proxy/%.o: NV_CFLAGS += $(MPI_CFLAGS)
$(NETLAB_PROXIES:%=$(BUILD)/obj/probes/proxy/%_proxy.o) \
  $(CORPUS_PROXIES:%=$(BUILD)/obj/probes/proxy/%_proxy.o): probes/proxy/proxy_common.h

$(NETLAB_PROXY_BINS): $(BUILD)/bin/netvar-proxy-%: $(BUILD)/obj/probes/proxy/%_proxy.o
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -pie -o $@ $< $(MPI_LIBS) -lm

ALL_TARGETS += $(NETLAB_PROXY_BINS)
