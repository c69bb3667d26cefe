module github.com/mcp-bash/mcp-bash

go 1.26.0

require (
	github.com/benhoyt/goawk v1.29.1
	github.com/itchyny/gojq v0.12.20
	github.com/landlock-lsm/go-landlock v0.11.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/spf13/cobra v1.10.2
	github.com/tetratelabs/wazero v1.12.0
	golang.org/x/sys v0.49.0
	golang.org/x/tools v0.52.0
	mvdan.cc/sh/v3 v3.14.1
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/itchyny/timefmt-go v0.1.9 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/term v0.45.0 // indirect
	golang.org/x/text v0.14.0 // indirect
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.77 // indirect
)
