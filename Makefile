# toolwire — see README.md. Everything needs only Go; modules come from the proxy.
GO        ?= go
BIN       ?= $(CURDIR)/bin
REPORTS   ?= reports/out
FUZZTIME  ?= 5s
# Packages with FuzzDecode / FuzzParse targets (run briefly in `make test`,
# for as long as you like with `make fuzz FUZZTIME=10m`).
FUZZ_PKGS ?= $(shell grep -rl --include='*_test.go' '^func Fuzz' mockprovider | xargs -r -n1 dirname | sort -u)

.PHONY: all build test fuzz-short fuzz conformance bench soak docs clean

all: build test

build:
	@echo "build: downloading modules (first run only)"
	@$(GO) mod download
	@echo "build: compiling toolwire, toolwire-refdriver, toolwire-formatdriver, toolwire-reftool, toolwire-bench into $(BIN)/ (a cold build compiles the three official SDKs for the reference driver: see README for timings)"
	$(GO) build -o $(BIN)/ ./cmd/...

## test: vet, then unit, SDK round-trip, kill-matrix and self tests with the race detector
## (every fuzz target's seed corpus runs here as ordinary tests)
test:
	@echo "test: go vet ./..."
	$(GO) vet ./...
	@echo "test: go test -race ./... (every package; a cold cache compiles everything again with the race detector first)"
	$(GO) test -race -count=1 -timeout 30m ./...

fuzz-short:
	GO=$(GO) FUZZTIME=$(FUZZTIME) scripts/fuzz.sh $(FUZZ_PKGS)

## fuzz: the same targets, long: make fuzz FUZZTIME=10m
fuzz: fuzz-short

## conformance: the suite against the bundled reference driver, every profile; reports in $(REPORTS)
conformance: build
	@echo "conformance: the suite against the reference driver, every scenario x dialect x stream mode; reports in $(REPORTS)"
	$(BIN)/toolwire conform --driver $(BIN)/toolwire-refdriver --dialects openai-chat,openai-responses,anthropic,gemini,bedrock --report-dir $(REPORTS)

## libraries: the suite against real adapter libraries (the drivers in examples/libraries, dependencies
## pinned there: npm ci / go build, network to the npm registry and the module proxy on a cold run),
## reports in $(REPORTS)/libraries/<library>, then docs/compatibility.md regenerated from them
.PHONY: libraries
LIBDIR := examples/libraries
# toolwire conform exits 1 when the library fails checks (that is the point of
# the page); only 2, a broken harness, stops the target.
conform_into = $(BIN)/toolwire conform --driver "$(2)" --name "$(3)" --impl-version "$(4)" $(5) --report-dir $(1) > $(1).log 2>&1; \
	rc=$$?; tail -1 $(1).log; test $$rc -le 1
conform_library = $(call conform_into,$(REPORTS)/libraries/$(1),$(2),$(3),$(4),$(5))
comma := ,
# every driver-mode feature but item-references: the LangChains cannot
# continue by item_reference.
LANGCHAIN_FEATURES := core,documents,errors,images,large,multi-turn,parallel,reasoning,robustness,signatures,streaming,strict,structured,thinking,tool-choice,truncation,unicode
# langchaingo has no Responses client. Its Gemini client refuses the
# strict-tools scenario's nullable type before sending anything (a harness
# error, see its compat-note), so Gemini runs apart without the strict
# feature, the only one of that scenario, and the two runs are merged into
# one report (their dialects do not overlap).
LANGCHAINGO_PARTS := $(REPORTS)/library-parts/langchaingo
LANGCHAINGO_GEMINI_FEATURES := $(subst $(comma)strict$(comma),$(comma),$(LANGCHAIN_FEATURES))
langchaingo_version = $$(cd $(LIBDIR)/langchaingo && $(GO) list -m -f '{{.Version}}' github.com/tmc/langchaingo)
# the OpenAI Agents SDK speaks the two OpenAI APIs and continues by
# previous_response_id, not item_reference
AGENTS_FEATURES := core,documents,errors,images,large,multi-turn,parallel,reasoning,robustness,streaming,strict,structured,tool-choice,truncation,unicode
npm_pin = $$(node -p 'require("./$(LIBDIR)/$(1)/package.json").dependencies["$(2)"]')
libraries: build
	@mkdir -p $(REPORTS)/libraries
	cd $(LIBDIR)/ai-sdk && npm ci --no-audit --no-fund
	$(call conform_library,ai-sdk,node $(LIBDIR)/ai-sdk/driver.mjs,Vercel AI SDK,ai $(call npm_pin,ai-sdk,ai))
	cd $(LIBDIR)/langchain && npm ci --no-audit --no-fund
	$(call conform_library,langchain,node $(LIBDIR)/langchain/driver.mjs,LangChain.js,@langchain/core $(call npm_pin,langchain,@langchain/core),--features $(LANGCHAIN_FEATURES))
	cd $(LIBDIR)/langchaingo && $(GO) build -o langchaingo-driver .
	@rm -rf $(LANGCHAINGO_PARTS) && mkdir -p $(LANGCHAINGO_PARTS)
	$(call conform_into,$(LANGCHAINGO_PARTS)/chat-anthropic,$(LIBDIR)/langchaingo/langchaingo-driver,langchaingo,$(langchaingo_version),--dialects openai-chat$(comma)anthropic --features $(LANGCHAIN_FEATURES))
	$(call conform_into,$(LANGCHAINGO_PARTS)/gemini,$(LIBDIR)/langchaingo/langchaingo-driver,langchaingo,$(langchaingo_version),--dialects gemini --features $(LANGCHAINGO_GEMINI_FEATURES))
	$(BIN)/toolwire report merge --report-dir $(REPORTS)/libraries/langchaingo $(LANGCHAINGO_PARTS)/chat-anthropic $(LANGCHAINGO_PARTS)/gemini; \
	rc=$$?; test $$rc -le 1
	cd $(LIBDIR)/openai-agents && npm ci --no-audit --no-fund
	$(call conform_library,openai-agents,node $(LIBDIR)/openai-agents/driver.mjs,OpenAI Agents SDK (JS),@openai/agents $(call npm_pin,openai-agents,@openai/agents),--dialects openai-chat$(comma)openai-responses --features $(AGENTS_FEATURES))
	$(GO) run ./scripts/compat -reports $(REPORTS)/libraries -out docs/compatibility.md

## drift-latest: the drift tests against the newest official SDKs the module proxy serves
## (a scratch go.mod; the repository's is not touched)
.PHONY: drift-latest
drift-latest:
	GO=$(GO) scripts/drift-latest.sh

## bench: load benchmark against a bare net/http baseline, and long conversations (0/10/100/400 earlier tool rounds) against a baseline reading the same body; writes $(REPORTS)/bench.json
bench: build
	$(BIN)/toolwire-bench --out $(REPORTS)/bench.json
	$(GO) test -run='^$$' -bench=. -benchmem ./mockprovider/...

## soak: the long soak (1,000,000 requests across 10,000 sessions)
soak: build
	$(BIN)/toolwire-bench --soak-requests 1000000 --soak-sessions 10000 --out $(REPORTS)/bench.json

## docs: regenerate docs/rules.md from the catalog (a test fails when it is stale)
docs:
	{ printf '# Rule catalog\n\n'; \
	  printf 'Every rule toolwire knows, as `toolwire rules --markdown` prints it (regenerate with `make docs`). Rules of the four provider dialects with a check run on every request the mock receives; the others are judged by the RAP runtime or by the conformance suite.\n\n'; \
	  $(GO) run ./cmd/toolwire rules --markdown; } > docs/rules.md

clean:
	rm -rf $(BIN) $(REPORTS)

## image: the container image (FROM scratch, static binary, non-root, serve on 0.0.0.0:8080)
## with the first engine found: podman, buildah or docker (ENGINE=docker to choose)
IMAGE  ?= toolwire:dev
ENGINE ?= $(firstword $(foreach e,podman buildah docker,$(if $(shell command -v $(e) 2>/dev/null),$(e))))
.PHONY: image image-binary
image-binary:
	@echo "image: building the static toolwire binary (CGO_ENABLED=0) into bin/image/"
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o bin/image/toolwire ./cmd/toolwire

image: image-binary
	@test -n "$(ENGINE)" || { echo "image: no container engine (podman, buildah or docker) on PATH"; exit 1; }
	@echo "image: building $(IMAGE) with $(ENGINE)"
	$(if $(filter buildah,$(ENGINE)),buildah bud,$(ENGINE) build) -t $(IMAGE) -f Containerfile .

## image-test: build the image and run it as a non-root server (skipped where no engine can run it)
.PHONY: image-test
image-test:
	@echo "image-test: static build, image build and a run of it (minutes on a cold cache)"
	TOOLWIRE_IMAGE_TEST=1 $(GO) test -count=1 -run TestContainerImage -v ./integrations/
