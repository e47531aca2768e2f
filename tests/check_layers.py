#!/usr/bin/env python3
"""check_layers.py - fails when lib/ breaks its layering.

The allowed dependencies are the Makefile's NV_DEPS_<lib> table (one source
of truth).  Checked:
  * the table itself has no cycle;
  * every #include "..." in lib/<a>/ names a header of lib/<a> or of a
    library <a> may depend on;
  * the libraries' real include graph (header level) has no cycle;
  * no file anywhere includes a .c file;
  * a schema defined once (#define NV_..._SCHEMA or _FORMAT "netvar-...")
    is spelled out nowhere else in C outside tests/ (every other file uses
    the constant, so name, version, writer and reader stay in one module);
  * SimGrid is used (an #include <simgrid/...>, a link with $(SIMGRID_LIBS)
    or -lsimgrid) only in tools/replay/, and C++ is written only there:
    netvar-replay-sim is the one program that links it;
  * libsvm is called (svm_*()) only in lib/vetrain, the one archive that
    links it (job_submit and spank must not); likewise libxgboost (XG*())
    only in lib/alloctrain, and libyaml (yaml_*(), <yaml.h>) only in
    lib/topoyaml (Slurm's topology.yaml).
Exit 0 and one summary line when all hold; otherwise one line per breach
("lib/x/f.c:12: includes lib/y/h.h, but x may not depend on y") and exit 1.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SCHEMA_DEFINE = re.compile(r'^\s*#\s*define\s+(NV_\w+_(?:SCHEMA|FORMAT))\s+"(netvar-[\w.-]+)"')
SIMGRID_USE = re.compile(r'#\s*include\s*<simgrid/|SIMGRID_LIBS\)|-lsimgrid')
SIMGRID_DIR = os.path.join("tools", "replay")
# each outside library called from one archive only: (calls, library, name)
EXTERNAL = [
    (re.compile(r'\bsvm_[a-z_]+\s*\('), "vetrain", "libsvm"),
    (re.compile(r'\bXG[A-Z]\w*\s*\('), "alloctrain", "libxgboost"),
    (re.compile(r'\byaml_[a-z_]+\s*\(|#\s*include\s*<yaml\.h>'), "topoyaml", "libyaml"),
]
TOKENS = re.compile(r'("(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\')|/\*.*?\*/|//[^\n]*', re.S)


def code_lines(text):
    """The file's lines with comments blanked (strings kept, lines kept)."""
    def keep(m):
        return m.group(1) if m.group(1) else re.sub(r"[^\n]", " ", m.group(0))
    return TOKENS.sub(keep, text).split("\n")


def read_table():
    deps, libs = {}, []
    with open(os.path.join(ROOT, "Makefile")) as f:
        for line in f:
            m = re.match(r"^NV_LIBS\s*:=\s*(.*)$", line)
            if m:
                libs = m.group(1).split()
            m = re.match(r"^NV_DEPS_(\w+)\s*:=\s*(.*)$", line)
            if m:
                deps[m.group(1)] = set(m.group(2).split())
    return libs, deps


def find_cycle(graph):
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for d in sorted(graph.get(n, ())):
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if not state.get(d):
                c = visit(d)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if not state.get(n):
            c = visit(n)
            if c:
                return c
    return None


def main():
    libs, deps = read_table()
    errors = []
    if not libs:
        print("check_layers: no NV_LIBS line in the Makefile", file=sys.stderr)
        return 1
    for lib in libs:
        if lib not in deps:
            errors.append(f"Makefile: NV_DEPS_{lib} is missing")
        elif not os.path.isdir(os.path.join(ROOT, "lib", lib)):
            errors.append(f"Makefile: lib/{lib}/ does not exist")
    for lib, ds in deps.items():
        for d in ds - set(libs):
            errors.append(f"Makefile: NV_DEPS_{lib} names {d}, which is no library")
    cyc = find_cycle(deps)
    if cyc:
        errors.append("Makefile: NV_DEPS has a cycle: " + " -> ".join(cyc))

    owner = {}  # header basename -> library
    for lib in libs:
        d = os.path.join(ROOT, "lib", lib)
        for name in os.listdir(d) if os.path.isdir(d) else ():
            if name.endswith(".h"):
                if name in owner:
                    errors.append(f"lib/{lib}/{name}: same name as lib/{owner[name]}/{name}")
                owner[name] = lib

    real = {lib: set() for lib in libs}
    nfiles = 0
    schema_defs = {}  # "netvar-x" -> (file, line, macro)
    literals = []     # (file, line, text) of C lines outside tests/
    for top, dirs, files in os.walk(ROOT):
        rel_top = os.path.relpath(top, ROOT)
        dirs[:] = [x for x in dirs if not x.startswith(".") and not x.startswith("build")]
        for name in files:
            rel0 = os.path.normpath(os.path.join(rel_top, name))
            in_tool = rel0.startswith(SIMGRID_DIR + os.sep)
            if name.endswith((".cc", ".cpp", ".cxx", ".hpp")) and not in_tool:
                errors.append(f"{rel0}: C++ outside {SIMGRID_DIR}/")
            if (name.endswith((".c", ".h", ".cc", ".cpp", ".mk")) or name == "Makefile") \
                    and not in_tool:
                with open(os.path.join(ROOT, rel0), errors="replace") as f:
                    for no, line in enumerate(f, 1):
                        if SIMGRID_USE.search(line):
                            errors.append(f"{rel0}:{no}: uses SimGrid outside {SIMGRID_DIR}/")
            if not name.endswith((".c", ".h")):
                continue
            rel = os.path.normpath(os.path.join(rel_top, name))
            parts = rel.split(os.sep)
            mylib = parts[1] if parts[0] == "lib" and len(parts) == 3 else None
            nfiles += 1
            with open(os.path.join(ROOT, rel), errors="replace") as f:
                text = f.read()
            code = code_lines(text)
            for no, line in enumerate(text.split("\n"), 1):
                d = SCHEMA_DEFINE.match(line)
                if d:
                    if d.group(2) in schema_defs:
                        first = schema_defs[d.group(2)]
                        errors.append(f"{rel}:{no}: defines \"{d.group(2)}\" again "
                                      f"(first at {first[0]}:{first[1]})")
                    else:
                        schema_defs[d.group(2)] = (rel, no, d.group(1))
                elif parts[0] != "tests" and '"netvar-' in code[no - 1]:
                    literals.append((rel, no, code[no - 1]))
                for call, owner_lib, what in EXTERNAL:
                    if call.search(code[no - 1]) and mylib != owner_lib:
                        errors.append(f"{rel}:{no}: calls {what} outside lib/{owner_lib}")
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(1)
                if inc.endswith(".c"):
                    errors.append(f"{rel}:{no}: includes a .c file ({inc})")
                    continue
                if mylib is None:
                    continue
                base = os.path.basename(inc)
                other = owner.get(base)
                if other is None or other == mylib:
                    continue
                real[mylib].add(other)
                if other not in deps.get(mylib, set()):
                    errors.append(f"{rel}:{no}: includes lib/{other}/{base}, "
                                  f"but {mylib} may not depend on {other}")
    cyc = find_cycle(real)
    if cyc:
        errors.append("lib/: include cycle between libraries: " + " -> ".join(cyc))
    for rel, no, line in literals:
        for name, (drel, dno, macro) in schema_defs.items():
            if f'"{name}"' in line:
                errors.append(f"{rel}:{no}: spells out \"{name}\"; use {macro} "
                              f"({drel}:{dno})")
    for e in errors:
        print(e)
    if errors:
        print(f"check_layers: {len(errors)} breach(es)", file=sys.stderr)
        return 1
    print(f"check_layers: {len(libs)} libraries, {nfiles} files: no include against the "
          f"direction, no cycle, no .c included; {len(schema_defs)} schemas each spelled out "
          f"once; SimGrid only in {SIMGRID_DIR}/; "
          + ", ".join(f"{what} called only in lib/{lib}" for _, lib, what in EXTERNAL))
    return 0


if __name__ == "__main__":
    sys.exit(main())
