package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/lockcheck/lockcheck/workloads/catalog/release"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// redissonPinned is the Redisson release impl/drivers/redisson-java/pom.xml
// pins: the bare redisson subjects (the locks, the semaphores, the latch)
// run it. The earlier pin, 3.52.0, runs as redisson@3.52.0 (docs/drivers.md).
const redissonPinned = "4.7.0"

// redissonSupports are the Redisson releases the driver supports (the spin
// and fenced locks from later ones: redissonSince). The compat sources
// also build 3.8.x and 3.9.x, but those start on Java 11 or older only
// (Config's static initializer makes URI's fields writable through
// Field.modifiers, which Java 12 and later hide; 3.10.0 ignores that), and
// Debian 12, whose openjdk-17 lockcheck installs, serves no older JDK.
var redissonSupports = subject.Range{Min: "3.10.0", Max: "4.x", Note: "3.8.x and 3.9.x start on Java 11 or older only, and Debian 12 serves no JDK before 17; ran valid: 3.10.0, 3.12.0, 3.16.3, 4.7.0"}

// redissonSince is d, a Redisson driver, supporting the releases from min
// only (its lock came in min, or the driver refuses older ones), note
// saying why.
func redissonSince(d Driver, min, note string) Driver {
	d.releases.supports = subject.Range{Min: min, Max: redissonSupports.Max, Note: note}
	return d
}

// redissonReleases runs any Redisson release the driver's compat sources
// cover and Java 17 starts (3.10.0 and later; build.sh picks them by version): Maven fetches
// it and its dependencies, checked against Maven Central's checksums, and
// builds the driver into the cache.
func redissonReleases() *releases {
	return &releases{
		library: "redisson", registry: "Maven Central org.redisson:redisson", pinned: redissonPinned,
		list: func(ctx context.Context) ([]string, error) {
			return release.MavenVersions(ctx, "org.redisson", "redisson")
		},
		sources:  []string{"redisson-java", "java-common"},
		supports: redissonSupports,
		howTo:    "mvn dependency:get -Dartifact=org.redisson:redisson:VERSION, or the versions in maven-metadata.xml of org/redisson/redisson on Maven Central",
		build: func(ctx context.Context, v, dir string) error {
			src, err := shippedDir("redisson-java")
			if err != nil {
				return err
			}
			return release.Run(ctx, src, nil, "bash", "build.sh", "--version", v, "--out", dir)
		},
		at: func(d Driver, v, dir string) Driver {
			d.Command = append([]string{"sh", "driver.sh", "--build", dir}, d.Command[2:]...)
			d.Installed = needJar(dir, "redisson-driver.jar")
			d.Doc = fmt.Sprintf("%s, at Redisson %s", d.Doc, v)
			return d
		},
	}
}

// shippedDir is the folder of a shipped driver (DriversDir/name).
func shippedDir(name string) (string, error) {
	base, err := DriversDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, name), nil
}

// needJar reports a missing java or a build without its jar.
func needJar(build, jar string) func(string) error {
	return func(string) error {
		if _, err := exec.LookPath("java"); err != nil {
			return errors.New("java is not installed (Debian package openjdk-17-jre-headless): run make deps")
		}
		if _, err := os.Stat(filepath.Join(build, jar)); err != nil {
			return fmt.Errorf("its jar %s is missing: remove %s to build it again", filepath.Join(build, jar), build)
		}
		return nil
	}
}
