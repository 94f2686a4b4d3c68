// SPDX-License-Identifier: GPL-2.0

package main

// The RDMA devices of a network namespace, from the RDMA core's own
// netlink (NETLINK_RDMA, the nldev commands iproute2's "rdma" uses): a
// socket made inside the namespace sees, in the core's exclusive mode, the
// devices of that namespace and no other.  The node of each is the
// "uverbs" character device the core names for it (RDMA_NLDEV_CMD_GET_CHARDEV),
// and rdma_cm's node is the core's global "rdma_cm" character device.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"

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

// errNoNetns: the namespace's path is gone (the pod is being torn down)
var errNoNetns = errors.New("network namespace gone")

// inNetns runs fn on a thread of its own in the network namespace at path.
// The goroutine ends with its thread locked, so the Go runtime ends the
// thread too instead of reusing it, whatever namespace it was left in.
func inNetns(path string, fn func() error) error {
	target, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return errNoNetns
	} else if err != nil {
		return err
	}
	defer target.Close()

	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- fmt.Errorf("setns %s: %w", path, err)
			return
		}
		done <- fn()
	}()
	return <-done
}

// An nldev socket; the namespace it is made in is the one it sees
type nldev struct {
	fd  int
	seq uint32
}

func openNldev() (*nldev, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_RDMA)
	if err != nil {
		return nil, fmt.Errorf("RDMA netlink socket: %w", err)
	}
	return &nldev{fd: fd}, nil
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

	var out []map[uint16][]byte
	buf := make([]byte, 65536)
	for {
		n, _, err := unix.Recvfrom(s.fd, buf, 0)
		if err != nil {
			return nil, err
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			if m.Header.Seq != s.seq {
				continue
			}
			switch m.Header.Type {
			case unix.NLMSG_DONE:
				return out, nil
			case unix.NLMSG_ERROR:
				if len(m.Data) < 4 {
					return nil, errors.New("short netlink error")
				}
				if e := int32(binary.NativeEndian.Uint32(m.Data)); e != 0 {
					return nil, unix.Errno(-e)
				}
				return out, nil
			}
			out = append(out, parseAttrs(m.Data))
			if m.Header.Flags&unix.NLM_F_MULTI == 0 {
				return out, nil
			}
		}
	}
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

// netnsNodes lists the uverbs nodes of the RDMA devices in the network
// namespace at path, and rdma_cm's node if there are any and the core
// has it.
func netnsNodes(path string) (nodes []chardev, err error) {
	err = inNetns(path, func() error {
		s, err := openNldev()
		if err != nil {
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
			c.ibdev = cstr(d[attrDevName])
			nodes = append(nodes, c)
		}
		if len(nodes) == 0 {
			return nil
		}
		// rdma_cm: optional (the rdma_ucm module may be absent)
		if c, err := s.chardev(-1, "rdma_cm"); err == nil {
			nodes = append(nodes, c)
		}
		return nil
	})
	return nodes, err
}
