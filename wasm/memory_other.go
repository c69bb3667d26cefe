//go:build !linux

package wasm

// adviseHugePages is Linux-only advice.
func adviseHugePages([]byte) {}
