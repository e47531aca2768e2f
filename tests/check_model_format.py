#!/usr/bin/env python3
"""check_model_format.py - docs/model-format.md names exactly the fields the
model loaders read.

The document's field tables (under "## Fields") hold one field path a row,
in backticks in the first column (`apps[].queue_wait.profile_us`).  The
loaders' fields are the string literals passed to their JSON look-up calls
(number(L, o, "key", ...), nv_jcheck_*_member, json_object_object_get_ex,
...) and those in arrays of field names (tree_fields[], keys[]).  Each
loader is compared both ways with the paths of its part of the file:
lib/model/model_load.c reads every path but the insides of `variability`
(lib/variability/ve_load.c), `alloc` (lib/alloc/alloc_model.c), and
`fabric` and `apps[].signature` (lib/model/fabric.c).  The
writer (lib/model/model_builder.c) must write only documented fields.

Usage: check_model_format.py [--doc FILE] [--root DIR]; prints one line per
difference and exits 1 when there is one, 0 otherwise.
"""
import argparse
import os
import re
import sys

LOOKUPS = {
    "number", "nums", "histogram", "latency", "nv_jcheck_member", "nv_jcheck_string_member",
    "nv_jcheck_integer_member", "nv_jcheck_number_member", "json_object_object_get",
    "json_object_object_get_ex", "nv_json_get", "nv_json_u64", "nv_json_str_copy",
    "nv_json_num_or", "profile_values", "one_word", "open_array", "app_ref", "curve_points",
    "joint_values", "tree_array", "nv_ve_from_json", "nv_alloc_from_json", "ranged",
    "class_values",
    "json_object_object_add", "put", "jcurve",
}
NAME_ARRAY = re.compile(
    r"const\s+char\s*\*\s*(?:const\s+)?\w*(?:field|key)\w*\s*\[[^\]]*\]\s*=\s*\{([^}]*)\}")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def strip_comments(src):
    out, i, n = [], 0, len(src)
    while i < n:
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src[i] in "\"'":
            q, j = src[i], i + 1
            while j < n and src[j] != q:
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        else:
            out.append(src[i])
            i += 1
    return "".join(out)


def loader_keys(src, calls=LOOKUPS):
    """string literals that are arguments of a look-up call (innermost call)"""
    s = strip_comments(src)
    keys, stack, i, n = set(), [], 0, len(s)
    name_before = re.compile(r"([A-Za-z_]\w*)\s*$")
    while i < n:
        c = s[i]
        if c in "\"'":
            j = i + 1
            while j < n and s[j] != c:
                j += 2 if s[j] == "\\" else 1
            lit = s[i + 1:j]
            if c == '"' and stack and stack[-1] in calls and IDENT.fullmatch(lit):
                keys.add(lit)
            i = j + 1
            continue
        if c == "(":
            m = name_before.search(s[max(0, i - 80):i])
            stack.append(m.group(1) if m else "")
        elif c == ")" and stack:
            stack.pop()
        elif c in ";{}":
            stack = []
        i += 1
    if calls is LOOKUPS:
        for m in NAME_ARRAY.finditer(s):
            keys.update(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', m.group(1)))
    return keys


def doc_paths(text):
    """the backticked first-column paths of the tables under ## Fields"""
    part = text.split("\n## Fields", 1)
    if len(part) < 2:
        return []
    body = re.split(r"\n## (?!#)", part[1], maxsplit=1)[0]
    paths = []
    for line in body.splitlines():
        m = re.match(r"\|\s*`([^`]+)`\s*\|", line)
        if m:
            paths.append(m.group(1))
    return paths


def split_doc(paths):
    """{loader part: set of field names}"""
    parts = {"core": set(), "variability": set(), "alloc": set(), "fabric": set()}
    for p in paths:
        comps = [c.replace("[]", "") for c in p.split(".")]
        if comps[0] in ("variability", "alloc", "fabric"):
            parts["core"].add(comps[0])
            parts[comps[0]].update(comps[1:])
        elif "signature" in comps:
            k = comps.index("signature")
            parts["core"].update(comps[:k + 1])
            parts["fabric"].update(comps[k + 1:])
        else:
            parts["core"].update(comps)
    return parts


def compare(doc_names, src_names, what, problems):
    for k in sorted(doc_names - src_names):
        problems.append(f"{what}: the document names '{k}', which the loader does not read")
    for k in sorted(src_names - doc_names):
        problems.append(f"{what}: the loader reads '{k}', which the document does not name")


def check(doc_text, sources):
    """sources: {'core': text, 'variability': text, 'alloc': text, 'fabric': text,
    'writer': text}"""
    problems = []
    paths = doc_paths(doc_text)
    if len(paths) < 50:
        problems.append(f"docs/model-format.md: only {len(paths)} field paths found in its tables")
    parts = split_doc(paths)
    files = {"core": "lib/model/model_load.c", "variability": "lib/variability/ve_load.c",
             "alloc": "lib/alloc/alloc_model.c", "fabric": "lib/model/fabric.c"}
    for part, path in files.items():
        keys = loader_keys(sources[part])
        if len(keys) < 10:
            problems.append(f"{path}: only {len(keys)} field names found; "
                            "the look-up calls changed?")
        compare(parts[part], keys, path, problems)
    written = loader_keys(sources["writer"], {"put", "jcurve"})
    for k in sorted(written - parts["core"]):
        problems.append(f"lib/model/model_builder.c: writes '{k}', which the document "
                        "does not name")
    return problems, paths


def read_sources(root):
    names = {"core": "lib/model/model_load.c", "variability": "lib/variability/ve_load.c",
             "alloc": "lib/alloc/alloc_model.c", "fabric": "lib/model/fabric.c",
             "writer": "lib/model/model_builder.c"}
    out = {}
    for k, p in names.items():
        with open(os.path.join(root, p), encoding="utf-8") as f:
            out[k] = f.read()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=".")
    ap.add_argument("--doc", default=None)
    ap.add_argument("--loader", default=None, help="read this file instead of model_load.c")
    a = ap.parse_args()
    doc = a.doc or os.path.join(a.root, "docs/model-format.md")
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    sources = read_sources(a.root)
    if a.loader:
        with open(a.loader, encoding="utf-8") as f:
            sources["core"] = f.read()
    problems, paths = check(text, sources)
    for p in problems:
        print(p)
    print(f"figure: model-format.md field paths: {len(paths)}; differences: {len(problems)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
