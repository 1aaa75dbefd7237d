#!/usr/bin/env python3
"""The compiled-code table (engine/compiled_code.hpp): what nvcc made of each
lesson's timed kernel, launch_body<Body, PlainRec>, read from its SASS.

Compiles engine/compiled/sass_kernels.cu (every Body any lesson's visit() can
pick) to PTX for sm_90 with the project's CUDA flags and line info, then with
ptxas as nvcc runs it, and disassembles the cubin with `nvdisasm -gp`: every
SASS instruction with the PTX line it came from. It keeps the memory
instructions (LDS, STS, LDG, STG, LDC/ULDC of a __constant__ array, ATOMS,
ATOMG, RED) and ties each to the lesson source line of its access: the
chain of inlined locations nvcc wrote for that PTX line (scripts/ptx_lines.py
reads it, and says why not `nvdisasm -gi`), its innermost frame in lessons/
that is not access.hpp, which is the line whose Idx the trace records. It
writes the table as C++.

  scripts/sass_table.py --out engine/compiled/sm_90.cpp       (the copy kept in the tree)
  scripts/sass_table.py --out build/.../sm_90.cpp --origin build   (what CMake runs)
  scripts/sass_table.py --parse F.sass --ptx F.ptx             (print the table of a kept run)
  scripts/sass_table.py --compare-ncu SRC.sass.csv ...         (check against Nsight Compute)

Tools: --nvcc (else $NVCC, else nvcc on PATH or /usr/local/cuda/bin), --nvdisasm
(else $NVDISASM, else next to nvcc, else on PATH), cmake and c++filt on PATH.
"""
import argparse
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import ptx_lines

REPO = Path(__file__).resolve().parent.parent
ARCH = "sm_90"
VERBOSE = False
COMMITTED = "engine/compiled/sm_90.cpp"
KERNELS_CU = "engine/compiled/sass_kernels.cu"

# ---------------------------------------------------------------------------
# The sources the table is made from, and their hash (FNV-1a, 64 bits). The
# staleness test (tests/test_compiled_code.cpp) computes the same hash.


def hashed_files(repo):
    """Every lesson header (kernels, kits, access.hpp) and the launch and recorder."""
    files = sorted(p.relative_to(repo).as_posix() for p in (repo / "lessons").glob("*.hpp"))
    return files + ["engine/cuda/launch.cuh", "engine/cuda/recorders.cuh"]


def sources_hash(repo):
    h = 0xCBF29CE484222325
    for rel in hashed_files(repo):
        for b in rel.encode() + b"\n" + (repo / rel).read_bytes() + b"\0":
            h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


# ---------------------------------------------------------------------------
# Compiling and disassembling.


def lesson_list(repo):
    text = (repo / "lessons/CMakeLists.txt").read_text()
    block = re.search(r"^set\(TS_LESSONS\n(.*?)^\)", text, re.S | re.M)
    if not block:
        sys.exit("sass_table: no set(TS_LESSONS ...) in lessons/CMakeLists.txt")
    return [w for w in block.group(1).split() if not w.startswith("#")]


def tool_version(exe):
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release (\d+\.\d+), V(\d+\.\d+\.\d+)", out)
    return (m.group(1), m.group(2)) if m else ("?", "?")


def find_tool(given, env, name, near=None):
    for cand in (given, os.environ.get(env)):
        if cand:
            return cand
    if near:
        sibling = Path(near).resolve().parent / name
        if sibling.exists():
            return str(sibling)
    found = shutil.which(name) or (
        "/usr/local/cuda/bin/" + name if Path("/usr/local/cuda/bin/" + name).exists() else None
    )
    return found


def compile_and_disassemble(repo, work, nvcc, nvdisasm, cmake):
    """(the kernels' SASS with each instruction's PTX line, nvdisasm -gp; the PTX)."""
    registry = work / "registry"
    (registry / "lessons").mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [cmake, "-DLESSONS=" + ",".join(lesson_list(repo)),
         "-DSOURCE_DIR=" + str(repo / "lessons"),
         "-DOUT_DIR=" + str(registry / "lessons"),
         "-P", str(repo / "lessons/generate_registry.cmake")], check=True)
    ptx, cubin = work / "sass_kernels.ptx", work / "sass_kernels.cubin"
    # The flags of the project's CUDA files in a Release build (CMakeLists.txt:
    # ts_options, CMAKE_CUDA_FLAGS_RELEASE), for the one architecture; then
    # ptxas as nvcc runs it (nvcc -dryrun): -arch, -m64, --generate-line-info.
    subprocess.run(
        [nvcc, "-O3", "-DNDEBUG", "-DTS_HAVE_CUDA=1", "-arch=" + ARCH, "-lineinfo",
         "--expt-relaxed-constexpr", "-std=c++20", "-diag-suppress=3013",
         "-I" + str(registry), "-I" + str(repo), "-ptx", "-o", str(ptx),
         str(repo / KERNELS_CU)], check=True)
    ptxas = str(Path(nvcc).resolve().parent / "ptxas")
    subprocess.run([ptxas, "-arch=" + ARCH, "-m64", "--generate-line-info", str(ptx),
                    "-o", str(cubin)], check=True)
    sass = subprocess.run([nvdisasm, "-gp", "-c", str(cubin)], check=True, capture_output=True,
                          text=True).stdout
    return sass, ptx.read_text()


# ---------------------------------------------------------------------------
# Reading nvdisasm -gi text.

SECTION = re.compile(r"^\s*\.section\s+\.text\.([^,\s]+)")
FRAME = re.compile(r'^\s*//## File "([^"]+)", line (\d+)')
INSTR = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(?:(@!?U?P[T0-9]+)\s+)?([A-Z][A-Z0-9_.]*)\s*(.*?)\s*;")


def parse_sass(text):
    """[(symbol, [(offset, guard, opcode, operands, frames)])], frames innermost first."""
    kernels, instrs, frames, fresh = [], None, [], False
    for line in text.splitlines():
        m = SECTION.match(line)
        if m:
            instrs = []
            kernels.append((m.group(1), instrs))
            frames, fresh = [], False
            continue
        m = FRAME.match(line)
        if m:
            if not fresh:  # a new block of line info replaces the last one
                frames, fresh = [], True
            frames.append((m.group(1), int(m.group(2))))
            continue
        m = INSTR.match(line)
        if m and instrs is not None:
            fresh = False
            instrs.append((int(m.group(1), 16), m.group(2), m.group(3), m.group(4), tuple(frames)))
    return kernels


def width(opcode):
    parts = set(opcode.split(".")[1:])
    if "128" in parts:
        return 16
    if parts & {"64", "U64", "S64", "F64"}:
        return 8
    if parts & {"U16", "S16"}:
        return 2
    if parts & {"U8", "S8"}:
        return 1
    return 4


# Opcode family -> (space, op). LDC/ULDC count only on bank 3 (the __constant__
# arrays; bank 0 holds the kernel's parameters).
FAMILIES = {
    "LDS": ("Shared", "Load"), "STS": ("Shared", "Store"), "ATOMS": ("Shared", "Atomic"),
    "LDG": ("Global", "Load"), "STG": ("Global", "Store"), "ATOMG": ("Global", "Atomic"),
    "ATOM": ("Global", "Atomic"), "REDG": ("Global", "Reduce"), "RED": ("Global", "Reduce"),
}
UNHANDLED = {"LD", "ST", "LDSM", "LDGSTS", "LDL", "STL"}


def classify(opcode, operands):
    """(space, op) of a memory instruction of a lesson array, or None."""
    family = opcode.split(".")[0]
    if "c[0x3]" in operands:  # LDC, ULDC, or a constant folded into an operand
        return ("Constant", "Load")
    if family in FAMILIES:
        return FAMILIES[family]
    if family in UNHANDLED:
        print("sass_table: warning: %s is not in the table (no rule for it)" % opcode,
              file=sys.stderr)
    return None


def source_line(frames):
    """The lesson line of an access: the innermost frame in lessons/ that is not
    access.hpp (a kit's helper is its own line, as the trace records it)."""
    for path, line in frames:
        parent, name = os.path.split(path)
        if os.path.basename(parent) == "lessons" and name != "access.hpp":
            return name, line
    return "", 0


def memory_accesses(instrs):
    out, barriers = [], 0
    for offset, guard, opcode, operands, frames in instrs:
        if opcode.startswith("BAR.") and not opcode.startswith("BAR.ARV"):
            barriers += 1  # a block barrier (BAR.SYNC, BAR.RED): BAR.ARV does not wait
            continue
        kind = classify(opcode, operands)
        if not kind:
            continue
        name, line = source_line(frames)
        out.append({"offset": offset, "line": line, "file": name, "space": kind[0],
                    "op": kind[1], "bytes": width(opcode),
                    "predicated": bool(guard) and guard not in ("@PT", "@UPT"),
                    "opcode": opcode, "barriers": barriers})
    return out


def demangle(symbols):
    out = subprocess.run(["c++filt"], input="\n".join(symbols) + "\n", capture_output=True,
                         text=True, check=True).stdout.splitlines()
    return dict(zip(symbols, out))


def body_of(demangled):
    """'void ts::(anonymous namespace)::launch_body<B, ts::PlainRec>(...)' -> 'B'."""
    m = re.search(r"launch_body<(.*), ts::PlainRec>\(", demangled)
    return m.group(1) if m else None


SPACE_NUMBER = {"Global": "0", "Shared": "1", "Constant": "2"}


def with_ptx_locations(instrs, ptx_where, ptx_text_lines):
    """nvdisasm -gp names each instruction's PTX line: give it that line's chain
    (for a memory instruction, the chain of the PTX load it came from)."""
    out = []
    for offset, guard, opcode, operands, frames in instrs:
        ptx_line = frames[0][1] if frames and frames[0][0] == ".nv_debug_ptx_txt" else None
        kind = classify(opcode, operands)
        if ptx_line and kind:
            ptx_line = ptx_lines.loaded_by(ptx_text_lines, ptx_line, SPACE_NUMBER[kind[0]])
        out.append((offset, guard, opcode, operands, tuple(ptx_where.get(ptx_line, frames))))
    return out


def table_of(text, ptx=None):
    """{body: [access]} for every launch_body<Body, PlainRec> in a disassembly
    (nvdisasm -gi; or -gp with the PTX it was made from)."""
    kernels = parse_sass(text)
    names = demangle([sym for sym, _ in kernels])
    where, unsure = ptx_lines.locations(ptx) if ptx else ({}, {})
    ptx_text_lines = ptx.splitlines() if ptx else []
    table, guessed = {}, []
    for sym, instrs in kernels:
        body = body_of(names[sym])
        if not body:
            continue
        if ptx:
            unsure_at = {i[0] for i in instrs
                         if classify(i[2], i[3]) and i[4] and unsure.get(i[4][0][1])}
            instrs = with_ptx_locations(instrs, where, ptx_text_lines)
        table[body] = memory_accesses(instrs)
        if ptx:
            guessed += ["%s %04x %s -> %s:%d" % (body, a["offset"], a["opcode"], a["file"],
                                                 a["line"])
                        for a in table[body] if a["offset"] in unsure_at]
    if guessed:
        print("sass_table: %d memory instructions: nvcc's line info named several candidate "
              "lines that no rule of scripts/ptx_lines.py told apart (a guess%s)" % (
                  len(guessed), "" if VERBOSE else "; --verbose lists them"), file=sys.stderr)
        if VERBOSE:
            print("\n".join("  " + g for g in guessed), file=sys.stderr)
    return table


# ---------------------------------------------------------------------------
# Writing the table as C++.


def write_cpp(table, out, origin, sources, nvcc_release):
    lines = [
        "// Generated by scripts/sass_table.py: do not edit. Regenerate with",
        "// scripts/sass_table.sh (needs nvcc and nvdisasm).",
        "// The memory instructions of every lesson kernel launch_body<Body, PlainRec>",
        "// for %s, in program order (engine/compiled_code.hpp)." % ARCH,
        "// clang-format off",
        '#include "engine/compiled/compiled_table.hpp"',
        "",
        "namespace ts::compiled {",
        "namespace {",
    ]
    bodies = sorted(table)
    for i, body in enumerate(bodies):
        if not table[body]:
            continue
        lines.append("// %s" % body)
        lines.append("constexpr CompiledAccess k%d[] = {" % i)
        for a in table[body]:
            lines.append('    {0x%04x, %d, "%s", Space::%s, SassOp::%s, %d, %s, "%s", %d},' % (
                a["offset"], a["line"], a["file"], a["space"], a["op"], a["bytes"],
                "true" if a["predicated"] else "false", a["opcode"], a["barriers"]))
        lines.append("};")
    lines.append("}  // namespace")
    lines.append("")
    lines.append("// Sorted by body, for a binary search.")
    lines.append("constexpr CompiledKernel kKernelList[] = {")
    for i, body in enumerate(bodies):
        span = "k%d" % i if table[body] else "{}"
        lines.append('    {"%s", "%s", %s},' % (body, ARCH, span))
    lines.append("};")
    lines.append("constinit const std::span<const CompiledKernel> kKernels = kKernelList;")
    lines.append('constinit const std::string_view kOrigin = "%s";' % origin)
    lines.append('constinit const std::string_view kNvccRelease = "%s";' % nvcc_release)
    lines.append("// The hash of the sources it was made from (scripts/sass_table.py: sources_hash).")
    lines.append('constinit const std::string_view kSourcesHash = "%s";' % sources)
    lines.append("}  // namespace ts::compiled")
    text = "\n".join(lines) + "\n"
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists() or out.read_text() != text:
        out.write_text(text)


# ---------------------------------------------------------------------------
# Checking against Nsight Compute's source page (ncu --page source --csv).


def normal_text(guard, opcode, operands):
    """An instruction as both disassemblers write it: no register reuse flags, branch
    targets left out (nvdisasm names a label, Nsight Compute an address)."""
    text = " ".join(x for x in (guard, opcode, operands.replace(".reuse", "")) if x)
    text = re.sub(r"`\([^)]*\)|0x7f[0-9a-f]{10}", "TARGET", re.sub(r"\s+", " ", text))
    return text.replace(", TARGET", " TARGET").strip()


def ncu_instructions(csv_path):
    """(body, [instruction]) of one kernel's SASS as Nsight Compute listed it."""
    with open(csv_path, newline="") as f:
        rows = list(csv.reader(f))
    # ncu's demangler writes "<unnamed>" and "Body<(int)8>" where c++filt writes
    # "(anonymous namespace)" and "Body<8>".
    name = rows[0][1].replace("<unnamed>", "(anonymous namespace)").replace("(int)", "")
    body = body_of(name) or name
    src = rows[1].index("Source")
    out = []
    for r in rows[2:]:
        m = re.match(r"\s*(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)\s*(.*?)\s*;?\s*$", r[src])
        if m:
            out.append(normal_text((m.group(1) or "").strip(), m.group(2), m.group(3)))
    return body, out


def compare_ncu(text, csv_paths):
    """Checks that each kernel Nsight Compute profiled is this build's, instruction
    for instruction; the number of kernels that differ."""
    kernels = parse_sass(text)
    names = demangle([sym for sym, _ in kernels])
    ours = {body_of(names[s]): [normal_text(i[1] or "", i[2], i[3]) for i in instrs]
            for s, instrs in kernels}
    bad = 0
    for path in csv_paths:
        body, theirs = ncu_instructions(path)
        mine = ours.get(body)
        if mine is None:
            print("%s: %s not in this build's kernels" % (path, body))
            bad += 1
        elif mine == theirs:
            print("%s: %s: the same %d instructions" % (path, body, len(mine)))
        else:
            at = next((k for k, (a, b) in enumerate(zip(mine, theirs)) if a != b),
                      min(len(mine), len(theirs)))
            print("%s: %s differs at instruction %d of %d (ncu %d): %r vs %r" % (
                path, body, at, len(mine), len(theirs), mine[at:at + 1], theirs[at:at + 1]))
            bad += 1
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", help="the C++ table to write")
    ap.add_argument("--origin", choices=["tree", "build"], default="tree",
                    help="what compiled_code_origin() says: the copy kept in the tree (default), "
                         "or generated at build time")
    ap.add_argument("--parse", metavar="SASS", help="read this nvdisasm -gi text, do not compile")
    ap.add_argument("--ptx", help="with --parse of nvdisasm -gp text: the PTX it was made from")
    ap.add_argument("--compare-ncu", nargs="+", metavar="CSV",
                    help="compare each kernel's opcodes with Nsight Compute's source page")
    ap.add_argument("--keep", metavar="DIR", help="work here (the .cubin, the .sass) and keep it")
    ap.add_argument("--verbose", action="store_true",
                    help="list the instructions whose line was chosen among several")
    ap.add_argument("--nvcc")
    ap.add_argument("--nvdisasm")
    ap.add_argument("--cmake", default="cmake")
    args = ap.parse_args()
    global VERBOSE
    VERBOSE = args.verbose

    nvcc = nvdisasm = None
    if args.parse:
        text = Path(args.parse).read_text()
        ptx = Path(args.ptx).read_text() if args.ptx else None
    else:
        nvcc = find_tool(args.nvcc, "NVCC", "nvcc")
        nvdisasm = find_tool(args.nvdisasm, "NVDISASM", "nvdisasm", near=nvcc)
        if not nvcc or not nvdisasm:
            sys.exit("sass_table: needs nvcc and nvdisasm (%s missing): copy nvdisasm from the GPU "
                     "machine or install cuda-nvdisasm, then pass --nvdisasm PATH or set NVDISASM"
                     % ("nvcc" if not nvcc else "nvdisasm"))
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(args.keep) if args.keep else Path(tmp)
            work.mkdir(parents=True, exist_ok=True)
            text, ptx = compile_and_disassemble(REPO, work, nvcc, nvdisasm, args.cmake)
            if args.keep:
                (work / "sass_kernels.sass").write_text(text)

    if args.compare_ncu:
        sys.exit(1 if compare_ncu(text, args.compare_ncu) else 0)

    table = table_of(text, ptx)
    if not args.out:
        for body in sorted(table):
            print(body)
            for a in table[body]:
                print("  %04x %-26s %-8s %-6s %2d  %s:%d  after %d barriers" % (
                    a["offset"], ("@P " if a["predicated"] else "") + a["opcode"], a["space"],
                    a["op"], a["bytes"], a["file"], a["line"], a["barriers"]))
        return
    release, full = tool_version(nvcc) if nvcc else ("?", "?")
    if args.origin == "build":
        origin = "generated at build time (nvcc %s, nvdisasm %s)" % (
            release, tool_version(nvdisasm)[0])
    else:
        origin = "the copy kept in the tree (%s, nvcc %s)" % (COMMITTED, release)
    write_cpp(table, args.out, origin, sources_hash(REPO), full)
    print("sass_table: %d kernels, %d memory instructions -> %s" % (
        len(table), sum(len(v) for v in table.values()), args.out))


def main_or_fallback():
    """main(); with --fallback FILE (the build's way), a failure copies FILE, the
    table kept in the tree, to --out and says why, instead of failing the build."""
    fallback = None
    if "--fallback" in sys.argv:
        at = sys.argv.index("--fallback")
        fallback = sys.argv[at + 1]
        del sys.argv[at:at + 2]
    try:
        main()
    except (Exception, SystemExit) as e:  # noqa: BLE001 - any failure falls back
        if fallback is None or (isinstance(e, SystemExit) and not e.code):
            raise
        out = sys.argv[sys.argv.index("--out") + 1]
        print("sass_table: warning: could not read the lessons' SASS (%s); the build uses the "
              "copy kept in the tree, %s" % (e, fallback), file=sys.stderr)
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(fallback, out)


if __name__ == "__main__":
    main_or_fallback()
