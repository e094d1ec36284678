package hunt

// SameFailure reports whether cand's find is the failure first showed, as
// shrinking keeps it (Config.Same's default): one of cand's violations has
// the class and shape of one of first's (model.Signature), or first has no
// violation to compare (a find that is no checker's). Without it a shrink
// slips from the failure it found to another that a simpler draw shows (a
// double grant shrunk into a refusal), and a replay of the shrunk draw no
// longer shows the first.
func SameFailure(first, cand Trial) bool {
	want := first.Report.Signatures()
	if len(want) == 0 {
		return true
	}
	for _, s := range cand.Report.Signatures() {
		for _, w := range want {
			if s.Class == w.Class && s.Shape == w.Shape {
				return true
			}
		}
	}
	return false
}

// same is cfg.Same, or SameFailure.
func (cfg Config) same(first, cand Trial) bool {
	if cfg.Same != nil {
		return cfg.Same(first, cand)
	}
	return SameFailure(first, cand)
}
