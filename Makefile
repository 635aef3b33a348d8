# Convenience wrapper around CMake/ctest; `make run` and `make test` are the README's two
# commands. Each target installs only the packages it needs (scripts/install-deps PURPOSE).
# BUILD selects the build directory, JOBS the parallelism.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
CONFIGURE = cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

.PHONY: deps configure build run test test-asan test-tsan build-tsan build-clang test-clang fuzz bench format clean

deps:
	scripts/install-deps all

# Everything, the tests included.
configure:
	scripts/install-deps test
	$(CONFIGURE) -DTS_BUILD_TESTS=ON

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The main job on built-in defaults: the default simulator experiment. Only the CLI is
# built (no tests, so no cmocka). A tree already configured keeps its setting: turning the
# tests off there would leave ctest in it without the targets test_layers builds.
run:
	scripts/install-deps run
	if [ -f $(BUILD)/CMakeCache.txt ]; then $(CONFIGURE); else $(CONFIGURE) -DTS_BUILD_TESTS=OFF; fi
	cmake --build $(BUILD) -j $(JOBS) --target toposched-cli
	$(BUILD)/toposched sim

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-asan:
	$(MAKE) test BUILD=build-asan CMAKE_FLAGS="-DCMAKE_BUILD_TYPE=Debug -DTS_SANITIZE=address,undefined"

TSAN_FLAGS = BUILD=build-tsan CMAKE_FLAGS="-DCMAKE_BUILD_TYPE=Debug -DTS_SANITIZE=thread"
test-tsan:
	$(MAKE) test $(TSAN_FLAGS)

# The TSan build alone: CI runs its tests in two passes (the runtime's repeated).
build-tsan:
	$(MAKE) build $(TSAN_FLAGS)

# gcc builds everything else; clang warns where gcc does not (-Wsign-conversion on enum
# arguments, variables only ever written). build-clang compiles everything, the tests
# included (CI); test-clang also runs them.
CLANG_FLAGS = BUILD=build-clang CMAKE_FLAGS="-DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Release"
build-clang:
	scripts/install-deps fuzz
	$(MAKE) build $(CLANG_FLAGS)

test-clang:
	scripts/install-deps fuzz
	$(MAKE) test $(CLANG_FLAGS)

fuzz:
	scripts/install-deps fuzz
	scripts/fuzz-smoke

# Benchmarks want the optimised build: everything is built Release (-O3, warnings as
# errors, so it also catches what only the optimiser sees) in build-release.
bench:
	scripts/install-deps test
	cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DTS_BUILD_TESTS=ON $(CMAKE_FLAGS)
	cmake --build build-release -j $(JOBS)
	build-release/bench/bench_domains

format:
	scripts/install-deps format
	scripts/check-format

clean:
	rm -rf build build-asan build-tsan build-clang build-fuzz build-release
