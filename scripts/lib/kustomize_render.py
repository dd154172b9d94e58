#!/usr/bin/env python3
"""Renders a kustomization as `kubectl kustomize DIR` would, for exactly the features the
manifests under deploy/kubernetes use, so that scripts/test can validate them without the
kustomize binary (none is packaged for Debian 12 or PyPI). scripts/lib/kubernetes_checks.py
compares its output with `kubectl kustomize` when kubectl is installed.

Supported kustomization fields: apiVersion, kind, resources (YAML files, or folders holding a
kustomization.yaml), namespace, images (name, newName, newTag, digest) and patches given by
`path` (strategic merge of whole named objects: maps merge, the lists containers,
initContainers, env, volumes and volumeMounts merge by name, items new to a list first, as
kustomize puts them; every other list is replaced), configMapGenerator from files (with
generatorOptions disableNameSuffixHash: true, and labels).
Anything else fails loudly rather than render something kustomize would not.

    python3 scripts/lib/kustomize_render.py DIR > rendered.yaml
"""
import copy
import os
import sys

import yaml

SUPPORTED = {"apiVersion", "kind", "resources", "namespace", "images", "patches", "configMapGenerator",
             "generatorOptions"}
MERGE_BY_NAME = {"containers", "initContainers", "ephemeralContainers", "env", "volumes", "volumeMounts"}
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "PersistentVolume", "StorageClass",
                  "CustomResourceDefinition", "PriorityClass"}


class RenderError(Exception):
    pass


def key(obj):
    meta = obj.get("metadata") or {}
    return (obj.get("kind"), meta.get("name"))


def load_documents(path):
    with open(path, encoding="utf-8") as handle:
        return [doc for doc in yaml.safe_load_all(handle) if doc is not None]


def merge(base, patch, field=None):
    """Strategic merge of `patch` into `base` (both already copies)."""
    if isinstance(base, dict) and isinstance(patch, dict):
        for name, value in patch.items():
            if isinstance(name, str) and name.startswith("$"):
                raise RenderError(f"patch directive {name} is not supported")
            if value is None:
                base.pop(name, None)
            elif name in base:
                base[name] = merge(base[name], value, name)
            else:
                base[name] = copy.deepcopy(value)
        return base
    if isinstance(base, list) and isinstance(patch, list) and field in MERGE_BY_NAME:
        # As kustomize: items of the patch not in the base come first, in the patch's order.
        result, added = list(base), []
        for item in patch:
            if not isinstance(item, dict) or "name" not in item:
                raise RenderError(f"an item of {field} without a name")
            for index, existing in enumerate(result):
                if isinstance(existing, dict) and existing.get("name") == item["name"]:
                    result[index] = merge(existing, copy.deepcopy(item), None)
                    break
            else:
                added.append(copy.deepcopy(item))
        return added + result
    return copy.deepcopy(patch)


def set_image(container, images):
    image = container.get("image")
    if not image:
        return
    name, tag, digest = image, None, None
    if "@" in name:
        name, digest = name.split("@", 1)
    if ":" in name.rsplit("/", 1)[-1]:
        name, tag = name.rsplit(":", 1)
    for rule in images:
        if rule["name"] != name:
            continue
        new_name = rule.get("newName", name)
        if "digest" in rule:
            container["image"] = f"{new_name}@{rule['digest']}"
        elif "newTag" in rule:
            container["image"] = f"{new_name}:{rule['newTag']}"
        elif digest:
            container["image"] = f"{new_name}@{digest}"
        elif tag:
            container["image"] = f"{new_name}:{tag}"
        else:
            container["image"] = new_name


def pod_spec(obj):
    spec = obj.get("spec") or {}
    if obj.get("kind") == "Pod":
        return spec
    if obj.get("kind") == "CronJob":
        spec = ((spec.get("jobTemplate") or {}).get("spec")) or {}
    return ((spec.get("template") or {}).get("spec")) or None


def generated_config_maps(directory, path, kustomization):
    """ConfigMaps of configMapGenerator entries made from files, without the name's hash suffix."""
    options = kustomization.get("generatorOptions") or {}
    generators = kustomization.get("configMapGenerator", [])
    if generators and (options.get("disableNameSuffixHash") is not True or set(options) - {"disableNameSuffixHash", "labels"}):
        raise RenderError(f"{path}: configMapGenerator needs generatorOptions.disableNameSuffixHash: true "
                          "(and no other option but labels)")
    found = []
    for generator in generators:
        if set(generator) - {"name", "files"}:
            raise RenderError(f"{path}: configMapGenerator {generator.get('name')}: only name and files are supported")
        data = {}
        for entry in generator["files"]:
            name, _, file = entry.rpartition("=") if "=" in entry else (os.path.basename(entry), "", entry)
            with open(os.path.join(directory, file), encoding="utf-8") as handle:
                data[name] = handle.read()
        metadata = {"name": generator["name"]}
        if options.get("labels"):
            metadata["labels"] = dict(options["labels"])
        found.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data})
    return found


def render(directory):
    path = os.path.join(directory, "kustomization.yaml")
    if not os.path.exists(path):
        raise RenderError(f"{directory}: no kustomization.yaml")
    with open(path, encoding="utf-8") as handle:
        kustomization = yaml.safe_load(handle) or {}
    unknown = set(kustomization) - SUPPORTED
    if unknown:
        raise RenderError(f"{path}: unsupported fields {sorted(unknown)}")

    objects = []
    for resource in kustomization.get("resources", []):
        target = os.path.normpath(os.path.join(directory, resource))
        if os.path.isdir(target):
            found = render(target)
        else:
            found = load_documents(target)
        for obj in found:
            if any(key(obj) == key(other) for other in objects):
                raise RenderError(f"{target}: {key(obj)} defined twice")
            objects.append(obj)

    objects += generated_config_maps(directory, path, kustomization)

    for patch_entry in kustomization.get("patches", []):
        if set(patch_entry) != {"path"}:
            raise RenderError(f"{path}: only patches given by path are supported")
        for patch in load_documents(os.path.join(directory, patch_entry["path"])):
            matches = [index for index, obj in enumerate(objects) if key(obj) == key(patch)]
            if len(matches) != 1:
                raise RenderError(f"{patch_entry['path']}: patch of {key(patch)} matches {len(matches)} objects")
            objects[matches[0]] = merge(copy.deepcopy(objects[matches[0]]), patch)

    namespace = kustomization.get("namespace")
    if namespace:
        for obj in objects:
            if obj.get("kind") not in CLUSTER_SCOPED:
                obj.setdefault("metadata", {})["namespace"] = namespace

    images = kustomization.get("images", [])
    for obj in objects:
        spec = pod_spec(obj)
        if spec:
            for field in ("initContainers", "containers"):
                for container in spec.get(field, []):
                    set_image(container, images)
    return objects


def main(argv):
    if len(argv) != 2:
        print("usage: kustomize_render.py DIR", file=sys.stderr)
        return 2
    try:
        objects = render(argv[1])
    except (RenderError, OSError, yaml.YAMLError) as error:
        print(f"kustomize_render: {error}", file=sys.stderr)
        return 1
    yaml.safe_dump_all(objects, sys.stdout, sort_keys=False, default_flow_style=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
