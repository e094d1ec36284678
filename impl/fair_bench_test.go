package impl

import "testing"

// BenchmarkFairUncontended is BenchmarkReentrantUncontended for the fair
// lock: on a free lock with an empty queue.
func BenchmarkFairUncontended(b *testing.B) {
	benchUncontended(b, func(c *Client, name, owner string) Locker { return c.Fair(name, owner) })
}

// BenchmarkFairContendedHandoff is BenchmarkReentrantContendedHandoff for the
// fair lock: every unlock wakes only the queue's head, and a worker that
// unlocks queues behind the others, so nearly every grant is a hand-off.
func BenchmarkFairContendedHandoff(b *testing.B) {
	benchContended(b, func(c *Client, name, owner string) Locker { return c.Fair(name, owner) })
}
