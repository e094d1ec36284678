package workloads

// fairSubjects lists the fair lock once impl has it (impl.FairMaker).
func fairSubjects() []Subject { return nil }
