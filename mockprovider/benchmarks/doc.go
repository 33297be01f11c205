// Package benchmarks measures the mock provider's per-request cost, stage by
// stage, through the public dialect interface: Decode, the rule checks,
// Encode (one JSON body and a stream), and the whole handler. The bodies in
// testdata/ are full tool-call turns of each dialect, the same ones the load
// benchmark (cmd/toolwire-bench) sends, so the two measurements agree.
//
//	go test -run='^$' -bench=. -benchmem ./mockprovider/benchmarks
//
// It also holds the test that a request's allocations do not grow with the
// number of live sessions.
package benchmarks
