package faults

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// owner identifies a process for the names of what it creates (nftables
// tables, temporary directories): its pid and its start time, so that a
// later process that gets the same pid never takes a dead one's names nor
// keeps its leftovers alive. Names are "<pid>_<start>" (tables) or
// "<pid>-<start>" (directories).
type owner struct {
	pid   int
	start uint64 // clock ticks since boot (/proc/<pid>/stat); 0: unknown
}

// self is this process's owner.
var self = sync.OnceValue(func() owner {
	pid := os.Getpid()
	start, _ := startTime(pid)
	return owner{pid: pid, start: start}
})

// startTime reads pid's start time (field 22 of /proc/<pid>/stat, in clock
// ticks since boot).
func startTime(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	return strconv.ParseUint(f[19], 10, 64) // fields 3.. after the name: 22 is the 20th
}

// parseOwner reads the pid and (maybe empty: a name from before start
// times were recorded) start of a name.
func parseOwner(pid, start string) (owner, bool) {
	p, err := strconv.Atoi(pid)
	if err != nil || p <= 0 {
		return owner{}, false
	}
	o := owner{pid: p}
	if start != "" {
		if o.start, err = strconv.ParseUint(start, 10, 64); err != nil {
			return owner{}, false
		}
	}
	return o, true
}

// gone reports whether the process o names no longer runs: no process has
// its pid, or the one that has it started at another time (the pid was
// reused). A process we may not signal (EPERM) exists. Without a start
// time (older names, or no /proc) only the pid is compared.
func (o owner) gone() bool {
	if err := syscall.Kill(o.pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	if o.start == 0 {
		return false
	}
	start, err := startTime(o.pid)
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	return start != o.start
}

// OwnerTag names this process for what it leaves outside the machine's
// process tree (a container's label): "<pid>-<start>". OwnerTagGone tells,
// later, whether the process a tag names still runs.
func OwnerTag() string { return fmt.Sprintf("%d-%d", self().pid, self().start) }

// OwnerTagGone reports whether the process an OwnerTag names no longer runs
// (see owner.gone). A tag that does not parse is not judged gone.
func OwnerTagGone(tag string) bool {
	pid, start, _ := strings.Cut(tag, "-")
	o, ok := parseOwner(pid, start)
	return ok && o.gone()
}
