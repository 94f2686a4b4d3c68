#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prints the prototypes of ib_core functions as the target kernel was built,
# read from the BTF of its ib_core.ko (split BTF, on top of the base BTF of
# its vmlinux), one a line, parameters without names:
#
#   scripts/btf-proto.sh KDIR KERNELRELEASE FUNC...
#   struct ib_qp *ib_create_qp_user(struct ib_device *, ..., const char *)
#
# or, with -s, the layout of a structure private to an RDMA core module
# (MODULE.ko in drivers/infiniband/core), one line per field asked for:
#
#   scripts/btf-proto.sh -s ib_uverbs KDIR KERNELRELEASE STRUCT FIELD...
#   size STRUCT 264
#   FIELD BYTE_OFFSET struct ib_ucontext *
#
# The kernel image and ib_core.ko come from the linux-image package of that
# release (/boot/vmlinuz-KREL or, from 7.x, /usr/lib/modules/KREL/vmlinuz;
# ib_core.ko possibly xz- or zstd-compressed).  Needs bpftool and python3.

set -euo pipefail

MODULE=ib_core
STRUCT_MODE=
if [ "${1:-}" = -s ]; then
	MODULE=$2
	STRUCT_MODE=1
	shift 2
fi
[ $# -ge 3 ] || { echo "usage: $0 [-s MODULE] KDIR KERNELRELEASE FUNC...|STRUCT FIELD..." >&2; exit 2; }
KDIR=$1
KREL=$2
shift 2

die() {
	echo "vrdma: btf-proto: $*" >&2
	exit 1
}

command -v bpftool >/dev/null || die "bpftool is not installed (apt-get install bpftool)"

moddir=
for d in "/lib/modules/$KREL" "/usr/lib/modules/$KREL" "$KDIR/../$KREL"; do
	[ -d "$d/kernel/drivers/infiniband/core" ] && { moddir=$d; break; }
done
[ -n "$moddir" ] || die "no ib_core.ko of $KREL installed (install linux-image-$KREL)"
image=
for f in "/boot/vmlinuz-$KREL" "$moddir/vmlinuz"; do
	[ -f "$f" ] && { image=$f; break; }
done
[ -n "$image" ] || die "no kernel image of $KREL installed (install linux-image-$KREL)"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The base BTF is in vmlinux, inside the compressed image: find the
# compressed stream by its magic and unpack it (what extract-vmlinux does)
unpack() {
	local magic=$1 off
	shift
	# head exits after the first offset, grep may then die of SIGPIPE:
	# under pipefail that must not read as "no such stream"
	off=$( { LC_ALL=C grep -aboP "$magic" "$image" || true; } | head -n 1 | cut -d: -f1)
	[ -n "$off" ] || return 1
	tail -c +"$((off + 1))" "$image" | "$@" > "$WORK/vmlinux" 2>/dev/null || true
	# not "| grep -q": readelf would die of SIGPIPE, failing the pipeline
	readelf -S "$WORK/vmlinux" > "$WORK/sections" 2>/dev/null || true
	grep -q '\.BTF' "$WORK/sections"
}
unpack '\xfd7zXZ\x00' xz -dcq || unpack '\x28\xb5\x2f\xfd' zstd -dcq ||
	unpack '\x1f\x8b\x08' gzip -dcq || die "no BTF found in $image"

ko=
for f in "$moddir/kernel/drivers/infiniband/core/$MODULE.ko"*; do
	[ -f "$f" ] && { ko=$f; break; }
done
[ -n "$ko" ] || die "no $MODULE.ko in $moddir"
case $ko in
*.xz) xz -dc "$ko" > "$WORK/mod.ko" ;;
*.zst) zstd -dcq "$ko" > "$WORK/mod.ko" ;;
*) cp "$ko" "$WORK/mod.ko" ;;
esac

bpftool -j btf dump file "$WORK/vmlinux" > "$WORK/base.json" ||
	die "bpftool cannot read the BTF of $image"
bpftool -j -B "$WORK/vmlinux" btf dump file "$WORK/mod.ko" > "$WORK/mod.json" ||
	die "bpftool cannot read the BTF of $ko"

# Render each function's FUNC_PROTO in C, normalised: "T *name(A *, B)"
python3 - "$STRUCT_MODE" "$WORK/base.json" "$WORK/mod.json" "$@" <<'PY'
import json
import sys

struct_mode = sys.argv.pop(1) == "1"

types = {}
for path in sys.argv[1:3]:
    with open(path) as f:
        for t in json.load(f)["types"]:
            types[t["id"]] = t

TAGS = {"STRUCT": "struct ", "UNION": "union ", "ENUM": "enum ",
        "ENUM64": "enum ", "FWD": "struct "}


def ty(tid):
    if tid == 0:
        return "void"
    t = types[tid]
    kind = t["kind"]
    if kind == "PTR":
        s = ty(t["type_id"])
        return s + ("*" if s.endswith("*") else " *")
    if kind in ("CONST", "VOLATILE"):
        return kind.lower() + " " + ty(t["type_id"])
    if kind == "FUNC_PROTO":
        return "fn"
    return TAGS.get(kind, "") + t["name"]


if struct_mode:
    name = sys.argv[3]
    # The module's own copy: a private struct is defined only there
    st = [t for t in types.values()
          if t["kind"] == "STRUCT" and t["name"] == name]
    if not st:
        print("size %s none" % name)
        sys.exit(0)
    st = st[-1]
    print("size %s %d" % (name, st["size"]))
    members = {m["name"]: m for m in st["members"]}
    for field in sys.argv[4:]:
        m = members.get(field)
        if m is None or m["bits_offset"] % 8:
            print("%s none" % field)
        else:
            print("%s %d %s" % (field, m["bits_offset"] // 8, ty(m["type_id"])))
    sys.exit(0)

funcs = {t["name"]: t for t in types.values() if t["kind"] == "FUNC"}
for name in sys.argv[3:]:
    fn = funcs.get(name)
    if fn is None:
        print(name + ": not in BTF")
        continue
    proto = types[fn["type_id"]]
    ret = ty(proto["ret_type_id"])
    args = ", ".join(ty(p["type_id"]) for p in proto["params"])
    print("%s%s%s(%s)" % (ret, "" if ret.endswith("*") else " ", name, args))
PY
