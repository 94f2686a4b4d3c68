// SPDX-License-Identifier: GPL-2.0

package main

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/containerd/nri/pkg/adaptation"
	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
	"golang.org/x/sys/unix"
)

func podIn(path string) *api.PodSandbox {
	pod := &api.PodSandbox{Name: "p", Namespace: "ns", Linux: &api.LinuxPodSandbox{}}
	if path != "" {
		pod.Linux.Namespaces = []*api.LinuxNamespace{{Type: "network", Path: path}}
	}
	return pod
}

// What a pod without devices, or without a namespace to ask, gets
func TestCreateContainerBadInput(t *testing.T) {
	p := &plugin{}
	ctr := &api.Container{Name: "c"}
	for _, tc := range []struct {
		what, path string
		fails      bool
	}{
		{"host network (no namespace of its own)", "", false},
		{"namespace path not found", "/nonexistent/netns/cni-0", true},
		{"the host's namespace", "/proc/self/ns/net", false},
		{"not a namespace", "/dev/null", true},
	} {
		adj, upd, err := p.CreateContainer(context.Background(), podIn(tc.path), ctr)
		if adj != nil || upd != nil {
			t.Errorf("%s: adjusted the container", tc.what)
		}
		if (err != nil) != tc.fails {
			t.Errorf("%s: error %v, want failure %v", tc.what, err, tc.fails)
		}
	}
}

// The attribute parser takes what the kernel sends and stops at a bad length
func TestParseAttrs(t *testing.T) {
	var b []byte
	for _, a := range []nlattr{attrU32(attrDevIndex, 7), attrStr(attrDevName, "vr-a")} {
		hdr := make([]byte, align4(4+len(a.data)))
		binary.NativeEndian.PutUint16(hdr[0:], uint16(4+len(a.data)))
		binary.NativeEndian.PutUint16(hdr[2:], a.typ)
		copy(hdr[4:], a.data)
		b = append(b, hdr...)
	}
	bad := append(append([]byte{}, b...), 0xff, 0x00, 0x03, 0x00)
	for _, in := range [][]byte{b, bad} {
		m := parseAttrs(in)
		if len(m) != 2 || binary.NativeEndian.Uint32(m[attrDevIndex]) != 7 ||
			cstr(m[attrDevName]) != "vr-a" {
			t.Errorf("parseAttrs(% x) = %v", in, m)
		}
	}
}

// The host's namespace is refused before setns, whatever it holds
func TestHostNetns(t *testing.T) {
	for _, path := range []string{"/proc/self/ns/net", "/proc/thread-self/ns/net"} {
		nodes, err := netnsNodes(context.Background(), path)
		if !errors.Is(err, errHostNetns) || nodes != nil {
			t.Errorf("%s: %v %v, want %v", path, nodes, err, errHostNetns)
		}
	}
}

// nlmsg: one netlink message of type typ, seq and flags, with attributes
func nlmsg(typ, flags uint16, seq uint32, attrs ...nlattr) []byte {
	b := make([]byte, unix.NLMSG_HDRLEN)
	for _, a := range attrs {
		hdr := make([]byte, align4(4+len(a.data)))
		binary.NativeEndian.PutUint16(hdr[0:], uint16(4+len(a.data)))
		binary.NativeEndian.PutUint16(hdr[2:], a.typ)
		copy(hdr[4:], a.data)
		b = append(b, hdr...)
	}
	binary.NativeEndian.PutUint32(b[0:], uint32(len(b)))
	binary.NativeEndian.PutUint16(b[4:], typ)
	binary.NativeEndian.PutUint16(b[6:], flags)
	binary.NativeEndian.PutUint32(b[8:], seq)
	return b
}

// Only the kernel's answer to the request counts: a datagram from a
// process (port != 0) or a message of another sequence number is dropped
func TestDecodeSenderSeq(t *testing.T) {
	kernel := &unix.SockaddrNetlink{Family: unix.AF_NETLINK}
	forger := &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Pid: 4242}
	typ := uint16(nlNldev<<10 | cmdGetChardev)
	forged := nlmsg(typ, 0, 7, attrStr(attrChardevName, "../sda"))
	real := nlmsg(typ, 0, 7, attrStr(attrChardevName, "uverbs0"))
	other := nlmsg(typ, 0, 6, attrStr(attrChardevName, "uverbs9"))

	a := answer{seq: 7}
	for _, d := range []struct {
		b      []byte
		sender unix.Sockaddr
	}{{forged, forger}, {forged, nil}, {forged, &unix.SockaddrUnix{}}, {other, kernel}} {
		if done, err := a.decode(d.b, d.sender); done || err != nil || len(a.out) != 0 {
			t.Fatalf("took a datagram from %v: %v %v %v", d.sender, done, err, a.out)
		}
	}
	if done, err := a.decode(append(other, real...), kernel); !done || err != nil ||
		len(a.out) != 1 || cstr(a.out[0][attrChardevName]) != "uverbs0" {
		t.Fatalf("the kernel's answer: %v %v %v", done, err, a.out)
	}
}

// A dump that does not end is cut off
func TestDecodeFlood(t *testing.T) {
	kernel := &unix.SockaddrNetlink{Family: unix.AF_NETLINK}
	m := nlmsg(uint16(nlNldev<<10|cmdGet), unix.NLM_F_MULTI, 1, attrStr(attrDevName, "x"))
	a := answer{seq: 1}
	for i := 0; i <= maxAnswerMsgs; i++ {
		if _, err := a.decode(m, kernel); err != nil {
			return
		}
	}
	t.Fatalf("kept %d messages", len(a.out))
}

// The nodes a container may get: uverbsN on infiniband_verbs' majors,
// rdma_cm on misc's
func TestCheckNode(t *testing.T) {
	verbs := verbsMajors([]byte("Character devices:\n  1 mem\n 10 misc\n 21 sg\n231 infiniband_verbs\n" +
		"Block devices:\n  8 sd\n231 infiniband_verbs\n"))
	if len(verbs) != 1 || !verbs[231] {
		t.Fatalf("verbsMajors: %v", verbs)
	}
	for _, tc := range []struct {
		c  chardev
		ok bool
	}{
		{chardev{name: "uverbs0", major: 231}, true},
		{chardev{name: "uverbs12", major: 231, minor: 12}, true},
		{chardev{name: "rdma_cm", major: 10, minor: 122}, true},
		{chardev{name: "uverbs0", major: 21}, false},
		{chardev{name: "rdma_cm", major: 21}, false},
		{chardev{name: "rdma_cm", major: 231}, false},
		{chardev{name: "../sg0", major: 231}, false},
		{chardev{name: "uverbs0/../../sda", major: 231}, false},
		{chardev{name: "uverbs", major: 231}, false},
		{chardev{name: "", major: 231}, false},
	} {
		if err := checkNode(tc.c, verbs); (err == nil) != tc.ok {
			t.Errorf("checkNode(%+v) = %v, want ok %v", tc.c, err, tc.ok)
		}
	}
}

// No answer: the wait ends at the deadline, not never
func TestReceiveTimeout(t *testing.T) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		t.Skipf("netlink socket: %v", err)
	}
	s := &nldev{fd: fd, seq: 1, deadline: time.Now().Add(100 * time.Millisecond)}
	defer s.close()
	done := make(chan error, 1)
	go func() {
		_, err := s.receive()
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, errTimeout) {
			t.Errorf("receive: %v, want %v", err, errTimeout)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("receive still waits after 5 s")
	}
}

// The deadline: the runtime's less a margin, a second without one
func TestDeadlineOf(t *testing.T) {
	now := time.Now()
	if d := deadlineOf(context.Background()).Sub(now); d < defaultTimeout/2 || d > defaultTimeout+100*time.Millisecond {
		t.Errorf("no runtime deadline: %v", d)
	}
	for _, rt := range []time.Duration{500 * time.Millisecond, 5 * time.Second} {
		ctx, cancel := context.WithTimeout(context.Background(), rt)
		defer cancel()
		if d := deadlineOf(ctx).Sub(now); d < rt-deadlineMargin || d > rt-deadlineMargin+100*time.Millisecond {
			t.Errorf("runtime deadline %v: %v", rt, d)
		}
	}
}

// A plugin that says when the runtime has synchronized with it
type syncedPlugin struct {
	plugin
	synced chan struct{}
}

func (p *syncedPlugin) Synchronize(context.Context, []*api.PodSandbox, []*api.Container) ([]*api.ContainerUpdate, error) {
	p.synced <- struct{}{}
	return nil, nil
}

// The connection to the runtime goes down: Run returns (the stub does not
// exit the process), and the plugin registers again
func TestReconnect(t *testing.T) {
	dir := t.TempDir()
	sock := dir + "/nri.sock"
	r, err := adaptation.New("test", "0",
		func(ctx context.Context, cb adaptation.SyncCB) error {
			_, err := cb(ctx, nil, nil)
			return err
		},
		func(context.Context, []*adaptation.ContainerUpdate) ([]*adaptation.ContainerUpdate, error) {
			return nil, nil
		},
		adaptation.WithSocketPath(sock), adaptation.WithPluginPath(dir+"/none"),
		adaptation.WithPluginConfigPath(dir+"/none"))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	p := &syncedPlugin{synced: make(chan struct{}, 1)}
	for round := 1; round <= 2; round++ {
		var conn net.Conn
		dial := func(path string) (net.Conn, error) {
			c, err := net.Dial("unix", path)
			conn = c
			return c, err
		}
		s, err := newStub(p, stub.WithSocketPath(sock), stub.WithDialer(dial),
			stub.WithPluginName("vrdma"), stub.WithPluginIdx("50"))
		if err != nil {
			t.Fatal(err)
		}
		ran := make(chan error, 1)
		go func() { ran <- s.Run(context.Background()) }()
		select {
		case <-p.synced:
		case err := <-ran:
			t.Fatalf("round %d: Run: %v", round, err)
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: not registered after 10 s", round)
		}
		conn.Close()
		select {
		case <-ran:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: Run still runs 10 s after the connection closed", round)
		}
	}
}
