package release

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/workloads/subject"
)

// queryTimeout bounds one question to a registry.
const queryTimeout = 30 * time.Second

// The registries' addresses (their public APIs, as the ordinary clients
// use them); tests point them at a server of their own.
var (
	mavenCentral = "https://repo.maven.apache.org/maven2/"
	npmRegistry  = "https://registry.npmjs.org/"
	pypiJSON     = "https://pypi.org/pypi/"
	cratesIndex  = "https://index.crates.io/"
	goProxy      = "https://proxy.golang.org/"
)

// client asks the registries without keeping connections open between
// questions: no connection (nor its goroutines) outlives a query.
var client = &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, DisableKeepAlives: true}}

// get fetches url's body, bounded by ctx and queryTimeout.
func get(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "lockcheck (release listing)")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound, http.StatusGone:
		return nil, notFound{url, resp.Status}
	default:
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, 64<<20))
}

// notFound is a registry's answer that it has no such thing.
type notFound struct{ url, status string }

func (e notFound) Error() string { return "GET " + e.url + ": " + e.status }

// MavenVersions lists group:artifact's releases from Maven Central's
// maven-metadata.xml, in its order (oldest first).
func MavenVersions(ctx context.Context, group, artifact string) ([]string, error) {
	b, err := get(ctx, mavenCentral+strings.ReplaceAll(group, ".", "/")+"/"+artifact+"/maven-metadata.xml")
	if err != nil {
		return nil, err
	}
	var meta struct {
		Versions []string `xml:"versioning>versions>version"`
	}
	if err := xml.Unmarshal(b, &meta); err != nil {
		return nil, fmt.Errorf("maven-metadata.xml of %s:%s: %w", group, artifact, err)
	}
	return meta.Versions, nil
}

// NPMVersions lists the releases an npm package's registry document
// serves, oldest first (by publication time where it gives one).
func NPMVersions(ctx context.Context, pkg string) ([]string, error) {
	b, err := get(ctx, npmRegistry+pkg)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Versions map[string]json.RawMessage `json:"versions"`
		Time     map[string]string          `json:"time"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("npm %s: %w", pkg, err)
	}
	var out []string
	for v := range doc.Versions {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := strings.Compare(doc.Time[a], doc.Time[b]); c != 0 {
			return c
		}
		return subject.CompareReleases(a, b)
	})
	return out, nil
}

// PyPIVersions lists a PyPI project's releases with files, oldest first.
func PyPIVersions(ctx context.Context, project string) ([]string, error) {
	b, err := get(ctx, pypiJSON+project+"/json")
	if err != nil {
		return nil, err
	}
	var doc struct {
		Releases map[string][]struct {
			Uploaded string `json:"upload_time_iso_8601"`
		} `json:"releases"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("PyPI %s: %w", project, err)
	}
	first := map[string]string{}
	var out []string
	for v, files := range doc.Releases {
		if len(files) > 0 {
			out = append(out, v)
			first[v] = files[0].Uploaded
		}
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(first[a], first[b]) })
	return out, nil
}

// CrateVersions lists a crate's releases that are not yanked, oldest
// first, from crates.io's sparse index (the one cargo reads).
func CrateVersions(ctx context.Context, crate string) ([]string, error) {
	b, err := get(ctx, cratesIndex+sparsePath(crate))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var v struct {
			Vers   string `json:"vers"`
			Yanked bool   `json:"yanked"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			return nil, fmt.Errorf("crates.io index %s: %w", crate, err)
		}
		if !v.Yanked {
			out = append(out, v.Vers)
		}
	}
	return out, nil
}

// sparsePath is a crate's file in the sparse index: 1/a, 2/ab, 3/a/abc,
// ab/cd/abcd...
func sparsePath(crate string) string {
	c := strings.ToLower(crate)
	switch len(c) {
	case 1, 2:
		return fmt.Sprintf("%d/%s", len(c), c)
	case 3:
		return "3/" + c[:1] + "/" + c
	}
	return c[:2] + "/" + c[2:4] + "/" + c
}

// GoVersions lists a Go module's releases from the module proxy's @v/list,
// in semantic-version order.
func GoVersions(ctx context.Context, module string) ([]string, error) {
	b, err := get(ctx, goProxy+strings.ToLower(module)+"/@v/list")
	if err != nil {
		return nil, err
	}
	out := strings.Fields(string(b))
	slices.SortFunc(out, subject.CompareReleases)
	return out, nil
}

// GoHas reports whether the Go module proxy serves release v of module
// (its @v/list may leave old releases out; @v/V.info answers for each).
func GoHas(ctx context.Context, module, v string) (bool, error) {
	_, err := get(ctx, goProxy+strings.ToLower(module)+"/@v/"+v+".info")
	var nf notFound
	if errors.As(err, &nf) {
		return false, nil
	}
	return err == nil, err
}
