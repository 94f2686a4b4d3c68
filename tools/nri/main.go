// SPDX-License-Identifier: GPL-2.0
//
// vrdma-nri: an NRI plugin (containerd 1.7+, CRI-O 1.26+) that gives every
// container the RDMA device nodes of its pod's network namespace.
//
// At CreateContainer the runtime hands over the pod sandbox, whose Linux
// namespaces name the pod's network namespace.  The plugin asks the RDMA
// core, from inside that namespace, which devices it holds (the vdevices
// the vrdma CNI plugin made there) and adds their /dev/infiniband/uverbsN
// nodes, and rdma_cm's, to the container with device-cgroup rules that
// allow them.  A pod without RDMA devices, or on the host's network, gets
// nothing.  See vrdma-nri(8).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
)

type plugin struct{}

// Where containerd and CRI-O put the pods' network namespaces
const netnsDir = "/var/run/netns"

// The node of a device, created by the runtime as root:root 0666: the
// device cgroup and the core's exclusive mode decide who opens it
func deviceOf(c chardev) *api.LinuxDevice {
	return &api.LinuxDevice{
		Path:     "/dev/infiniband/" + c.name,
		Type:     "c",
		Major:    c.major,
		Minor:    c.minor,
		FileMode: &api.OptionalFileMode{Value: 0o666},
	}
}

func netnsPath(pod *api.PodSandbox) string {
	for _, ns := range pod.GetLinux().GetNamespaces() {
		if ns.GetType() == "network" {
			return ns.GetPath()
		}
	}
	return ""
}

func (p *plugin) CreateContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) (*api.ContainerAdjustment, []*api.ContainerUpdate, error) {
	who := fmt.Sprintf("pod %s/%s container %s", pod.GetNamespace(), pod.GetName(), ctr.GetName())
	path := netnsPath(pod)
	if path == "" {
		log.Printf("%s: no network namespace of its own: no RDMA device", who)
		return nil, nil, nil
	}
	nodes, err := netnsNodes(ctx, path)
	if errors.Is(err, errHostNetns) {
		// Never the host's devices: fail closed, adding nothing
		log.Printf("%s: %s is the host's network namespace: no RDMA device", who, path)
		return nil, nil, nil
	} else if errors.Is(err, errNoNetns) {
		// Not there for the plugin: the runtime's paths are not the
		// plugin's (its mounts), or the pod is going away.  Starting
		// the container without its devices would hide the first.
		log.Printf("%s: %s: %v (is the runtime's netns directory mounted into the plugin?)", who, path, err)
		return nil, nil, fmt.Errorf("vrdma-nri: %s: %w", path, err)
	} else if err != nil {
		// Without its devices the container would run and fail later,
		// far from the cause: refuse it here, saying why
		log.Printf("%s: %s: %v", who, path, err)
		return nil, nil, fmt.Errorf("vrdma-nri: RDMA devices of %s: %w", path, err)
	}
	if len(nodes) == 0 {
		log.Printf("%s: no RDMA device in %s", who, path)
		return nil, nil, nil
	}
	adjust := &api.ContainerAdjustment{}
	var names []string
	for _, n := range nodes {
		adjust.AddDevice(deviceOf(n))
		if n.ibdev != "" {
			names = append(names, n.ibdev+"="+n.name)
		} else {
			names = append(names, n.name)
		}
	}
	log.Printf("%s: adding %s", who, strings.Join(names, " "))
	return adjust, nil, nil
}

// newStub: the NRI stub of p, whose Run returns when the runtime closes
// the connection (without WithOnClose the stub calls os.Exit(0) then)
func newStub(p interface{}, opts ...stub.Option) (stub.Stub, error) {
	return stub.New(p, append(opts, stub.WithOnClose(func() {}))...)
}

func main() {
	name := flag.String("name", "vrdma", "plugin name to register with")
	idx := flag.String("idx", "50", "plugin index to register with")
	socket := flag.String("socket", "", "NRI socket (default: the runtime's, /var/run/nri/nri.sock)")
	once := flag.Bool("once", false, "exit when the runtime closes the connection instead of reconnecting")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("vrdma-nri: ")

	opts := []stub.Option{stub.WithPluginName(*name), stub.WithPluginIdx(*idx)}
	if *socket != "" {
		opts = append(opts, stub.WithSocketPath(*socket))
	}
	// The runtimes put the pods' namespaces there; missing here, the
	// DaemonSet does not mount it and every pod would fail
	if st, err := os.Stat(netnsDir); err != nil || !st.IsDir() {
		log.Printf("warning: %s is not a directory here: pods' network namespaces will not be found", netnsDir)
	}
	// A runtime that restarts closes the connection: register again
	for {
		s, err := newStub(&plugin{}, opts...)
		if err != nil {
			log.Fatalf("%v", err)
		}
		err = s.Run(context.Background())
		if *once {
			log.Printf("connection to the runtime closed: %v", err)
			os.Exit(1)
		}
		log.Printf("connection to the runtime closed (%v): reconnecting in 1 s", err)
		time.Sleep(time.Second)
	}
}
