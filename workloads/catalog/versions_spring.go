package catalog

import (
	"context"
	"fmt"
	"slices"

	"github.com/lockcheck/lockcheck/impl/driver"
	"github.com/lockcheck/lockcheck/workloads/catalog/release"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// springPinned is the Spring Integration release
// impl/drivers/spring-redis-lock/pom.xml pins.
const springPinned = "6.5.5"

// springRenewing are the spring-integration-redis releases whose
// RedisLockRegistry renews its holds (setRenewalTaskScheduler, 6.4.0) and
// whose Spring Data Redis connection factory has start(): the driver's
// src/compat/current builds against them, src/compat/legacy against the
// older ones it supports.
var springRenewing = subject.Range{Min: "6.4.0"}

// springCompat is the driver's compat source set for spring-integration-redis
// v: "current" from 6.4.0, else "legacy".
func springCompat(v string) string {
	if springRenewing.Contains(v) {
		return "current"
	}
	return "legacy"
}

// springAt is d, a RedisLockRegistry driver, running the build of release v
// in dir: without the watchdog capability before 6.4.0 (the library renews
// nothing there; the driver announces no "watchdog", and every acquire
// gets a lease).
func springAt(d Driver, v, dir string) Driver {
	d.Command = append([]string{"sh", "driver.sh", "--build", dir}, d.Command[2:]...)
	d.Installed = needJar(dir, "spring-lock-driver.jar")
	d.Doc = fmt.Sprintf("%s, at Spring Integration %s", d.Doc, v)
	if springCompat(v) == "legacy" {
		d.Capabilities = slices.DeleteFunc(slices.Clone(d.Capabilities), func(c string) bool { return c == driver.CapWatchdog })
		d.Doc += " (no renewal: every acquire has a lease)"
	}
	return d
}

// springReleases runs the RedisLockRegistry driver at any release of
// spring-integration-redis it compiles against (the compat source set
// springCompat picks): Maven builds it into the
// cache with the Spring Framework, Spring Data Redis and Lettuce that
// release was published with (read from its POMs on Maven Central), every
// artifact checked against Maven Central's checksums.
func springReleases() *releases {
	return &releases{
		library: "spring-integration-redis", registry: "Maven Central org.springframework.integration:spring-integration-redis",
		pinned: springPinned, supports: subject.Range{Min: "6.0.0", Max: "7.x", Note: "measured: 6.0.5, 6.1.9, 6.3.11, 6.4.10, 6.5.5, 7.0.5; before 6.4.0 no renewal task, so no watchdog; 7.x has no DEL fallback after a failed UNLINK"},
		list: func(ctx context.Context) ([]string, error) {
			return release.MavenVersions(ctx, "org.springframework.integration", "spring-integration-redis")
		},
		howTo:   "mvn dependency:get -Dartifact=org.springframework.integration:spring-integration-redis:VERSION",
		sources: []string{"spring-redis-lock", "java-common"},
		build: func(ctx context.Context, v, dir string) error {
			props, err := springProperties(ctx, v)
			if err != nil {
				return err
			}
			src, err := shippedDir("spring-redis-lock")
			if err != nil {
				return err
			}
			args := append([]string{"bash", "build.sh", "--out", dir, "-Dspring.compat=" + springCompat(v)}, props...)
			return release.Run(ctx, src, nil, args...)
		},
		at: springAt,
	}
}

// springProperties are the pom's -D properties for spring-integration-redis
// v: its spring-data-redis, the Spring Framework of its
// spring-integration-core (spring-context), and the Lettuce of that Spring
// Data Redis release (its POM's lettuce property).
func springProperties(ctx context.Context, v string) ([]string, error) {
	redisPOM, err := release.MavenPOM(ctx, "org.springframework.integration", "spring-integration-redis", v)
	if err != nil {
		return nil, err
	}
	corePOM, err := release.MavenPOM(ctx, "org.springframework.integration", "spring-integration-core", v)
	if err != nil {
		return nil, err
	}
	data := redisPOM.Dependencies["org.springframework.data:spring-data-redis"]
	framework := corePOM.Dependencies["org.springframework:spring-context"]
	if data == "" || framework == "" {
		return nil, fmt.Errorf("spring-integration %s: its POMs name no spring-data-redis or spring-context version", v)
	}
	dataPOM, err := release.MavenPOM(ctx, "org.springframework.data", "spring-data-redis", data)
	if err != nil {
		return nil, err
	}
	lettuce := dataPOM.Properties["lettuce"]
	if lettuce == "" {
		return nil, fmt.Errorf("spring-data-redis %s names no lettuce version", data)
	}
	return []string{"-Dspring-integration.version=" + v, "-Dspring-framework.version=" + framework,
		"-Dspring-data-redis.version=" + data, "-Dlettuce.version=" + lettuce}, nil
}
