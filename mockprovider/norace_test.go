//go:build !race

package mockprovider_test

const raceEnabled = false
