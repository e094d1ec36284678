package faults

// SelfStart is this process's start time as owned names carry it.
func SelfStart() uint64 { return self().start }
