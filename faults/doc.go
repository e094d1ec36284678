// Package faults is the world the locks run in and how it breaks: redis-server
// processes that lockcheck starts itself, proxies, pauses, kills, partitions,
// and the nemesis that schedules them.
//
// faults imports neither impl nor model: it reports fault windows through a
// callback and acts on clients through a small interface the runner implements.
package faults
