#!/usr/bin/env bash
# drift-latest: the wire-model drift tests against the newest official SDKs the
# module proxy serves, in a scratch copy of go.mod (the repository's go.mod and
# go.sum are not touched). A field a new SDK can send that the wire structs do
# not know is a red test here before a user meets it as a 400.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp go.mod "$tmp/go.mod"
cp go.sum "$tmp/go.sum"
sdks="github.com/openai/openai-go/v3 github.com/anthropics/anthropic-sdk-go/v2 google.golang.org/genai"
for m in $sdks; do
	echo "drift-latest: $m $($GO list -m -modfile="$tmp/go.mod" "$m" | cut -d' ' -f2) -> $($GO list -m -versions "$m" | tr ' ' '\n' | tail -1)"
done
# shellcheck disable=SC2086
$GO get -modfile="$tmp/go.mod" $(for m in $sdks; do printf '%s@latest ' "$m"; done)
$GO test -modfile="$tmp/go.mod" -count=1 \
	-run '^(TestWireKnowsEverySDKField|TestWireModelKnowsEverySDKField|TestWireCoversSDK|TestEveryWireFieldTakesBothNames)$' \
	./mockprovider/openaichat/ ./mockprovider/openairesp/ ./mockprovider/anthropic/ ./mockprovider/gemini/
