package harness

import (
	"net"
	"testing"
)

// GreetingListener listens on a loopback TCP port that writes greeting to every connection and
// closes it, until the test ends: what confinement tests try to reach. It returns the port.
func GreetingListener(t testing.TB, greeting string) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(greeting))
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}
