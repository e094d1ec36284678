// Package faults is the world the locks run in and how it breaks: redis-server
// processes that lockcheck starts itself, proxies, pauses, kills, partitions,
// and the nemesis that schedules them.
//
// Every fault is a Fault (Name, Target, Start, Stop; Stop idempotent and
// bounded). The catalog:
//
//   - network, one client's path to Redis, through a Link (an in-process
//     *Proxy with toxiproxy's toxics, or a *RemoteProxy on a toxiproxy
//     server driven over HTTP by Remote): Latency, BlackHole (silent),
//     Reset (TCP RST), Down (loud: EOF and connection refused);
//   - process, on a *Server lockcheck started: Pause (SIGSTOP/SIGCONT),
//     KillRestart (SIGKILL, restart with the server's persistence);
//   - client, through the Clients interface the runner implements: Stall (a
//     GC-like pause inside the critical section), Crash (no unlock);
//   - Redis commands, for deployments without a shell (Admin):
//     ClientPause, DebugSleep, ClientKill.
//
// A Nemesis runs a Schedule (fixed, or RandomSchedule from the run's seed),
// reports each fault Window through a callback, checks Redis health before
// and after each fault and always heals what it started, even when its
// context is cancelled.
//
// faults imports neither impl nor model: it reports fault windows through a
// callback and acts on clients through a small interface the runner implements.
package faults
