package main

// The Go peer libraries (redsync, redislock) are subjects of the CLI: this
// import registers them in catalog.Subjects. The locktest library leaves
// them out.
import _ "github.com/lockcheck/lockcheck/workloads/catalog/gopeers"
