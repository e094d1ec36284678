package bench

import (
	"errors"
	"testing"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// defaultSubjects returns the default subjects from the shipped catalog.
func defaultSubjects(t testing.TB) []subject.Subject {
	t.Helper()
	s, err := Subjects(catalog.Subjects, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSubjects: names resolve in the registry in the order given, the
// default list starts with the baseline, and subjects bench cannot measure
// on one Redis are refused with the reason.
func TestSubjects(t *testing.T) {
	got := defaultSubjects(t)
	if len(got) != len(DefaultSubjects) || got[0].Name != "reentrant" || !got[1].Fair {
		t.Fatalf("default subjects = %v", got)
	}
	s, err := Subjects(catalog.Subjects, []string{"redislock-tuned", "reentrant"})
	if err != nil || len(s) != 2 || s[0].Name != "redislock-tuned" || s[1].Name != "reentrant" {
		t.Fatalf("Subjects = %v, %v", s, err)
	}
	for _, name := range []string{"reentrant+fair", "redlock", "reentrant-wait"} {
		if _, err := Subjects(catalog.Subjects, []string{name}); !errors.Is(err, ErrSubject) {
			t.Errorf("%s: %v, want ErrSubject", name, err)
		}
	}
	if _, err := Subjects(catalog.Subjects, []string{"nope"}); !errors.Is(err, subject.ErrUnknown) {
		t.Errorf("nope: %v, want ErrUnknown", err)
	}
}
