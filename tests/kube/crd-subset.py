#!/usr/bin/env python3
"""Checks that fairway's own CRD is a faithful subset of the upstream CRD of the same kind.

usage: crd-subset.py OWN.json UPSTREAM.json   (CRD objects as `kubectl get crd -o json` prints them)

Faithful means: same kind, plural, scope, version and status subresource; every property path of
the own schema exists upstream with the same type (or int-or-string-ness); the own schema's enums
allow nothing upstream forbids and it requires nothing upstream does not. Prints one line per
difference and exits 1 if there is any.
"""
import json
import sys


def schema_type(node):
    if node.get("x-kubernetes-int-or-string"):
        return "int-or-string"
    return node.get("type", "<none>")


def children(node):
    """Yields (path suffix, child schema) for properties, array items and map values."""
    for name, child in node.get("properties", {}).items():
        yield "." + name, child
    if isinstance(node.get("items"), dict):
        yield "[]", node["items"]
    if isinstance(node.get("additionalProperties"), dict):
        yield "{}", node["additionalProperties"]


def compare_node(path, own, upstream, problems):
    if schema_type(own) != schema_type(upstream):
        problems.append(f"{path}: type {schema_type(own)} here, {schema_type(upstream)} upstream")
        return
    if "enum" in own and not set(own["enum"]) <= set(upstream.get("enum", own["enum"])):
        problems.append(f"{path}: enum {own['enum']} allows values upstream {upstream['enum']} does not")
    extra_required = set(own.get("required", [])) - set(upstream.get("required", []))
    if extra_required:
        problems.append(f"{path}: requires {sorted(extra_required)}, upstream does not")
    upstream_children = dict(children(upstream))
    for suffix, child in children(own):
        if suffix not in upstream_children:
            problems.append(f"{path}{suffix}: not in the upstream schema")
        else:
            compare_node(path + suffix, child, upstream_children[suffix], problems)


def version_of(crd, name):
    for version in crd["spec"]["versions"]:
        if version["name"] == name:
            return version
    return None


def compare_crds(own, upstream):
    problems = []
    for key in ("kind", "plural", "singular"):
        if own["spec"]["names"].get(key) != upstream["spec"]["names"].get(key):
            problems.append(f"names.{key}: {own['spec']['names'].get(key)} here, "
                            f"{upstream['spec']['names'].get(key)} upstream")
    if own["spec"]["scope"] != upstream["spec"]["scope"]:
        problems.append(f"scope: {own['spec']['scope']} here, {upstream['spec']['scope']} upstream")
    for version in own["spec"]["versions"]:
        theirs = version_of(upstream, version["name"])
        if theirs is None:
            problems.append(f"version {version['name']}: not served upstream")
            continue
        has_status = "status" in version.get("subresources", {})
        if has_status != ("status" in theirs.get("subresources", {})):
            problems.append(f"version {version['name']}: status subresource differs")
        compare_node("", version["schema"]["openAPIV3Schema"], theirs["schema"]["openAPIV3Schema"],
                     problems)
    return problems


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1]) as own_file, open(argv[2]) as upstream_file:
        own, upstream = json.load(own_file), json.load(upstream_file)
    problems = compare_crds(own, upstream)
    for problem in problems:
        print(f"{own['spec']['names']['kind']}: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
