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
#   image_get DIR       that tar of IMAGE_CMDS, its path in IMAGE_TAR: the
#                       one the VM harness made on the host before the boot
#                       if there is one, else made here, under DIR
#   image_archive DIR TAR NAME CMD...
#                       DIR as a "docker save" archive of image NAME with
#                       default command CMD, what "ctr images import" takes
#
# The layout is Debian 12's merged /usr (/bin, /lib, /lib64 and /sbin are
# links into /usr), so every path a binary or ldd names resolves inside the
# image as it does on the host.  A parent other than rxe needs its own
# provider: IMAGE_PROVIDERS names them.

# The commands of selftests/runtimes/runtimes.sh (mkdir and mknod: it makes
# the node in a docker container) and cdi_podman.sh (id: it checks who the
# container runs as), one image for both
IMAGE_CMDS=${IMAGE_CMDS:-"sh ls cat mkdir mknod sleep id ibv_devices ibv_devinfo ibv_rc_pingpong"}
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

# image_get DIR - the image as image_tar makes it, of IMAGE_CMDS and
# IMAGE_PROVIDERS: its path in IMAGE_TAR, where it was made in IMAGE_FROM.
# selftests/vm/run.sh makes it on the host before the boot
# (selftests/vm/image-prebuild.sh) and names its directory in
# VRDMA_IMAGE_PREBUILT: the guest's root is the host's, so the binaries
# are the same, and the host takes a second where the guest under TCG took
# about 50 s.  Without it (a test run by hand), or if it was made of other
# commands or providers, the image is made here, under DIR.
image_get() {
	local pre=${VRDMA_IMAGE_PREBUILT:-} recipe=
	if [ -n "$pre" ]; then
		recipe=$(cat "$pre/recipe" 2>/dev/null)
		if [ -s "$pre/image.tar" ] && [ "$recipe" = "$IMAGE_CMDS;$IMAGE_PROVIDERS" ]; then
			IMAGE_TAR=$pre/image.tar
			# shellcheck disable=SC2034  # read by the scripts
			IMAGE_FROM="made on the host before the boot in $(cat "$pre/secs" 2>/dev/null) s"
			return 0
		fi
		ktap_diag "image: $pre/image.tar holds '$recipe', not '$IMAGE_CMDS;$IMAGE_PROVIDERS': making it here"
	fi
	IMAGE_TAR=$1/image.tar
	# shellcheck disable=SC2034  # read by the scripts
	IMAGE_FROM="made here"
	image_rootfs "$1/rootfs" && image_tar "$1/rootfs" "$IMAGE_TAR"
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
