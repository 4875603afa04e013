//go:build race

package crossplane_test

const raceEnabled = true
