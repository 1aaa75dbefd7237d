#!/usr/bin/env python3
"""Converts the compiled-code table of the C++ form (engine/compiled/sm_90.cpp,
until issue 30) into the per-lesson files of scripts/sass_table.py, with no
GPU tools: every instruction, body, the nvcc release and the origin carried
over, each lesson's sources hashed as they are now. It refuses a table that
was made from other sources than the tree's (its kSourcesHash, the old hash
over every lesson, must match): the hashes it writes would then vouch for
code the table does not describe.

  git show <commit>:engine/compiled/sm_90.cpp > old.cpp
  scripts/compiled_table_from_cpp.py old.cpp [--out-dir lessons/compiled/sm_90]
"""
import argparse
import re
import sys
from pathlib import Path

import sass_table

ROW = re.compile(r'^\s*\{0x([0-9a-f]+), (\d+), "([^"]*)", Space::(\w+), SassOp::(\w+), (\d+), '
                 r'(true|false), "([^"]*)", (\d+)\},$')
ARRAY = re.compile(r"^constexpr CompiledAccess (k\d+)\[\] = \{$")
ENTRY = re.compile(r'^\s*\{"([^"]+)", "(\w+)", (k\d+|\{\})\},$')
STRING = re.compile(r'^constinit const std::string_view (k\w+) = "([^"]*)";$')


def old_sources_hash(repo):
    """The hash the C++ table recorded: FNV-1a (64 bits) over each file's path, a
    newline, its bytes and a NUL; every lessons/*.hpp in name order, then the
    launch and the recorders."""
    files = sorted(p.relative_to(repo).as_posix() for p in (repo / "lessons").glob("*.hpp"))
    h = 0xCBF29CE484222325
    for rel in files + sass_table.LAUNCH_FILES:
        for b in rel.encode() + b"\n" + (repo / rel).read_bytes() + b"\0":
            h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def parse_cpp(text):
    """({body: [access]}, {kOrigin, kNvccRelease, kSourcesHash}) of the C++ table."""
    arrays, current, strings, table = {}, None, {}, {}
    for line in text.splitlines():
        m = ARRAY.match(line)
        if m:
            current = arrays.setdefault(m.group(1), [])
            continue
        m = ROW.match(line)
        if m and current is not None:
            o, ln, f, space, op, nbytes, pred, opcode, bars = m.groups()
            current.append({"offset": int(o, 16), "line": int(ln), "file": f, "space": space,
                            "op": op, "bytes": int(nbytes), "predicated": pred == "true",
                            "opcode": opcode, "barriers": int(bars)})
            continue
        if line == "};":
            current = None
            continue
        m = ENTRY.match(line)
        if m:
            if m.group(2) != sass_table.ARCH:
                sys.exit("compiled_table_from_cpp: %s is for %s" % (m.group(1), m.group(2)))
            table[m.group(1)] = arrays[m.group(3)] if m.group(3) != "{}" else []
            continue
        m = STRING.match(line)
        if m:
            strings[m.group(1)] = m.group(2)
    return table, strings


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("cpp", help="the C++ table")
    ap.add_argument("--out-dir", default=sass_table.DEFAULT_DIR)
    args = ap.parse_args()
    repo = sass_table.REPO
    table, strings = parse_cpp(Path(args.cpp).read_text())
    if strings.get("kSourcesHash") != old_sources_hash(repo):
        sys.exit("compiled_table_from_cpp: %s was made from other sources than the tree's "
                 "(kSourcesHash %s, the tree %s)" % (args.cpp, strings.get("kSourcesHash"),
                                                     old_sources_hash(repo)))
    origin = strings["kOrigin"]
    m = re.match(r"generated at build time \(nvcc [^,]+, nvdisasm ([^)]+)\)", origin)
    written = sass_table.write_lessons(repo, table, repo / args.out_dir,
                                       "build" if m else "tree", strings["kNvccRelease"],
                                       m.group(1) if m else None)
    print("compiled_table_from_cpp: %d kernels, %d instructions -> %d lessons in %s" % (
        len(table), sum(len(v) for v in table.values()), len(written), args.out_dir))


if __name__ == "__main__":
    main()
