#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Validates the Kubernetes manifests of Documentation/k8s/ without a
# cluster: every file parses as YAML; every object's fields exist in the
# API and have the right types (scripts/manifests/validate.js, on the npm
# packages kubernetes-models and @kubernetes/client-node, which deps.sh
# installs under .cache/manifests); every CNI configuration in them passes
# the vrdma plugin's own parser (tools/cni/vrdma, built by "make"); the
# Multus annotation is a JSON list of network selections.
#
#   scripts/check-manifests.sh [FILE...]

set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
NODE_PATH=$TOP/.cache/manifests/node_modules
PLUGIN=$TOP/tools/cni/vrdma
export NODE_PATH

if [ $# -eq 0 ]; then
	set -- "$TOP"/Documentation/k8s/*.yaml
fi
if [ ! -d "$NODE_PATH/kubernetes-models" ] || [ ! -x "$PLUGIN" ]; then
	echo "check-manifests: run scripts/deps.sh and make first" >&2
	exit 1
fi

# YAML to one JSON document per line, {"file": ..., "doc": ...}
docs=$(python3 - "$@" <<'PY'
import json, sys, yaml
for f in sys.argv[1:]:
    with open(f) as fh:
        for d in yaml.safe_load_all(fh):
            if d is not None:
                print(json.dumps({"file": f.split("/")[-1], "doc": d}))
PY
) || { echo "check-manifests: YAML does not parse"; exit 1; }

status=0
node "$TOP/scripts/manifests/validate.js" <<<"$docs" || status=1

# The vrdma entries of the CNI configurations: the plugin's parser must
# accept them (an ADD without CNI_ variables then fails with code 4 only)
while IFS= read -r conf; do
	out=$(CNI_COMMAND=ADD "$PLUGIN" <<<"$conf")
	if jq -e '.code == 4' <<<"$out" >/dev/null; then
		echo "ok   vrdma configuration of $(jq -r .name <<<"$conf") parses"
	else
		echo "FAIL vrdma configuration of $(jq -r .name <<<"$conf"): $out"
		status=1
	fi
done < <(jq -c 'select(.doc.kind == "NetworkAttachmentDefinition") | .doc.spec.config |
	fromjson | . as $l | .plugins[] | select(.type == "vrdma") |
	. + {name: $l.name, cniVersion: $l.cniVersion}' <<<"$docs")

# Multus' network selection annotation: a list of objects with known keys
while IFS= read -r sel; do
	if jq -e 'type == "array" and all(.[]; type == "object" and .name and
		(keys - ["name", "namespace", "interface", "ips", "mac",
			 "cni-args", "portMappings", "bandwidth", "default-route",
			 "infiniband-guid", "ipam-claim-reference"] == []))' \
		<<<"$sel" >/dev/null 2>&1; then
		echo "ok   k8s.v1.cni.cncf.io/networks annotation"
	else
		echo "FAIL k8s.v1.cni.cncf.io/networks annotation: $sel"
		status=1
	fi
done < <(jq -c '.doc.metadata.annotations["k8s.v1.cni.cncf.io/networks"] // empty |
	fromjson' <<<"$docs")

[ "$status" = 0 ] && echo "check-manifests: $# files valid"
exit "$status"
