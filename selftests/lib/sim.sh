# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What the tests on rdmasim share (sim.sh, sim_attrs.sh, dmabuf.sh,
# sim_variants.sh): where its module and debugfs files are, its object
# counters and the report of its strict checks.  Sourced after lib.sh.

# shellcheck disable=SC2034  # used by the scripts that source this
SIM_KO=$TOP/selftests/rdmasim/rdmasim.ko
SIMDBG=/sys/kernel/debug/rdmasim

# sim_objects - rdmasim's object counters on one line, "dev=1 pd=1 ...".
sim_objects() {
	awk '{ printf "%s=%s ", $1, $2 } END { print "" }' "$SIMDBG/objects"
}

# sim_count NAME - rdmasim's counter NAME alone.
sim_count() {
	awk -v n="$1" '$1 == n { print $2 }' "$SIMDBG/objects"
}

# sim_objects_is EXPECTED - sim_objects equals EXPECTED (for wait_for).
sim_objects_is() {
	[ "$(sim_objects)" = "$1" ]
}

# strict_report MARK NAME - ok if no strict check fired since kernel log
# line MARK; otherwise not ok, with the messages (addresses masked, so
# that repeats of one check count as one line).
strict_report() {
	local fired
	fired=$(dmesg | tail -n "+$(($1 + 1))" | grep -ao 'rdmasim: strict: .*' |
		sed 's/ [0-9a-f]\{8,\}\b/ ADDR/g; s/0x[0-9a-f]*/ADDR/g' | sort | uniq -c)
	if [ -z "$fired" ]; then
		ktap_ok "$2"
	else
		ktap_fail "$2" "strict checks fired"
		ktap_diag "$fired"
	fi
}

# sim_vdev_run VAR NAME VDEV OUT PROG - PROG VDEV in a new namespace NAME
# (its name set in VAR) on a new vdevice VDEV, its output in OUT and shown;
# OUT is empty when the namespace or the vdevice could not be made.
sim_vdev_run() {
	local ns_var=$1 vdev=$3 out=$4 prog=$5
	if new_ns "$ns_var" "$2" && vdev_add "$vdev" "${!ns_var}"; then
		in_ns "${!ns_var}" "$prog" "$vdev" >"$out" 2>&1
		ktap_diag "$(cat "$out")"
	else
		: >"$out"
	fi
}

# sim_up [PROG] - vrdma's modules, rdmasim and its device sim0 on veth1, each
# undone at cleanup; PROG, the test's program, if given, is executable.
sim_up() {
	[ -z "${1:-}" ] || [ -x "$1" ] || return 1
	[ -r "$SIM_KO" ] && load_modules || return 1
	if [ ! -d /sys/module/rdmasim ]; then
		in_init insmod "$SIM_KO" || return 1
	fi
	cleanup_push rmmod rdmasim
	in_init rdma link add sim0 type rdmasim netdev veth1 || return 1
	cleanup_push rdma link del sim0
}
