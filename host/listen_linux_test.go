package host

import (
	"context"
	"net"
	"syscall"
	"testing"
)

// TestListenTCPPlain: the HTTP listener is plain TCP (not Multipath TCP, Go's default where the
// kernel has it) and serves a connection.
func TestListenTCPPlain(t *testing.T) {
	ln, err := listenTCP(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	rc, err := ln.(*net.TCPListener).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var proto int
	var serr error
	if err := rc.Control(func(fd uintptr) {
		proto, serr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_PROTOCOL)
	}); err != nil || serr != nil {
		t.Fatal(err, serr)
	}
	if proto != syscall.IPPROTO_TCP {
		t.Errorf("listener protocol %d, want IPPROTO_TCP (%d)", proto, syscall.IPPROTO_TCP)
	}
	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			_, err = c.Write([]byte("x"))
			c.Close()
		}
		done <- err
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := make([]byte, 1)
	if _, err := c.Read(b); err != nil || b[0] != 'x' {
		t.Errorf("read %q %v", b, err)
	}
	if err := <-done; err != nil {
		t.Error(err)
	}
}
