package release

import (
	"context"
	"encoding/xml"
	"fmt"
	"strings"
)

// POM is what lockcheck reads of a published Maven POM: its dependencies'
// versions and its properties.
type POM struct {
	Dependencies map[string]string // "group:artifact" -> version, as written
	Properties   map[string]string
}

// MavenPOM fetches group:artifact:version's POM from Maven Central.
func MavenPOM(ctx context.Context, group, artifact, version string) (POM, error) {
	b, err := get(ctx, fmt.Sprintf("%s%s/%s/%s/%s-%s.pom", mavenCentral, strings.ReplaceAll(group, ".", "/"), artifact, version, artifact, version))
	if err != nil {
		return POM{}, err
	}
	var doc struct {
		Deps []struct {
			Group    string `xml:"groupId"`
			Artifact string `xml:"artifactId"`
			Version  string `xml:"version"`
		} `xml:"dependencies>dependency"`
		Props struct {
			Any []struct {
				XMLName xml.Name
				Value   string `xml:",chardata"`
			} `xml:",any"`
		} `xml:"properties"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return POM{}, fmt.Errorf("POM of %s:%s:%s: %w", group, artifact, version, err)
	}
	p := POM{Dependencies: map[string]string{}, Properties: map[string]string{}}
	for _, d := range doc.Deps {
		p.Dependencies[d.Group+":"+d.Artifact] = d.Version
	}
	for _, a := range doc.Props.Any {
		p.Properties[a.XMLName.Local] = strings.TrimSpace(a.Value)
	}
	return p, nil
}
