// Package bench measures lock subjects side by side on one self-started
// Redis, in one process, the engine behind `lockcheck bench`.
//
// Every subject runs the same matrix of cells, in interleaved rounds: each
// round runs every cell for every subject (in an order rotated by the round),
// so slow drift of a shared machine falls on all subjects alike, and a figure
// is the median over rounds. The cells are:
//
//   - uncontended: N workers, each on its own lock, lock/unlock cycles per
//     second (N = 1, 8, 32 by default);
//   - contended: N workers on one lock (N = 2, 8, 32), cycles per second and
//     what throughput hides: the share of grants that changed owner, the
//     hand-off latency to a different, already waiting owner, every worker's
//     acquire wait (HdrHistogram p50/p99/max; the slowest worker's max is the
//     starvation figure) and FIFO overtakes;
//   - the ceiling: N workers calling a no-op script (EVALSHA of "return 0")
//     on the same kind of connection. A cycle needs at least two round trips,
//     so every subject's cycles/s is also shown as a fraction of calls/s / 2.
//
// Each worker is one simulated process: its own go-redis client (configured
// as the runner configures them: no hidden retries, context deadlines
// honoured), its own Maker and its own lock handle.
package bench
