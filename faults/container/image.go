package container

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/lockcheck/lockcheck/faults/servers"
)

// ErrImage is wrapped by the errors of building a server image.
var ErrImage = errors.New("server image")

// imageRepoPrefix starts the repository of every image lockcheck builds:
// "lockcheck/<binary name>:<version>-<digest>".
const imageRepoPrefix = "lockcheck/"

// Image is a server image lockcheck built here.
type Image struct {
	// Tag is "lockcheck/<binary>:<version>-<digest>", e.g.
	// "lockcheck/redis-server:7.0.15-1a2b3c4d5e6f": the digest covers the
	// binary and every library it links, so a changed binary gets a new
	// tag and an unchanged one is never rebuilt.
	Tag string
	// Entrypoint is the binary's path inside the image.
	Entrypoint string
	// Version is what the binary's --version says (v=...).
	Version string
	// Built is false when the tag already existed.
	Built bool
}

// EnsureImage returns the image of bin (a redis-server or valkey-server on
// this machine), building it first when this engine lacks it: FROM
// scratch, with the binary and the shared libraries ldd says it links, at
// their paths. Nothing is pulled. ctx bounds the whole call.
func EnsureImage(ctx context.Context, cli client.APIClient, bin string) (Image, error) {
	bin, err := exec.LookPath(bin)
	if err != nil {
		return Image{}, fmt.Errorf("%w: %v", ErrImage, err)
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return Image{}, fmt.Errorf("%w: %v", ErrImage, err)
	}
	version, err := servers.Version(ctx, bin)
	if err != nil {
		return Image{}, fmt.Errorf("%w: %v", ErrImage, err)
	}
	libs, err := linkedLibs(ctx, bin)
	if err != nil {
		return Image{}, err
	}
	name := filepath.Base(bin)
	files := map[string]string{"/usr/local/bin/" + name: bin} // path in image → file here
	for _, l := range libs {
		files[l] = l
	}
	digest, err := digestFiles(files)
	if err != nil {
		return Image{}, err
	}
	img := Image{Tag: fmt.Sprintf("%s%s:%s-%s", imageRepoPrefix, name, version, digest), Entrypoint: "/usr/local/bin/" + name, Version: version}
	if _, err := cli.ImageInspect(ctx, img.Tag); err == nil {
		return img, nil
	} else if !errdefs.IsNotFound(err) {
		return Image{}, fmt.Errorf("%w: inspect %s: %v", ErrImage, img.Tag, err)
	}
	if err := buildImage(ctx, cli, img, files, libs); err != nil {
		return Image{}, err
	}
	img.Built = true
	return img, nil
}

// linkedLibs lists the absolute paths of the libraries ldd says bin loads,
// the dynamic loader included.
func linkedLibs(ctx context.Context, bin string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ldd", bin).Output()
	if err != nil {
		return nil, fmt.Errorf("%w: ldd %s: %v (a static binary, or no ldd?)", ErrImage, bin, err)
	}
	var libs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) >= 3 && f[1] == "=>" && strings.HasPrefix(f[2], "/"):
			libs = append(libs, f[2])
		case len(f) >= 1 && strings.HasPrefix(f[0], "/"):
			libs = append(libs, f[0]) // the loader: "/lib64/ld-linux-x86-64.so.2 (0x...)"
		}
	}
	sort.Strings(libs)
	return libs, nil
}

// digestFiles hashes the image's files (path and content): 12 hex digits.
func digestFiles(files map[string]string) (string, error) {
	h := sha256.New()
	for _, dst := range sortedKeys(files) {
		b, err := os.ReadFile(files[dst])
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrImage, err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", dst, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// buildImage builds img from files on the engine: a tar context holding a
// Dockerfile FROM scratch and the files under rootfs/.
func buildImage(ctx context.Context, cli client.APIClient, img Image, files map[string]string, libs []string) error {
	dirs := map[string]bool{}
	for _, l := range libs {
		dirs[filepath.Dir(l)] = true
	}
	var libPath []string
	for d := range dirs {
		libPath = append(libPath, d)
	}
	sort.Strings(libPath)
	// No ENTRYPOINT: a container's command names the binary, as with
	// upstream images (whose entrypoint scripts find it on PATH).
	dockerfile := fmt.Sprintf("FROM scratch\nCOPY rootfs/ /\nENV PATH=/usr/local/bin LD_LIBRARY_PATH=%s\nLABEL lockcheck.server=%q lockcheck.version=%q\n",
		strings.Join(libPath, ":"), filepath.Base(img.Entrypoint), img.Version)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := addTar(tw, "Dockerfile", []byte(dockerfile), 0o644); err != nil {
		return err
	}
	for _, dst := range sortedKeys(files) {
		b, err := os.ReadFile(files[dst])
		if err != nil {
			return fmt.Errorf("%w: %v", ErrImage, err)
		}
		if err := addTar(tw, "rootfs"+dst, b, 0o755); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("%w: %v", ErrImage, err)
	}
	res, err := cli.ImageBuild(ctx, &buf, client.ImageBuildOptions{Tags: []string{img.Tag}, Remove: true, ForceRemove: true})
	if err != nil {
		return fmt.Errorf("%w: build %s: %v", ErrImage, img.Tag, err)
	}
	defer res.Body.Close()
	return buildStreamErr(res.Body, img.Tag)
}

func addTar(tw *tar.Writer, name string, b []byte, mode int64) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
		return fmt.Errorf("%w: %v", ErrImage, err)
	}
	if _, err := tw.Write(b); err != nil {
		return fmt.Errorf("%w: %v", ErrImage, err)
	}
	return nil
}

// buildStreamErr reads a build's JSON message stream to its end and
// returns the error it reports, if any.
func buildStreamErr(r io.Reader, tag string) error {
	dec := json.NewDecoder(r)
	for {
		var msg struct {
			Error string `json:"error"`
		}
		if err := dec.Decode(&msg); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%w: build %s: %v", ErrImage, tag, err)
		}
		if msg.Error != "" {
			return fmt.Errorf("%w: build %s: %s", ErrImage, tag, msg.Error)
		}
	}
}
