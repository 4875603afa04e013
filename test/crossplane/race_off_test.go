//go:build !race

package crossplane_test

const raceEnabled = false
