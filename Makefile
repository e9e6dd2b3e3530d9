# SPDX-License-Identifier: Apache-2.0
#
#   make demo    install what is missing, build, install into ./install, run the showcase
#   make test    install what is missing, build, run every default test
#   make asan / make tsan   the same tests under AddressSanitizer+UBSan / ThreadSanitizer
#   make bench-smoke   every benchmark program once with --smoke (CTest label `bench`)
#   make stress  the long stress runs (CTest label `stress`)
#   make bench   softcomch bench: every benchmark program and peer, one at a time (BENCH_FLAGS=--quick)
#   make perf-doc   a full softcomch bench --json run into $(PERF_JSON), then docs/PERFORMANCE.md and
#                docs/perf/*.svg regenerated from it
#   make fuzz    libFuzzer targets built with clang (build-fuzz/), FUZZ_SECONDS (60) each
#   make fuzz-merge   add the inputs of the last `make fuzz` that reach new coverage to the corpus
#   make install PREFIX=/opt/softcomch   (DOCA's layout; a system prefix is registered with
#                                          ldconfig: LDCONFIG=auto|yes|no, see README)
BUILD   ?= build
PREFIX  ?= $(CURDIR)/install
JOBS    ?= $(shell nproc)
CMAKE_FLAGS ?=
LDCONFIG ?= auto
# Warnings are errors in the project's own builds and CI (a plain cmake build leaves them
# warnings); WERROR=OFF for a compiler this tree was not tried with.
WERROR  ?= ON

FUZZ_SECONDS ?= 60

# make bench: flags of softcomch bench (--quick, --smoke, --only PATTERN, ...); make perf-doc: the
# saved run it regenerates docs/PERFORMANCE.md from.
BENCH_FLAGS ?=
PERF_JSON ?= $(BUILD)/perf-run.json

.PHONY: all deps build install demo test asan tsan stress bench bench-smoke perf-doc fuzz fuzz-merge clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) \
	  -DSOFTCOMCH_WERROR=$(WERROR) $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	@grep -q '^SOFTCOMCH_WERROR:BOOL=$(WERROR)$$' $(BUILD)/CMakeCache.txt || cmake -DSOFTCOMCH_WERROR=$(WERROR) $(BUILD) > /dev/null
	cmake --build $(BUILD) -j $(JOBS)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX) > /dev/null
	@echo "softcomch: installed into $(PREFIX)"
	@scripts/register-libdir.sh "$(PREFIX)" "$(LDCONFIG)"

demo: install
	$(PREFIX)/bin/softcomch demo

test: build
	cd $(BUILD) && ctest -L 'fast|integration' -j $(JOBS) --output-on-failure --timeout 300

asan:
	$(MAKE) test BUILD=build-asan CMAKE_FLAGS="-DSOFTCOMCH_SANITIZE=address,undefined -DSOFTCOMCH_BUILD_BENCH=OFF"

tsan:
	$(MAKE) test BUILD=build-tsan CMAKE_FLAGS="-DSOFTCOMCH_SANITIZE=thread -DSOFTCOMCH_BUILD_BENCH=OFF"

fuzz:
	@SOFTCOMCH_WITH_FUZZ=1 scripts/install-deps.sh
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(JOBS) WERROR=$(WERROR) scripts/fuzz.sh run

fuzz-merge:
	@SOFTCOMCH_WITH_FUZZ=1 scripts/install-deps.sh
	FUZZ_JOBS=$(JOBS) WERROR=$(WERROR) scripts/fuzz.sh merge

stress: build
	cd $(BUILD) && ctest -L stress --output-on-failure

# The benchmark programs pin both CPUs: alone, after the other suites (CI's bench stage).
bench-smoke: build
	cd $(BUILD) && ctest -L bench --output-on-failure --timeout 600

bench: build
	$(BUILD)/bin/softcomch bench $(BENCH_FLAGS)

# The run's status (1: a program failed or timed out) is kept, but the report is still written:
# it names what failed.
perf-doc: build
	@status=0; $(BUILD)/bin/softcomch bench --json $(BENCH_FLAGS) > $(PERF_JSON).tmp || status=$$?; \
	test -s $(PERF_JSON).tmp && mv $(PERF_JSON).tmp $(PERF_JSON) && \
	$(BUILD)/bin/softcomch bench --from $(PERF_JSON) --doc docs/PERFORMANCE.md --plot docs/perf && \
	echo "softcomch: docs/PERFORMANCE.md and docs/perf/*.svg regenerated from $(PERF_JSON)"; \
	exit $$status

clean:
	rm -rf build build-asan build-tsan build-fuzz install
