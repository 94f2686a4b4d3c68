// SPDX-License-Identifier: GPL-2.0

package main

// The RDMA devices of a network namespace, from the RDMA core's own
// netlink (NETLINK_RDMA, the nldev commands iproute2's "rdma" uses): a
// socket made inside the namespace sees, in the core's exclusive mode, the
// devices of that namespace and no other.  The node of each is the
// "uverbs" character device the core names for it (RDMA_NLDEV_CMD_GET_CHARDEV),
// and rdma_cm's node is the core's global "rdma_cm" character device.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// From <rdma/rdma_netlink.h>
const (
	nlNldev          = 5 // RDMA_NL_NLDEV
	cmdGet           = 1 // RDMA_NLDEV_CMD_GET
	cmdSysGet        = 6 // RDMA_NLDEV_CMD_SYS_GET
	cmdGetChardev    = 15
	attrDevIndex     = 1  // u32
	attrDevName      = 2  // string
	attrChardevType  = 69 // string
	attrChardevName  = 70 // string
	attrChardev      = 72 // u64, huge_encode_dev()
	attrSysNetnsMode = 66 // u8, 0: exclusive
)

// A character device node, as the core names it
type chardev struct {
	ibdev string // the RDMA device ("" for rdma_cm)
	name  string // "uverbs3", "rdma_cm"
	major int64
	minor int64
}

// errNoNetns: the namespace's path is not there (the runtime and the
// plugin disagree on the paths, or the pod is being torn down)
var errNoNetns = errors.New("network namespace not found")

// errHostNetns: the path names the plugin's own namespace, the host's
var errHostNetns = errors.New("the host's network namespace")

// errTimeout: the kernel did not answer before the deadline
var errTimeout = errors.New("no answer from the RDMA core in time")

// inNetns runs fn on a thread of its own in the network namespace at path,
// unless that is the plugin's own (the host's).  The goroutine ends with
// its thread locked, so the Go runtime ends the thread too instead of
// reusing it, whatever namespace it was left in.
func inNetns(path string, fn func() error) error {
	// O_NONBLOCK: a FIFO there must not block the open
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return errNoNetns
	} else if err != nil {
		return fmt.Errorf("open: %w", err)
	}

	done := make(chan error, 1)
	go func() {
		defer unix.Close(fd)
		runtime.LockOSThread()
		var target, own unix.Stat_t
		if err := unix.Fstat(fd, &target); err != nil {
			done <- fmt.Errorf("fstat: %w", err)
			return
		}
		// Every thread not locked is in the plugin's own namespace
		if err := unix.Stat("/proc/thread-self/ns/net", &own); err != nil {
			done <- fmt.Errorf("own network namespace: %w", err)
			return
		}
		if target.Dev == own.Dev && target.Ino == own.Ino {
			done <- errHostNetns
			return
		}
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			done <- fmt.Errorf("setns: %w", err)
			return
		}
		done <- fn()
	}()
	return <-done
}

// An nldev socket; the namespace it is made in is the one it sees
type nldev struct {
	fd       int
	seq      uint32
	deadline time.Time // of every answer
}

func openNldev(deadline time.Time) (*nldev, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_RDMA)
	if err != nil {
		return nil, fmt.Errorf("RDMA netlink socket: %w", err)
	}
	return &nldev{fd: fd, deadline: deadline}, nil
}

func (s *nldev) close() { unix.Close(s.fd) }

type nlattr struct {
	typ  uint16
	data []byte
}

func attrU32(typ uint16, v uint32) nlattr {
	return nlattr{typ, binary.NativeEndian.AppendUint32(nil, v)}
}

func attrStr(typ uint16, v string) nlattr {
	return nlattr{typ, append([]byte(v), 0)}
}

func align4(n int) int { return (n + 3) &^ 3 }

// request sends one nldev command and returns the attributes of every
// message of its answer (one, or one per object for a dump).
func (s *nldev) request(cmd uint16, flags uint16, attrs ...nlattr) ([]map[uint16][]byte, error) {
	s.seq++
	msg := make([]byte, unix.NLMSG_HDRLEN)
	for _, a := range attrs {
		hdr := make([]byte, align4(unix.SizeofNlAttr+len(a.data)))
		binary.NativeEndian.PutUint16(hdr[0:], uint16(unix.SizeofNlAttr+len(a.data)))
		binary.NativeEndian.PutUint16(hdr[2:], a.typ)
		copy(hdr[unix.SizeofNlAttr:], a.data)
		msg = append(msg, hdr...)
	}
	binary.NativeEndian.PutUint32(msg[0:], uint32(len(msg)))
	binary.NativeEndian.PutUint16(msg[4:], nlNldev<<10|cmd)
	binary.NativeEndian.PutUint16(msg[6:], unix.NLM_F_REQUEST|flags)
	binary.NativeEndian.PutUint32(msg[8:], s.seq)
	if err := unix.Sendto(s.fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, err
	}
	return s.receive()
}

// Bounds of one answer: a dump lists a namespace's devices, a handful
const (
	maxAnswerMsgs  = 1024
	maxAnswerBytes = 1 << 20
)

// receive waits, until the deadline, for the answer to the last request
func (s *nldev) receive() ([]map[uint16][]byte, error) {
	a := answer{seq: s.seq}
	buf := make([]byte, 65536)
	for {
		left := time.Until(s.deadline)
		if left <= 0 {
			return nil, errTimeout
		}
		// A zero timeout is none: at least a microsecond
		tv := unix.NsecToTimeval(max(left.Nanoseconds(), 1000))
		if err := unix.SetsockoptTimeval(s.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
			return nil, fmt.Errorf("SO_RCVTIMEO: %w", err)
		}
		n, from, err := unix.Recvfrom(s.fd, buf, 0)
		if errors.Is(err, unix.EAGAIN) {
			return nil, errTimeout
		} else if errors.Is(err, unix.EINTR) {
			continue
		} else if err != nil {
			return nil, err
		}
		if done, err := a.decode(buf[:n], from); err != nil {
			return nil, err
		} else if done {
			return a.out, nil
		}
	}
}

// The answer to one request, as its messages arrive
type answer struct {
	seq   uint32
	out   []map[uint16][]byte // the attributes of each message
	bytes int
}

// decode takes one datagram the socket received from sender, and says
// whether the answer is complete.  Only the kernel (port 0) answers: a
// datagram from anyone else (a process of the namespace with
// CAP_NET_ADMIN may send to the socket) is dropped, and so is a message
// answering another request.
func (a *answer) decode(b []byte, sender unix.Sockaddr) (bool, error) {
	if sa, ok := sender.(*unix.SockaddrNetlink); !ok || sa.Pid != 0 {
		return false, nil
	}
	msgs, err := syscall.ParseNetlinkMessage(b)
	if err != nil {
		return false, err
	}
	for _, m := range msgs {
		if m.Header.Seq != a.seq {
			continue
		}
		switch m.Header.Type {
		case unix.NLMSG_DONE:
			return true, nil
		case unix.NLMSG_ERROR:
			if len(m.Data) < 4 {
				return false, errors.New("short netlink error")
			}
			if e := int32(binary.NativeEndian.Uint32(m.Data)); e != 0 {
				return false, unix.Errno(-e)
			}
			return true, nil
		}
		a.bytes += len(m.Data)
		if len(a.out) >= maxAnswerMsgs || a.bytes > maxAnswerBytes {
			return false, errors.New("answer too large")
		}
		a.out = append(a.out, parseAttrs(m.Data))
		if m.Header.Flags&unix.NLM_F_MULTI == 0 {
			return true, nil
		}
	}
	return false, nil
}

func parseAttrs(b []byte) map[uint16][]byte {
	attrs := map[uint16][]byte{}
	for len(b) >= unix.SizeofNlAttr {
		l := int(binary.NativeEndian.Uint16(b[0:]))
		if l < unix.SizeofNlAttr || l > len(b) {
			break
		}
		attrs[binary.NativeEndian.Uint16(b[2:])&^unix.NLA_F_NESTED] = b[unix.SizeofNlAttr:l]
		b = b[min(align4(l), len(b)):]
	}
	return attrs
}

func cstr(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// exclusive: the core is in exclusive netns mode.  In shared mode every
// namespace sees every device, so listing "a namespace's devices" would
// hand the host's devices to every container.
func (s *nldev) exclusive() (bool, error) {
	r, err := s.request(cmdSysGet, 0)
	if err != nil {
		return false, fmt.Errorf("RDMA_NLDEV_CMD_SYS_GET: %w", err)
	}
	if len(r) != 1 || len(r[0][attrSysNetnsMode]) != 1 {
		return false, errors.New("RDMA_NLDEV_CMD_SYS_GET: no netns mode")
	}
	return r[0][attrSysNetnsMode][0] == 0, nil
}

// chardev asks the core for a client's node: of device index (uverbs),
// or the global one (rdma_cm) when index < 0.
func (s *nldev) chardev(index int64, typ string) (chardev, error) {
	attrs := []nlattr{attrStr(attrChardevType, typ)}
	if index >= 0 {
		attrs = append(attrs, attrU32(attrDevIndex, uint32(index)))
	}
	r, err := s.request(cmdGetChardev, 0, attrs...)
	if err != nil {
		return chardev{}, fmt.Errorf("%s node: %w", typ, err)
	}
	if len(r) != 1 || len(r[0][attrChardev]) != 8 {
		return chardev{}, fmt.Errorf("%s node: no device number", typ)
	}
	dev := binary.NativeEndian.Uint64(r[0][attrChardev])
	return chardev{
		name:  cstr(r[0][attrChardevName]),
		major: int64(unix.Major(dev)),
		minor: int64(unix.Minor(dev)),
	}, nil
}

// The nodes a container may be given.  The core names them; whoever
// answers in its place (decode drops all but the kernel) must not name a
// disk or a path out of /dev/infiniband.
var uverbsName = regexp.MustCompile(`^uverbs[0-9]+$`)

const miscMajor = 10 // rdma_cm is a misc device

// verbsMajors: the majors /proc/devices gives to infiniband_verbs
func verbsMajors(procDevices []byte) map[int64]bool {
	majors := map[int64]bool{}
	chr := false
	for _, l := range strings.Split(string(procDevices), "\n") {
		f := strings.Fields(l)
		switch {
		case l == "Character devices:":
			chr = true
		case l == "Block devices:":
			chr = false
		case chr && len(f) == 2 && f[1] == "infiniband_verbs":
			if m, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				majors[m] = true
			}
		}
	}
	return majors
}

// checkNode: c is a uverbs node on an infiniband_verbs major, or rdma_cm
// on misc's
func checkNode(c chardev, verbs map[int64]bool) error {
	switch {
	case c.name == "rdma_cm" && c.major == miscMajor:
	case uverbsName.MatchString(c.name) && verbs[c.major]:
	default:
		return fmt.Errorf("unexpected node %q %d:%d", c.name, c.major, c.minor)
	}
	return nil
}

// The time the plugin gives itself when the runtime sets no deadline, and
// what it keeps from the runtime's deadline to answer in time (containerd
// drops a plugin that does not answer in its timeout, 2 s by default, and
// creates the container without it).  Not less than the runtime allows:
// the core's first rdma_cm answer may load rdma_ucm, a second or more on
// a slow machine.
const (
	defaultTimeout = time.Second
	deadlineMargin = 250 * time.Millisecond
)

// deadlineOf: when the answers of the core must have come, for ctx
func deadlineOf(ctx context.Context) time.Time {
	if dl, ok := ctx.Deadline(); ok {
		return dl.Add(-deadlineMargin)
	}
	return time.Now().Add(defaultTimeout)
}

// netnsNodes lists the uverbs nodes of the RDMA devices in the network
// namespace at path, and rdma_cm's node if there are any and the core
// has it, before ctx's deadline.
func netnsNodes(ctx context.Context, path string) (nodes []chardev, err error) {
	deadline := deadlineOf(ctx)
	procDevices, err := os.ReadFile("/proc/devices")
	if err != nil {
		return nil, err
	}
	verbs := verbsMajors(procDevices)
	err = inNetns(path, func() error {
		s, err := openNldev(deadline)
		if errors.Is(err, unix.EPROTONOSUPPORT) {
			return nil // no RDMA core (ib_core not loaded): no device
		} else if err != nil {
			return err
		}
		defer s.close()
		if excl, err := s.exclusive(); err != nil {
			return err
		} else if !excl {
			return errors.New("the RDMA core is in shared netns mode (ib_core netns_mode=1): every namespace sees every device")
		}
		devs, err := s.request(cmdGet, unix.NLM_F_DUMP)
		if err != nil {
			return fmt.Errorf("RDMA_NLDEV_CMD_GET: %w", err)
		}
		for _, d := range devs {
			if len(d[attrDevIndex]) != 4 {
				continue
			}
			c, err := s.chardev(int64(binary.NativeEndian.Uint32(d[attrDevIndex])), "uverbs")
			if err != nil {
				return fmt.Errorf("%s: %w", cstr(d[attrDevName]), err)
			}
			if err := checkNode(c, verbs); err != nil {
				return fmt.Errorf("%s: %w", cstr(d[attrDevName]), err)
			}
			c.ibdev = cstr(d[attrDevName])
			nodes = append(nodes, c)
		}
		if len(nodes) == 0 {
			return nil
		}
		// rdma_cm: optional (the rdma_ucm module may be absent: the
		// core has no such client then)
		c, err := s.chardev(-1, "rdma_cm")
		if errors.Is(err, unix.EOPNOTSUPP) {
			return nil
		} else if err != nil {
			return err
		} else if err := checkNode(c, verbs); err != nil {
			return err
		}
		nodes = append(nodes, c)
		return nil
	})
	return nodes, err
}
