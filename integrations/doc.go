// Package integrations holds the tests of what ships beside the Go API:
// the container image, the GitHub Action and workflow example, the pytest
// plugin and the Node (vitest/jest) package. Each test runs the real tool
// its users run (a container engine, actionlint, pytest, vitest) and is
// skipped, saying why, where that tool is missing.
package integrations
