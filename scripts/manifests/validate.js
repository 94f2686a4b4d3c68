// SPDX-License-Identifier: GPL-2.0
//
// Validates Kubernetes objects (JSON, one document per line on stdin)
// against the API: kubernetes-models' schemas for types and required
// fields, @kubernetes/client-node's attribute maps for fields that do not
// exist.  A NetworkAttachmentDefinition (a CRD, in neither) is checked
// against its CRD's schema by hand: spec.config, a JSON string.  Prints one
// line per object; exits 1 when any is wrong.
"use strict";

const models = {
	v1: require("kubernetes-models/v1"),
	"apps/v1": require("kubernetes-models/apps/v1"),
};
const k8s = require("@kubernetes/client-node");

// Every field of OBJ must be an attribute of TYPE (a client-node model
// name such as "V1Pod"), recursively.
function unknownFields(obj, type, path, out) {
	if (obj === null || obj === undefined)
		return;
	let m = /^Array<(.*)>$/.exec(type);
	if (m) {
		if (!Array.isArray(obj)) {
			out.push(`${path}: not a list`);
			return;
		}
		obj.forEach((v, i) => unknownFields(v, m[1], `${path}[${i}]`, out));
		return;
	}
	if (/^\{ \[key: string\]: /.test(type) || !k8s[type] ||
	    typeof k8s[type].getAttributeTypeMap !== "function")
		return;		// a map, a scalar, or a free-form type
	const attrs = k8s[type].getAttributeTypeMap();
	for (const key of Object.keys(obj)) {
		const a = attrs.find((x) => x.baseName === key);
		if (!a)
			out.push(`${path}.${key}: no such field in ${type}`);
		else
			unknownFields(obj[key], a.type, `${path}.${key}`, out);
	}
}

function checkNad(o, out) {
	const allowedTop = ["apiVersion", "kind", "metadata", "spec"];
	for (const k of Object.keys(o))
		if (!allowedTop.includes(k))
			out.push(`.${k}: no such field`);
	for (const k of Object.keys(o.spec || {}))
		if (k !== "config")
			out.push(`.spec.${k}: no such field (only config)`);
	if (typeof (o.spec || {}).config !== "string") {
		out.push(".spec.config: must be a string");
		return;
	}
	try {
		JSON.parse(o.spec.config);
	} catch (e) {
		out.push(`.spec.config: not JSON: ${e.message}`);
	}
	unknownFields(o.metadata, "V1ObjectMeta", ".metadata", out);
}

let failed = 0;
const lines = require("fs").readFileSync(0, "utf8").split("\n").filter((l) => l);
for (const line of lines) {
	const { file, doc } = JSON.parse(line);
	const what = `${file}: ${doc.kind} ${doc.metadata && doc.metadata.name}`;
	const out = [];
	if (doc.apiVersion === "k8s.cni.cncf.io/v1" &&
	    doc.kind === "NetworkAttachmentDefinition") {
		checkNad(doc, out);
	} else {
		const group = models[doc.apiVersion];
		const Model = group && group[doc.kind];
		if (!Model) {
			out.push(`unknown apiVersion/kind ${doc.apiVersion} ${doc.kind}`);
		} else {
			try {
				new Model(doc).validate();
			} catch (e) {
				out.push(e.message);
			}
			const prefix = doc.apiVersion === "v1" ? "V1" :
				"V1";	// apps/v1 models are V1DaemonSet etc.
			unknownFields(doc, prefix + doc.kind, "", out);
		}
	}
	if (out.length) {
		failed++;
		console.log(`FAIL ${what}`);
		out.forEach((l) => console.log(`     ${l}`));
	} else {
		console.log(`ok   ${what}`);
	}
}
process.exit(failed ? 1 : 0);
