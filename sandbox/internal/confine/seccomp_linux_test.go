//go:build linux && (amd64 || arm64)

package confine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

func init() {
	doModes["net"] = netProbes
	doModes["threads"] = threadsProbe
	doModes["foreign"] = foreignProbe
}

const (
	ipprotoMPTCP = 262
	ipprotoSCTP  = 132
	afVsock      = 40
)

var errnoNames = map[syscall.Errno]string{syscall.EPERM: "EPERM", syscall.EACCES: "EACCES",
	syscall.EPROTONOSUPPORT: "EPROTONOSUPPORT", syscall.EAFNOSUPPORT: "EAFNOSUPPORT", syscall.ENOSYS: "ENOSYS"}

// outcome names an error the way the tests compare it: "ok", an errno name, or the message.
func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) && errnoNames[errno] != "" {
		return errnoNames[errno]
	}
	return err.Error()
}

// socketProbes are the socket(2) calls netProbes makes.
var socketProbes = []struct {
	name               string
	domain, typ, proto int
}{
	{"mptcp socket", syscall.AF_INET, syscall.SOCK_STREAM, ipprotoMPTCP},
	{"mptcp6 socket", syscall.AF_INET6, syscall.SOCK_STREAM | syscall.SOCK_CLOEXEC, ipprotoMPTCP},
	{"tcp socket", syscall.AF_INET, syscall.SOCK_STREAM | syscall.SOCK_NONBLOCK, syscall.IPPROTO_TCP},
	{"udp socket", syscall.AF_INET, syscall.SOCK_DGRAM, 0},
	{"udp6 socket", syscall.AF_INET6, syscall.SOCK_DGRAM | syscall.SOCK_NONBLOCK | syscall.SOCK_CLOEXEC, syscall.IPPROTO_UDP},
	{"raw socket", syscall.AF_INET, syscall.SOCK_RAW, syscall.IPPROTO_ICMP},
	{"sctp socket", syscall.AF_INET, syscall.SOCK_STREAM, ipprotoSCTP},
	{"vsock socket", afVsock, syscall.SOCK_STREAM, 0},
	{"netlink socket", syscall.AF_NETLINK, syscall.SOCK_RAW | syscall.SOCK_CLOEXEC, syscall.NETLINK_ROUTE},
}

func socketOutcome(domain, typ, proto int) string {
	fd, err := syscall.Socket(domain, typ, proto)
	if err == nil {
		syscall.Close(fd)
	}
	return outcome(err)
}

func ioURingOutcome() string {
	var params [120]byte // struct io_uring_params
	fd, _, e := syscall.Syscall(sysIOURingSetup, 1, uintptr(unsafe.Pointer(&params)), 0)
	if e != 0 {
		return outcome(e)
	}
	syscall.Close(int(fd))
	return "ok"
}

// netProbes is the confined side of TestNetworkFilter: one line per probe, "name: outcome".
// MPTCP_PORT, TCP_PORT and TFO_PORT are loopback TCP listeners, DNS_ADDR a UDP one.
func netProbes() {
	for _, p := range socketProbes {
		fmt.Printf("%s: %s\n", p.name, socketOutcome(p.domain, p.typ, p.proto))
	}

	dial := func(mptcp bool, port string) string {
		d := net.Dialer{Timeout: 5 * time.Second}
		d.SetMultipathTCP(mptcp)
		c, err := d.DialContext(context.Background(), "tcp", "127.0.0.1:"+port)
		if err != nil {
			return outcome(err)
		}
		defer c.Close()
		isMPTCP, _ := c.(*net.TCPConn).MultipathTCP()
		if _, err := fmt.Fprintf(c, "mptcp=%v\n", isMPTCP); err != nil {
			return outcome(err)
		}
		return fmt.Sprintf("ok mptcp=%v", isMPTCP)
	}
	fmt.Println("mptcp dial:", dial(true, os.Getenv("MPTCP_PORT")))
	fmt.Println("tcp dial:", dial(false, os.Getenv("TCP_PORT")))

	// A DNS query for example.com, type A, sent the way a resolver does.
	query := []byte("\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07example\x03com\x00\x00\x01\x00\x01")
	dns := func() error {
		c, err := net.Dial("udp", os.Getenv("DNS_ADDR"))
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write(query)
		return err
	}
	fmt.Println("dns send:", outcome(dns()))

	// TCP Fast Open: sendto with MSG_FASTOPEN connects without connect(2).
	tfo := func() error {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		defer syscall.Close(fd)
		port, _ := strconv.Atoi(os.Getenv("TFO_PORT"))
		to := &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}
		return syscall.Sendto(fd, []byte("tfo\n"), msgFastOpen, to)
	}
	fmt.Println("tfo sendto:", outcome(tfo()))

	pair := func(typ int) error {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, typ, 0)
		if err != nil {
			return err
		}
		defer syscall.Close(fds[0])
		defer syscall.Close(fds[1])
		if _, err := syscall.Write(fds[0], []byte("x")); err != nil {
			return err
		}
		b := make([]byte, 1)
		if _, err := syscall.Read(fds[1], b); err != nil || b[0] != 'x' {
			return fmt.Errorf("read %q: %v", b, err)
		}
		return nil
	}
	fmt.Println("unix stream socketpair:", outcome(pair(syscall.SOCK_STREAM)))
	fmt.Println("unix dgram socketpair:", outcome(pair(syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC)))
	fmt.Println("io_uring_setup:", ioURingOutcome())
}

// threadsProbe applies Rules{} in this process after parking goroutines on their own OS
// threads, then tries a UDP socket on each of those threads: TSYNC must have reached them.
func threadsProbe() {
	const n = 8
	var ready, applied, done sync.WaitGroup
	ready.Add(n)
	applied.Add(1)
	done.Add(n)
	results := make([]string, n)
	for i := range n {
		go func() {
			runtime.LockOSThread() // this thread exists before Apply and is never unlocked
			ready.Done()
			applied.Wait()
			results[i] = socketOutcome(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
			done.Done()
		}()
	}
	ready.Wait()
	if err := Apply(Rules{}); err != nil {
		fmt.Println("apply:", err)
		return
	}
	applied.Done()
	done.Wait()
	fmt.Println("threads:", strings.Join(results, " "))
}

// foreignProbe makes getpid(2) through the x32 ABI (amd64 only): without Net the filter kills
// the process; otherwise the kernel answers (ENOSYS where x32 is not built in).
func foreignProbe() {
	_, _, e := syscall.RawSyscall(foreignNrFloor|syscall.SYS_GETPID, 0, 0, 0)
	fmt.Println("x32 getpid:", outcome(e))
}

// packetLoopback listens for UDP on 127.0.0.1 and returns its address and the first datagram.
func packetLoopback(t *testing.T) (addr string, got <-chan []byte) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	ch := make(chan []byte, 1)
	go func() {
		b := make([]byte, 512)
		n, _, err := pc.ReadFrom(b)
		if err == nil {
			ch <- b[:n]
		}
	}()
	return pc.LocalAddr().String(), ch
}

// The seccomp filter closes what Landlock's network rule misses without Net (MPTCP, UDP, raw
// sockets, other families, TCP Fast Open, io_uring) and leaves UNIX sockets and the TCP
// sockets Landlock governs alone; with Net everything works.
func TestNetworkFilter(t *testing.T) {
	if requireLandlock(t) < NetABI {
		t.Skip("Landlock ABI below 4 cannot restrict TCP")
	}
	// With Net the confined program gets what this unconfined test process gets.
	unconfined := map[string]string{"io_uring_setup": ioURingOutcome(), "mptcp dial": "ok mptcp=false",
		"tcp dial": "ok mptcp=false", "dns send": "ok", "tfo sendto": "", // TFO: what the host allows
		"unix stream socketpair": "ok", "unix dgram socketpair": "ok"}
	for _, p := range socketProbes {
		unconfined[p.name] = socketOutcome(p.domain, p.typ, p.proto)
	}
	mptcp := unconfined["mptcp socket"] == "ok" // MPTCP enabled on this host
	if mptcp {
		unconfined["mptcp dial"] = "ok mptcp=true"
	}
	for _, tc := range []struct {
		net  bool
		want map[string]string // "": not compared
	}{
		{false, map[string]string{
			"mptcp socket": "EPERM", "mptcp6 socket": "EPERM",
			"mptcp dial": "EACCES",                   // Go falls back to TCP, which Landlock refuses
			"tcp socket": "ok", "tcp dial": "EACCES", // Landlock's refusal, not the filter's
			"udp socket": "EPERM", "udp6 socket": "EPERM", "dns send": "EPERM",
			"raw socket": "EPERM", "sctp socket": "EPERM", "vsock socket": "EPERM",
			"tfo sendto": "EPERM", "io_uring_setup": "EPERM",
			"unix stream socketpair": "ok", "unix dgram socketpair": "ok", "netlink socket": "ok",
		}},
		{true, unconfined},
	} {
		t.Run(fmt.Sprintf("Net=%v", tc.net), func(t *testing.T) {
			mptcpPort, mptcpGot := loopback(t)
			tcpPort, tcpGot := loopback(t)
			tfoPort, tfoGot := loopback(t)
			dnsAddr, dnsGot := packetLoopback(t)
			env := []string{doEnv + "=net", "MPTCP_PORT=" + mptcpPort, "TCP_PORT=" + tcpPort, "TFO_PORT=" + tfoPort, "DNS_ADDR=" + dnsAddr}
			out, errOut, code := confined(t, Rules{Net: tc.net}, env, os.Args[0])
			if code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			got := map[string]string{}
			for line := range strings.Lines(out) {
				k, v, _ := strings.Cut(strings.TrimSpace(line), ": ")
				got[k] = v
			}
			for k, want := range tc.want {
				if v, ok := got[k]; !ok {
					t.Errorf("%s: no outcome\nstdout: %s\nstderr: %s", k, out, errOut)
				} else if want != "" && v != want {
					t.Errorf("%s: %s, want %s", k, v, want)
				} else if want == "" {
					t.Logf("%s: %s (not compared)", k, v)
				}
			}
			// What the listeners received. Loopback delivery is synchronous, so everything
			// sent has arrived by the time the child has exited.
			wait := 200 * time.Millisecond
			if tc.net {
				wait = 5 * time.Second
			}
			for _, l := range []struct {
				name string
				ch   <-chan string
				want string
			}{{"MPTCP listener", mptcpGot, fmt.Sprintf("mptcp=%v\n", mptcp)}, {"TCP listener", tcpGot, "mptcp=false\n"}} {
				select {
				case line := <-l.ch:
					if !tc.net || line != l.want {
						t.Errorf("%s received %q", l.name, line)
					}
				case <-time.After(wait):
					if tc.net {
						t.Errorf("%s received nothing", l.name)
					}
				}
			}
			select {
			case b := <-dnsGot:
				if !tc.net || !strings.Contains(string(b), "example") {
					t.Errorf("DNS listener received %q", b)
				}
			case <-time.After(wait):
				if tc.net {
					t.Error("DNS listener received nothing")
				}
			}
			if !tc.net {
				select {
				case line := <-tfoGot:
					t.Errorf("TCP Fast Open listener received %q", line)
				case <-time.After(wait):
				}
			}
		})
	}
}

// The filter reaches threads that existed before Apply (SECCOMP_FILTER_FLAG_TSYNC): Go may
// exec the program from any of them.
func TestNetworkFilterAllThreads(t *testing.T) {
	requireLandlock(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), doEnv+"=threads")
	out, err := cmd.CombinedOutput()
	want := "threads:" + strings.Repeat(" EPERM", 8)
	if err != nil || strings.TrimSpace(string(out)) != want {
		t.Fatalf("%v\noutput: %s\nwant: %s", err, out, want)
	}
}

// A system call through a second ABI (x32 on amd64) kills the process without Net.
func TestNetworkFilterForeignABI(t *testing.T) {
	requireLandlock(t)
	if foreignNrFloor == 0 {
		t.Skip("no second ABI shares this architecture's audit arch")
	}
	out, errOut, code := confined(t, Rules{Net: true}, []string{doEnv + "=foreign"}, os.Args[0])
	if code != 0 || !strings.HasPrefix(out, "x32 getpid: ") {
		t.Fatalf("with Net: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	w, err := (&Confiner{Self: os.Args[0], Required: true}).Wrap(Rules{}, []string{os.Args[0]})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(w[0], w[1:]...)
	cmd.Env = []string{childEnv + "=1", doEnv + "=foreign", "PATH=/usr/bin:/bin"}
	b, err := cmd.CombinedOutput()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGSYS {
		t.Fatalf("without Net: %v (want SIGSYS)\noutput: %s", err, b)
	}
}
