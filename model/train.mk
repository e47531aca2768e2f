# model/train.mk - the SYNTHETIC history generator for `netvar train`
# (used by its integration test and evaluation) and the evaluation target.
#
#   make eval-train    hold out pair runs of a SYNTHETIC history, train on the
#                      rest, predict the held-out pairs, print the seed-000
#                      error table per predictor (`netvar evaluate`)

TRAIN_GEN := $(BUILD)/bin/netvar-train-gen
ALL_TARGETS += $(TRAIN_GEN)

$(TRAIN_GEN): $(BUILD)/obj/eval/train_gen.o $(LIBNETVAR)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(NETVAR_LIBS)

.PHONY: eval-train
eval-train: $(TRAIN_GEN) $(NETVAR_BIN)
	BUILD=$(BUILD) ROOT=$(CURDIR) eval/train_holdout.sh
