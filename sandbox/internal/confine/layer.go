package confine

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// A native tool in review mode (docs/REVIEW.md) runs as real bash, whose writes the sandbox
// filesystem never sees. On Linux they can still be held: the tool runs in its own user, mount
// and PID namespaces (the server's user mapped to itself), where each read-write root is covered
// by an overlay mount whose upper layer is the call's layer directory, and the change store is
// covered by an empty read-only tmpfs. The helper that mounts them (`mcp-bash __layer SPEC --
// PROG ARGS...`) then starts the tool in a second, nested user and mount namespace, so that the
// mounts are locked (a process of that namespace, even one with its capabilities, cannot unmount
// them and reach the roots below), and the tool is confined by Landlock as usual, its rules
// naming the overlays. The helper is the PID namespace's init: when it ends, so does every
// process the tool left behind, and nothing writes the layer any more.

// LayerCommand is the hidden mcp-bash subcommand of that helper.
const LayerCommand = "__layer"

// LayerSpec is what the helper mounts.
type LayerSpec struct {
	Mounts []LayerMount `json:"mounts"`
	// Hide are directories covered by an empty read-only tmpfs (the change store).
	Hide []string `json:"hide,omitempty"`
	// Dir is the directory the tool starts in (entered again once the overlays are mounted,
	// so that it is the overlay's, not the root's below).
	Dir string `json:"dir"`
	// UID and GID are the server's, mapped to themselves in the tool's user namespace.
	UID int `json:"uid"`
	GID int `json:"gid"`
}

// LayerMount is one read-write root and the overlay's upper and work directories over it.
type LayerMount struct {
	Root, Upper, Work string
}

func encodeLayer(s LayerSpec) (string, error) {
	for _, m := range s.Mounts {
		for _, p := range []string{m.Root, m.Upper, m.Work} {
			// The overlay's options separate paths with ',' and ':'; the kernel's escaping of
			// them is not worth the risk of a root mounted over the wrong directory.
			if strings.ContainsAny(p, ",:\\\n") {
				return "", fmt.Errorf("the path %q holds a character an overlay mount cannot name (',', ':', '\\'); rename it to run native tools in review mode", p)
			}
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func decodeLayer(enc string) (LayerSpec, error) {
	var s LayerSpec
	b, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return s, fmt.Errorf("layer: spec: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("layer: spec: %w", err)
	}
	return s, nil
}

// WrapLayer returns the command line that runs argv under the layer helper (self is the mcp-bash
// binary); the caller starts it with LayerAttr.
func WrapLayer(self string, s LayerSpec, argv []string) ([]string, error) {
	enc, err := encodeLayer(s)
	if err != nil {
		return nil, err
	}
	return append([]string{self, LayerCommand, enc, "--"}, argv...), nil
}
