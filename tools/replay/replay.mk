# tools/replay: netvar-replay-sim, the SimGrid flow simulation of `netvar
# replay` (the only C++ and the only SimGrid user; tests/check_layers.py).
# Built only where SimGrid is installed (Debian: libsimgrid-dev).
CXX ?= g++
SIMGRID_LIBS := $(shell $(PKG) --libs simgrid 2>/dev/null)
REPLAY_SIM := $(BUILD)/bin/netvar-replay-sim
ifneq ($(SIMGRID_LIBS),)
ALL_TARGETS += $(REPLAY_SIM)
endif
$(REPLAY_SIM): tools/replay/rp_simgrid.cc
	@mkdir -p $(@D)
	$(call say,CXX,$<)$(CXX) -std=c++17 $(OPT_CFLAGS) -Wall -Wextra $(WERROR) \
	  $(shell $(PKG) --cflags simgrid 2>/dev/null) $(NV_LDFLAGS) -o $@ $< $(SIMGRID_LIBS)
