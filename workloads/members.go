package workloads

import (
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
)

// alsoOf returns what o records in model.Op.Also: the other members of the
// multilock its process runs (subject.Subject.Members), "" for a Section
// (it touches the first member's resource only) and for any other lock.
func (r *runner) alsoOf(o model.Op) string {
	if o.Kind == model.Section {
		return ""
	}
	s := r.subj
	if len(s.Parts) > 0 {
		s = s.Parts[r.partOf(o.Process, o.Client, len(s.Parts))]
	}
	if s.Members < 2 {
		return ""
	}
	return model.JoinMembers(impl.MemberNames(o.Lock, s.Members)[1:])
}
