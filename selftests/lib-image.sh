# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A container image made offline, for selftests that run real container
# runtimes (there is no registry to pull from).  Sourced after lib.sh.
#
#   image_rootfs DIR    fill DIR with a minimal root file system: a shell,
#                       the few coreutils the documented commands use, the
#                       ibverbs utilities, their shared libraries (found
#                       with ldd) and the rxe provider with its .driver file
#   image_tar DIR TAR   a tar of DIR, what "podman import" and "docker
#                       import" take
#   image_archive DIR TAR NAME CMD...
#                       DIR as a "docker save" archive of image NAME with
#                       default command CMD, what "ctr images import" takes
#
# The layout is Debian 12's merged /usr (/bin, /lib, /lib64 and /sbin are
# links into /usr), so every path a binary or ldd names resolves inside the
# image as it does on the host.  A parent other than rxe needs its own
# provider: IMAGE_PROVIDERS names them.

IMAGE_CMDS=${IMAGE_CMDS:-"sh ls cat mkdir mknod sleep ibv_devices ibv_devinfo ibv_rc_pingpong"}
IMAGE_PROVIDERS=${IMAGE_PROVIDERS:-rxe}
IMAGE_LIBDIR=/usr/lib/x86_64-linux-gnu

# _image_copy ROOT PATH - copy the file PATH (following links) to the same
# place under ROOT, and if PATH is a link, a link of the same name to it.
_image_copy() {
	local root=$1 path=$2 real dir
	real=$(readlink -f "$path") || return 1
	[ -f "$real" ] || return 1
	mkdir -p "$root$(dirname "$real")" &&
		cp -L "$path" "$root$real" || return 1
	dir=$(readlink -f "$(dirname "$path")")
	if [ "$dir/$(basename "$path")" != "$real" ]; then
		mkdir -p "$root$dir" &&
			ln -sfn "$real" "$root$dir/$(basename "$path")"
	fi
}

# _image_libs FILE... - the shared libraries FILEs need, one path per line.
_image_libs() {
	local f
	for f in "$@"; do
		ldd "$f" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'
	done | sort -u
}

image_rootfs() {
	local root=$1 c p files=() prov
	mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/{dev,proc,sys,tmp,run,etc/libibverbs.d} ||
		return 1
	chmod 1777 "$root/tmp"
	ln -sfn usr/bin "$root/bin"
	ln -sfn usr/sbin "$root/sbin"
	ln -sfn usr/lib "$root/lib"
	ln -sfn usr/lib64 "$root/lib64"
	for c in $IMAGE_CMDS; do
		p=$(command -v "$c") || { ktap_diag "image: no $c"; return 1; }
		_image_copy "$root" "$p" || return 1
		files+=("$p")
	done
	for prov in $IMAGE_PROVIDERS; do
		for p in "$IMAGE_LIBDIR"/libibverbs/lib"$prov"-rdmav*.so; do
			_image_copy "$root" "$p" || return 1
			files+=("$p")
		done
		cp "/etc/libibverbs.d/$prov.driver" "$root/etc/libibverbs.d/" ||
			return 1
	done
	for p in $(_image_libs "${files[@]}"); do
		_image_copy "$root" "$p" || return 1
	done
	echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
	echo 'root:x:0:' > "$root/etc/group"
}

image_tar() {
	tar -C "$1" --numeric-owner -cf "$2" .
}

# image_archive DIR TAR NAME CMD... - DIR as an image in the archive format
# "docker save" writes (manifest.json, the config, one uncompressed layer),
# which "ctr images import" takes, named NAME (REPO:TAG) with the default
# command CMD.  For containerd without docker.
image_archive() {
	local root=$1 tar=$2 name=$3 d diff cfg
	shift 3
	d=$(mktemp -d) || return 1
	tar -C "$root" --numeric-owner -cf "$d/layer.tar" . || { rm -rf "$d"; return 1; }
	diff=$(sha256sum "$d/layer.tar" | cut -d' ' -f1)
	jq -cn --arg diff "sha256:$diff" '{architecture: "amd64", os: "linux",
		config: {Cmd: $ARGS.positional, Env: ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"]},
		rootfs: {type: "layers", diff_ids: [$diff]}}' --args "$@" >"$d/config.json" ||
		{ rm -rf "$d"; return 1; }
	cfg=$(sha256sum "$d/config.json" | cut -d' ' -f1)
	mv "$d/config.json" "$d/$cfg.json"
	jq -cn --arg c "$cfg.json" --arg n "$name" \
		'[{Config: $c, RepoTags: [$n], Layers: ["layer.tar"]}]' >"$d/manifest.json" &&
		tar -C "$d" -cf "$tar" manifest.json "$cfg.json" layer.tar
	local rc=$?
	rm -rf "$d"
	return "$rc"
}
