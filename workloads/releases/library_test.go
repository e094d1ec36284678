package releases

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/lockcheck/lockcheck/workloads/subject"
)

func TestLookupLibraryGroupsARegistryPackage(t *testing.T) {
	ctx := context.Background()
	lib, err := LookupLibrary(ctx, "redisson")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"redisson", "redisson-fair", "redisson-rwlock", "redisson-semaphore", "redisson-latch"} {
		if !slices.Contains(lib.Subjects, want) {
			t.Errorf("redisson's subjects %v lack %s", lib.Subjects, want)
		}
	}
	if lib.Subjects[0] != "redisson" || slices.Contains(lib.Subjects, "spring-lock-pubsub") || slices.Contains(lib.Subjects, "reentrant") {
		t.Errorf("redisson's subjects %v: want it first, and no other package's", lib.Subjects)
	}
	fair, err := LookupLibrary(ctx, "redisson-fair")
	if err != nil || fair.Subjects[0] != "redisson-fair" || !slices.Contains(fair.Subjects, "redisson") {
		t.Errorf("redisson-fair: %v %v", fair.Subjects, err)
	}
	for name, want := range map[string]error{"nosuch": subject.ErrUnknown, "reentrant": subject.ErrNoVersions, "semaphore": subject.ErrNoVersions} {
		if _, err := VersionsOf(ctx, name); !errors.Is(err, want) {
			t.Errorf("VersionsOf(%s): %v, want %v", name, err, want)
		}
		if _, err := LookupLibrary(ctx, name); !errors.Is(err, ErrInput) {
			t.Errorf("LookupLibrary(%s): %v, want ErrInput", name, err)
		}
	}
}
