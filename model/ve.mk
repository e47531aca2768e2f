# model/ve.mk - the Variability Estimate's synthetic data generator and
# evaluation (not in ALL_TARGETS: built on demand), and the extra sources
# the model loader's fuzzer needs now that the loader reads the optional
# "variability" section.
#
#   make eval-variability     generate a SYNTHETIC data set, train with
#                             10-fold CV, print R^2, abstention, coverage

VARIABILITY_GEN := $(BUILD)/bin/variability_gen

$(VARIABILITY_GEN): $(BUILD)/obj/eval/variability_gen.o $(LIBNETVAR)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(LIBNETVAR) $(JSON_LIBS) -lm

.PHONY: eval-variability variability-gen
variability-gen: $(VARIABILITY_GEN)

eval-variability: $(VARIABILITY_GEN) $(NETVAR_BIN)
	BUILD=$(BUILD) ROOT=$(CURDIR) eval/variability_eval.sh

# the loader validates the section with ve_load.c (pure json-c, no libsvm)
FUZZ_MODEL_SRCS += model/ve_load.c model/ve_svr_arrays.c model/ve_forest.c \
                   model/ve_features.c model/counter_metrics.c
$(FUZZ_MODEL): model/ve_load.c model/ve_svr_arrays.c model/ve_forest.c model/ve_features.c
