//go:build race

package main

// raceDetector says whether the test binary was built with -race.
const raceDetector = true
