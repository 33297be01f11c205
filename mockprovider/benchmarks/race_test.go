//go:build race

package benchmarks

// raceEnabled: built with the race detector, whose sync.Pool drops a
// quarter of what is put back, at random.
const raceEnabled = true
