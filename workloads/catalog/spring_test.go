package catalog

import (
	"os/exec"
	"strings"
	"testing"
)

// TestSpringNotBuilt: java alone is not enough: the jar must be built.
func TestSpringNotBuilt(t *testing.T) {
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java here: TestRedissonNotInstalled covers a missing java")
	}
	err := needSpring(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "spring-lock-driver.jar is not built") || !strings.Contains(err.Error(), "make deps") {
		t.Fatalf("without the jar: %v", err)
	}
}
