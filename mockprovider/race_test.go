//go:build race

package mockprovider_test

// raceEnabled: built with the race detector, which makes every memory
// access slow; the allocation measurements skip.
const raceEnabled = true
