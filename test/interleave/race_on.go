//go:build race

package interleave

const raceEnabled = true
