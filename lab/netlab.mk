# lab/netlab.mk - the network lab's counter sampler (lab/netlab sample).
#   build/bin/netvar-netlab-sample   (in ALL_TARGETS)
#   make eval-netlab                 (phony: eval/netlab_eval.sh, needs root; EVAL_SHORT=1 for the CI size)

NETLAB_SAMPLE := $(BUILD)/bin/netvar-netlab-sample

$(NETLAB_SAMPLE): $(BUILD)/obj/lab/netlab_sample.o $(LIBCOUNTERS) $(LIBNETVAR)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -pie -o $@ $(BUILD)/obj/lab/netlab_sample.o $(NETVAR_LIBS)

ALL_TARGETS += $(if $(wildcard lab/netlab_sample.c),$(NETLAB_SAMPLE))

.PHONY: eval-netlab
eval-netlab: all
	@BUILD=$(BUILD) bash eval/netlab_eval.sh
