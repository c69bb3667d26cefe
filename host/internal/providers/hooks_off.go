//go:build !mcpbash_testhooks

package providers

// applyTestHooks does nothing in production builds: the dial, resolve and CA overrides exist
// only in binaries built with -tags mcpbash_testhooks, which the e2e tests use.
func applyTestHooks(*HTTPS, func(string) string) {}

func applyGitTestHooks(*Git, func(string) string) {}
