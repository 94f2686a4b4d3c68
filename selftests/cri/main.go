// SPDX-License-Identifier: GPL-2.0
//
// cri: a CRI client for the selftests, calling a runtime's CRI API (runtime
// v1 over gRPC on its unix socket) the way kubelet does.  One call per
// command; IDs on stdout.
//
//	cri -s SOCK runp POD [HANDLER]          RunPodSandbox; prints the pod ID
//	cri -s SOCK podip POD-ID                the pod's IP address
//	cri -s SOCK create POD-ID POD CTR IMAGE CMD...
//	                                        CreateContainer (uid 1000, no
//	                                        capabilities); prints its ID
//	cri -s SOCK start CTR-ID                StartContainer
//	cri -s SOCK exec CTR-ID SECONDS CMD...  ExecSync; its output, its status
//	cri -s SOCK stopp POD-ID                StopPodSandbox
//	cri -s SOCK rmp POD-ID                  RemovePodSandbox
//
// POD names the sandbox: namespace "vrdma-test", UID "uid-POD", cgroup
// parent /vrdma-cri/POD (cgroupfs), its own network namespace; create
// passes the same sandbox configuration, as kubelet does.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"
)

func podConfig(name, runtimeHandler string) *cri.PodSandboxConfig {
	return &cri.PodSandboxConfig{
		Metadata: &cri.PodSandboxMetadata{Name: name, Namespace: "vrdma-test", Uid: "uid-" + name},
		Hostname: name,
		Linux: &cri.LinuxPodSandboxConfig{
			CgroupParent: "/vrdma-cri/" + name,
			SecurityContext: &cri.LinuxSandboxSecurityContext{
				NamespaceOptions: &cri.NamespaceOption{Network: cri.NamespaceMode_POD},
			},
		},
	}
}

func die(format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "cri: "+format+"\n", a...)
	os.Exit(1)
}

func main() {
	sock := flag.String("s", "/run/containerd/containerd.sock", "the runtime's CRI socket")
	flag.Parse()
	args := flag.Args()
	if len(args) < 2 {
		die("usage: cri -s SOCK COMMAND ARG...")
	}
	conn, err := grpc.Dial("unix://"+*sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		die("%v", err)
	}
	defer conn.Close()
	rt := cri.NewRuntimeServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	switch cmd := args[0]; {
	case cmd == "runp":
		handler := ""
		if len(args) > 2 {
			handler = args[2]
		}
		r, err := rt.RunPodSandbox(ctx, &cri.RunPodSandboxRequest{
			Config: podConfig(args[1], handler), RuntimeHandler: handler})
		if err != nil {
			die("RunPodSandbox %s: %v", args[1], err)
		}
		fmt.Println(r.PodSandboxId)
	case cmd == "podip":
		r, err := rt.PodSandboxStatus(ctx, &cri.PodSandboxStatusRequest{PodSandboxId: args[1]})
		if err != nil {
			die("PodSandboxStatus: %v", err)
		}
		fmt.Println(r.GetStatus().GetNetwork().GetIp())
	case cmd == "create" && len(args) >= 6:
		uid := &cri.Int64Value{Value: 1000}
		r, err := rt.CreateContainer(ctx, &cri.CreateContainerRequest{
			PodSandboxId: args[1],
			Config: &cri.ContainerConfig{
				Metadata: &cri.ContainerMetadata{Name: args[3]},
				Image:    &cri.ImageSpec{Image: args[4]},
				Command:  args[5:],
				Linux: &cri.LinuxContainerConfig{
					SecurityContext: &cri.LinuxContainerSecurityContext{
						RunAsUser:    uid,
						NoNewPrivs:   true,
						Capabilities: &cri.Capability{DropCapabilities: []string{"ALL"}},
					},
				},
			},
			SandboxConfig: podConfig(args[2], ""),
		})
		if err != nil {
			die("CreateContainer %s: %v", args[3], err)
		}
		fmt.Println(r.ContainerId)
	case cmd == "start":
		if _, err := rt.StartContainer(ctx, &cri.StartContainerRequest{ContainerId: args[1]}); err != nil {
			die("StartContainer: %v", err)
		}
	case cmd == "exec" && len(args) >= 4:
		secs, err := strconv.ParseInt(args[2], 10, 64)
		if err != nil {
			die("exec: timeout %q", args[2])
		}
		r, err := rt.ExecSync(ctx, &cri.ExecSyncRequest{ContainerId: args[1], Cmd: args[3:], Timeout: secs})
		if err != nil {
			die("ExecSync: %v", err)
		}
		os.Stdout.Write(r.Stdout)
		os.Stdout.Write(r.Stderr)
		os.Exit(int(r.ExitCode))
	case cmd == "stopp":
		if _, err := rt.StopPodSandbox(ctx, &cri.StopPodSandboxRequest{PodSandboxId: args[1]}); err != nil {
			die("StopPodSandbox: %v", err)
		}
	case cmd == "rmp":
		if _, err := rt.RemovePodSandbox(ctx, &cri.RemovePodSandboxRequest{PodSandboxId: args[1]}); err != nil {
			die("RemovePodSandbox: %v", err)
		}
	default:
		die("unknown command or missing arguments: %q", args)
	}
}
