#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel feature probes for vrdma (the approach of SCST's conftest and
# MLNX_OFED's compat): each probe is a small C file compiled by the target
# kernel's own kbuild, with -Werror, so that a changed prototype fails the
# probe instead of compiling with a warning.  The result is a header of
# VRDMA_HAVE_* macros that kmod/compat.h, and only it, interprets.
#
#   scripts/conftest.sh KDIR KERNELRELEASE OUTDIR
#
# writes OUTDIR/vrdma_config.h (kmod/Kbuild runs it, once per kernel
# release: OUTDIR is build/compat/KERNELRELEASE).  Prototypes of symbols that
# ib_core exports but declares only in its private headers are checked
# against the BTF of the target's ib_core.ko (scripts/btf-proto.sh); a
# feature vrdma cannot work without ends the build with one line that names
# it, and writes no header.

set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 KDIR KERNELRELEASE OUTDIR" >&2; exit 2; }
KDIR=$1
KREL=$2
OUT=$3
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() {
	echo "vrdma: kernel $KREL: $*" >&2
	exit 1
}

mkdir -p "$OUT"
WORK=$(mktemp -d "$OUT/probe.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# name|includes|body (a function body, or file-scope code after "@")
PROBES=(
# 6.2: genl pre_doit/post_doit take the split ops
"GENL_SPLIT_OPS|net/genetlink.h|@static int f(const struct genl_split_ops *o, struct sk_buff *s, struct genl_info *i) { return 0; }
struct genl_family fam = { .pre_doit = f };"
# 6.3: bus uevent callbacks take a const device (rdmasim's pci variant)
"BUS_UEVENT_CONST|linux/device.h|@static int f(const struct device *d, struct kobj_uevent_env *e) { return 0; }
struct bus_type b = { .uevent = f };"
# 6.11: create_cq gets the whole attribute bundle
"CREATE_CQ_ATTRS|rdma/ib_verbs.h|@static int f(struct ib_cq *cq, const struct ib_cq_init_attr *a, struct uverbs_attr_bundle *b) { return 0; }
struct ib_device_ops o = { .create_cq = f };"
# 6.11: reg_user_mr_dmabuf gets the whole attribute bundle
"REG_DMABUF_MR_ATTRS|rdma/ib_verbs.h|@static struct ib_mr *f(struct ib_pd *pd, u64 o, u64 l, u64 v, int fd, int a, struct uverbs_attr_bundle *b) { return NULL; }
struct ib_device_ops o = { .reg_user_mr_dmabuf = f };"
# 6.12: refcounted ib_device_get_netdev()
"IB_DEVICE_GET_NETDEV|rdma/ib_verbs.h|struct net_device *(*p)(struct ib_device *, u32) = ib_device_get_netdev; (void)p;"
# 6.13: MODULE_IMPORT_NS() takes a string, not a bare token (simbuf.ko)
"IMPORT_NS_TOKEN|linux/module.h|@MODULE_IMPORT_NS(VRDMA_PROBE_NS);"
# 6.17: net-aware device allocation
"IB_ALLOC_DEVICE_WITH_NET|rdma/ib_verbs.h|(void)_ib_alloc_device(sizeof(struct ib_device), &init_net);"
# 6.17: reg_user_mr_dmabuf takes a DMA handle too, before the bundle
"REG_DMABUF_MR_DMAH|rdma/ib_verbs.h|@static struct ib_mr *f(struct ib_pd *pd, u64 o, u64 l, u64 v, int fd, int a, struct ib_dmah *d, struct uverbs_attr_bundle *b) { return NULL; }
struct ib_device_ops o = { .reg_user_mr_dmabuf = f };"
# 6.17: reg_user_mr takes a DMA handle
"REG_USER_MR_DMAH|rdma/ib_verbs.h|@static struct ib_mr *f(struct ib_pd *pd, u64 s, u64 l, u64 v, int a, struct ib_dmah *d, struct ib_udata *u) { return NULL; }
struct ib_device_ops o = { .reg_user_mr = f };"
# 7.1: user CQs have ops of their own
"CREATE_USER_CQ|rdma/ib_verbs.h|struct ib_device_ops o; (void)sizeof(o.create_user_cq);"
"RESIZE_USER_CQ|rdma/ib_verbs.h|struct ib_device_ops o; (void)sizeof(o.resize_user_cq);"
# 7.1: udata validation helpers
"COPY_VALIDATE_UDATA|rdma/ib_verbs.h|(void)sizeof(&ib_copy_validate_udata_in);"
# 7.2: ib_umem_get() became ib_umem_get_va() (rdmasim's MRs)
"IB_UMEM_GET_VA|rdma/ib_umem.h|(void)ib_umem_get_va(NULL, 0, 0, 0);"
# 7.2: the bundle knows its method
"BUNDLE_METHOD_ELM|rdma/uverbs_ioctl.h|struct uverbs_attr_bundle b; (void)sizeof(b.method_elm);"
# The CQ buffer as ioctl attributes (efa's external CQ memory)
"CQ_BUFFER_ATTRS|rdma/ib_user_ioctl_cmds.h|@int vrdma_probe_ids[] = { UVERBS_ATTR_CREATE_CQ_BUFFER_VA, UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH,
	UVERBS_ATTR_CREATE_CQ_BUFFER_FD, UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET };"
# 7.2: CQ, QP and SRQ buffers as UMEM attributes, pinned from the bundle
"UVERBS_BUF_UMEM|rdma/ib_umem.h|@#include <rdma/ib_user_ioctl_cmds.h>
void *vrdma_probe_fn = ib_umem_get_cq_buf;
int vrdma_probe_umem_ids[] = { UVERBS_ATTR_CREATE_CQ_BUF_UMEM, UVERBS_ATTR_CREATE_QP_BUF_UMEM,
	UVERBS_ATTR_CREATE_QP_RQ_BUF_UMEM, UVERBS_ATTR_CREATE_QP_SQ_BUF_UMEM,
	UVERBS_ATTR_CREATE_SRQ_BUF_UMEM };"
# After 6.1: mlx5's UAR index attribute on CQ create (fwd_mlx5.c)
"MLX5_CQ_UAR_INDEX|rdma/mlx5_user_ioctl_cmds.h|@int vrdma_probe_ids[] = { MLX5_IB_ATTR_CREATE_CQ_UAR_INDEX };"
# After 6.1: mlx5's access flags attribute on DMA-BUF MR registration
"MLX5_DMABUF_MR_FLAGS|rdma/mlx5_user_ioctl_cmds.h|@int vrdma_probe_ids[] = { MLX5_IB_ATTR_REG_DMABUF_MR_ACCESS_FLAGS };"
# 7.2: mlx5's doorbell record as a UMEM attribute on CQ, QP and SRQ create
"MLX5_DBR_BUF_UMEM|rdma/mlx5_user_ioctl_cmds.h|@int vrdma_probe_ids[] = { MLX5_IB_ATTR_CREATE_CQ_DBR_BUF_UMEM,
	MLX5_IB_ATTR_CREATE_QP_DBR_BUF_UMEM, MLX5_IB_ATTR_CREATE_SRQ_DBR_BUF_UMEM };"
# 7.3: device attribute counts are u32
"DEVICE_ATTR_U32|rdma/ib_verbs.h|struct ib_device_attr a; BUILD_BUG_ON(!__builtin_types_compatible_p(typeof(a.max_qp_wr), u32));"
)

# kbuild_probes DIR CFLAGS - compile every DIR/*.c as a module of its own
# with CFLAGS; DIR/NAME.o exists for each that compiled (log: DIR/log).
kbuild_probes() {
	local f objs=()
	for f in "$1"/*.c; do
		f=${f##*/}
		objs+=("${f%.c}.o")
	done
	{
		echo "obj-m := ${objs[*]}"
		echo "ccflags-y := $2"
	} > "$1/Kbuild"
	# A nested kbuild: none of the calling kbuild's exported settings
	# (KBUILD_EXTMOD, MAKEFLAGS...) may leak in, or it rebuilds the caller;
	# so no jobserver either, and -j of its own: the probes are independent
	# and, one after the other, the longest step of a module build
	env -i PATH="$PATH" HOME="${HOME:-/}" \
		make -k -j"$(nproc)" -C "$KDIR" M="$1" modules > "$1/log" 2>&1 || true
}

for p in "${PROBES[@]}"; do
	IFS='|' read -r name incs body <<< "${p%%$'\n'*}"
	rest=${p#*$'\n'}
	[ "$rest" = "$p" ] && rest=
	body=${body}${rest:+$'\n'$rest}
	{
		echo "#include <linux/module.h>"
		echo "#include <$incs>"
		if [ "${body:0:1}" = @ ]; then
			echo "${body:1}"
		else
			printf 'void probe(void);\nvoid probe(void)\n{\n%s\n}\n' "$body"
		fi
		echo 'MODULE_LICENSE("GPL");'
	} > "$WORK/$name.c"
done
kbuild_probes "$WORK" "-Werror -Wno-unused-function -Wno-missing-prototypes -Wno-unused-variable"

have() {
	[ -f "$WORK/$1.o" ]
}

{
	echo "/* Generated by scripts/conftest.sh for $KREL: do not edit */"
	echo "#ifndef _VRDMA_CONFIG_H"
	echo "#define _VRDMA_CONFIG_H"
	for p in "${PROBES[@]}"; do
		name=${p%%|*}
		if have "$name"; then
			echo "#define VRDMA_HAVE_$name 1"
		else
			echo "/* #undef VRDMA_HAVE_$name */"
		fi
	done
} > "$WORK/vrdma_config.h"

# Private ib_core symbols: exported by ib_core, declared only in its
# private headers.  Each prototype vrdma knows is written here and nowhere
# else: the one the target was built with is declared in vrdma_config.h
# for kmod/compat.h, and a function with none of its known prototypes ends
# the build.  A headers package has no private headers: the BTF of its
# ib_core.ko says which (btf-proto.sh).  A full source tree (make
# check-debug's kernel, built without debug info, so without BTF) has them:
# each prototype is compiled against them (src_protos), and the answer has
# btf-proto.sh's form.  MACRO|PROTOTYPE: VRDMA_HAVE_MACRO says which
# prototype of a function that changed was found.
PRIV_PROTOS=(
# Up to 7.1 it takes the driver data, from 7.2 the attribute bundle
"IB_CREATE_QP_USER_UDATA|struct ib_qp *ib_create_qp_user(struct ib_device *, struct ib_pd *, struct ib_qp_init_attr *, struct ib_udata *, struct ib_uqp_object *, const char *)"
"IB_CREATE_QP_USER_BUNDLE|struct ib_qp *ib_create_qp_user(struct ib_device *, struct ib_pd *, struct ib_qp_init_attr *, struct uverbs_attr_bundle *, struct ib_uqp_object *, const char *)"
"|void ib_qp_usecnt_inc(struct ib_qp *)"
"|void ib_qp_usecnt_dec(struct ib_qp *)"
"|void rdma_restrack_new(struct rdma_restrack_entry *, enum rdma_restrack_type)"
"|void rdma_restrack_set_name(struct rdma_restrack_entry *, const char *)"
"|void rdma_restrack_add(struct rdma_restrack_entry *)"
"|void rdma_restrack_del(struct rdma_restrack_entry *)"
)
PRIV_DIR=$KDIR/drivers/infiniband/core

# proto_name PROTOTYPE - the function's name
proto_name() {
	local fn=${1%%(*}
	echo "${fn##*[ *]}"
}

# The functions of PRIV_PROTOS, once each
mapfile -t PRIV_FUNCS < <(for p in "${PRIV_PROTOS[@]}"; do proto_name "${p#*|}"; done | sort -u)

# src_probe NAME BODY - a probe of the private headers, for src_build
src_probe() {
	{
		echo "#include <linux/module.h>"
		echo '#include "core_priv.h"'
		echo '#include "restrack.h"'
		echo '#include "uverbs.h"'
		echo "$2"
		echo 'MODULE_LICENSE("GPL");'
	} > "$WORK/priv/$1.c"
}

# src_protos - the prototypes of PRIV_PROTOS the source tree declares
src_protos() {
	local i fn p
	mkdir -p "$WORK/priv"
	for i in "${!PRIV_PROTOS[@]}"; do
		# "RET NAME(ARGS)": NAME, and the pointer type "RET (*)(ARGS)"
		p=${PRIV_PROTOS[$i]#*|}
		fn=$(proto_name "$p")
		src_probe "proto$i" "static_assert(__builtin_types_compatible_p(typeof(&$fn), ${p/"$fn("/"(*)("}));"
	done
	# The layout of struct ib_uverbs_file (below): its offsets are the
	# sizes of two arrays, read back with nm; the types are asserted.
	src_probe ufile "char vrdma_off_device[offsetof(struct ib_uverbs_file, device) + 1];
char vrdma_off_ucontext[offsetof(struct ib_uverbs_file, ucontext) + 1];
static_assert(__builtin_types_compatible_p(typeof(((struct ib_uverbs_file *)0)->device), struct ib_uverbs_device *));
static_assert(__builtin_types_compatible_p(typeof(((struct ib_uverbs_file *)0)->ucontext), struct ib_ucontext *));"
	kbuild_probes "$WORK/priv" "-I$PRIV_DIR -Werror -Wno-missing-prototypes"
	for i in "${!PRIV_PROTOS[@]}"; do
		[ ! -f "$WORK/priv/proto$i.o" ] || echo "${PRIV_PROTOS[$i]#*|}"
	done
}

# src_layout - struct ib_uverbs_file's device and ucontext, as btf-proto.sh -s
# prints them (after src_protos built the probe)
src_layout() {
	local size sym
	[ -f "$WORK/priv/ufile.o" ] || return 1
	# "ADDRESS SIZE TYPE NAME", the sizes in hex
	while read -r _ size _ sym; do
		case $sym in
		vrdma_off_device)
			echo "device $((16#$size - 1)) struct ib_uverbs_device *" ;;
		vrdma_off_ucontext)
			echo "ucontext $((16#$size - 1)) struct ib_ucontext *" ;;
		esac
	done < <(nm -S "$WORK/priv/ufile.o")
}

if [ -r "$PRIV_DIR/core_priv.h" ] && [ -r "$PRIV_DIR/uverbs.h" ]; then
	proto=$(src_protos)
	[ -n "$proto" ] ||
		die "no prototype vrdma knows compiles against $PRIV_DIR ($WORK/priv/log)"
else
	proto=$("$HERE/btf-proto.sh" "$KDIR" "$KREL" "${PRIV_FUNCS[@]}") ||
		die "cannot check the private ib_core prototypes vrdma uses (see above)"
fi
# The prototypes found, for kmod/compat.h only (it defines
# VRDMA_PRIVATE_PROTOS): declared after its includes, outside the guard
found=
{
	echo "#endif /* _VRDMA_CONFIG_H */"
	echo
	echo "/* The private ib_core prototypes of $KREL, checked (kmod/compat.h) */"
	echo "#if defined(VRDMA_PRIVATE_PROTOS) && !defined(_VRDMA_PRIVATE_PROTOS)"
	echo "#define _VRDMA_PRIVATE_PROTOS"
	for entry in "${PRIV_PROTOS[@]}"; do
		p=${entry#*|}
		grep -qxF "$p" <<< "$proto" || continue
		echo "$p;"
		found="$found $(proto_name "$p") ${entry%%|*}"
	done
	echo "#endif"
} > "$WORK/private.h"
for fn in "${PRIV_FUNCS[@]}"; do
	[[ " $found " == *" $fn "* ]] ||
		die "private ib_core symbol changed: $fn() is '$(grep -F "$fn(" <<< "$proto" || echo missing)', not a prototype vrdma knows"
done
for entry in "${PRIV_PROTOS[@]}"; do
	macro=${entry%%|*}
	[ -z "$macro" ] || [[ " $found " != *" $macro "* ]] ||
		echo "#define VRDMA_HAVE_$macro 1" >> "$WORK/vrdma_config.h"
done

# Forwarded driver methods (kmod/fwd.c) hand the parent's handler a
# stand-in for the private struct ib_uverbs_file with the two fields
# ib_uverbs_get_ucontext() reads: their offsets and types come from the
# BTF of the target's ib_uverbs.ko, else no build.
if [ -r "$PRIV_DIR/uverbs.h" ]; then
	layout=$(src_layout) ||
		die "struct ib_uverbs_file of $PRIV_DIR/uverbs.h is not what vrdma knows"
else
	layout=$("$HERE/btf-proto.sh" -s ib_uverbs "$KDIR" "$KREL" ib_uverbs_file device ucontext) ||
		die "cannot read struct ib_uverbs_file from the BTF of ib_uverbs.ko (see above)"
fi
ufile_off() {
	awk -v f="$1" -v t="$2" '$1 == f { o = $2; $1 = $2 = ""; sub(/^ +/, ""); if ($0 == t) print o }' <<< "$layout"
}
off_dev=$(ufile_off device "struct ib_uverbs_device *")
off_ctx=$(ufile_off ucontext "struct ib_ucontext *")
if [ -z "$off_dev" ] || [ -z "$off_ctx" ]; then
	die "struct ib_uverbs_file is not what vrdma knows: $(tr '\n' ';' <<< "$layout")"
fi
{
	echo "#define VRDMA_UFILE_OFF_DEVICE $off_dev"
	echo "#define VRDMA_UFILE_OFF_UCONTEXT $off_ctx"
	echo "#define VRDMA_UFILE_SPAN $(( (off_dev > off_ctx ? off_dev : off_ctx) + 8 ))"
} >> "$WORK/vrdma_config.h"

cat "$WORK/private.h" >> "$WORK/vrdma_config.h"
mv "$WORK/vrdma_config.h" "$OUT/vrdma_config.h"
