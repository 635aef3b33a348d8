# Convenience wrapper around CMake/ctest; `make run` and `make test` are the README's two
# commands. BUILD selects the build directory, JOBS the parallelism.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: deps configure build run test test-asan test-tsan fuzz bench clean

deps:
	scripts/install-deps

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The main job on built-in defaults: the default simulator experiment.
run: build
	$(BUILD)/toposched sim

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-asan:
	$(MAKE) test BUILD=build-asan CMAKE_FLAGS="-DCMAKE_BUILD_TYPE=Debug -DTS_SANITIZE=address,undefined"

test-tsan:
	$(MAKE) test BUILD=build-tsan CMAKE_FLAGS="-DCMAKE_BUILD_TYPE=Debug -DTS_SANITIZE=thread"

fuzz: deps
	scripts/fuzz-smoke

bench: build
	$(BUILD)/bench/bench_domains

clean:
	rm -rf build build-asan build-tsan build-fuzz
