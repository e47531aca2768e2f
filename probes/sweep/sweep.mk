# probes/sweep/sweep.mk - the communication-time training benchmark
# (netvar-sweep-stencil; `netvar alloc sweep` runs it over N, PPN, message
# size and placement).
SWEEP_STENCIL := $(BUILD)/bin/netvar-sweep-stencil
$(BUILD)/obj/probes/sweep/%.o: NV_CFLAGS += $(MPI_CFLAGS)

$(SWEEP_STENCIL): $(BUILD)/obj/probes/sweep/sweep_stencil.o
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(NV_LDFLAGS) -pie -o $@ $< $(MPI_LIBS) -lm

ALL_TARGETS += $(SWEEP_STENCIL)
