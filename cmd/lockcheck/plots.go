package main

// A run directory of the CLI holds latency and throughput plots: this import
// registers them with results.RegisterPlots. The locktest library leaves
// them out (a test failure needs text).
import _ "github.com/lockcheck/lockcheck/results/plots"
