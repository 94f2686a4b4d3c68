// SPDX-License-Identifier: GPL-2.0

package main

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/containerd/nri/pkg/api"
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
		{"namespace path gone", "/nonexistent/netns/cni-0", false},
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
