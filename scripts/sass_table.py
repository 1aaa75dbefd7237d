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
writes one file per lesson (its format: above lesson_text), with the hashes of the
sources that lesson's kernels are compiled from.

  scripts/sass_table.py --out-dir lessons/compiled/sm_90      (the copy kept in the tree)
  scripts/sass_table.py --out-dir build/.../sm_90 --origin build   (what CMake runs)
  scripts/sass_table.py --parse F.sass --ptx F.ptx             (print the table of a kept run)
  scripts/sass_table.py --compare-ncu SRC.sass.csv ...         (check against Nsight Compute)

Tools: --nvcc (else $NVCC, else nvcc on PATH or /usr/local/cuda/bin), --nvdisasm
(else $NVDISASM, else next to nvcc, else on PATH), cmake and c++filt on PATH.
"""
import argparse
import csv
import hashlib
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
KERNELS_CU = "engine/compiled/sass_kernels.cu"

# ---------------------------------------------------------------------------
# The sources each lesson's kernels are compiled from, and their hashes. The
# build hashes the same files (engine/compiled/embed_compiled_table.cmake) and
# engine/compiled_code.cpp compares: a lesson whose recorded hashes differ from
# its sources' has its compiled view turned off (docs/architecture.md).

# The launch and the recorders: every lesson kernel is compiled through them.
LAUNCH_FILES = ["engine/cuda/launch.cuh", "engine/cuda/recorders.cuh"]
# Includes followed: the lessons' own headers and the launch. model/ holds the
# plain types the kernels are handed (Params, ArrayInfo, Event); it was never
# part of the table's hash, so that a new parameter does not stale 53 lessons.
FOLLOWED = re.compile(r'^\s*#\s*include\s+"((?:lessons|engine/cuda)/[^"]+)"', re.M)


def file_hash(path):
    """The first 16 hex digits of the file's SHA-256, as CMake's file(SHA256) writes it."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def lesson_sources(repo, name):
    """The files lesson `name` (lessons/<name>.hpp) is compiled from, sorted: its
    header, the lessons/ headers it includes (transitively) and the launch with
    its own includes."""
    todo, seen = ["lessons/%s.hpp" % name] + LAUNCH_FILES, set()
    while todo:
        rel = todo.pop()
        path = repo / rel
        if rel in seen or not path.exists():  # not there: nvcc would not compile it
            continue
        seen.add(rel)
        todo += FOLLOWED.findall(path.read_text())
    return sorted(seen)


def sources_block(repo, name):
    """[(path, hash)] of lesson_sources."""
    return [(rel, file_hash(repo / rel)) for rel in lesson_sources(repo, name)]


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
# The table as data: one text file per lesson, lessons/compiled/sm_90/<name>.tsv
# (engine/compiled_code.hpp reads it). Tab-separated, one record a line:
#   lesson  scan.blelloch            the lesson's id
#   arch    sm_90
#   nvcc    13.0.88                  the nvcc that compiled the kernels
#   origin  tree | build             kept in the tree, or generated at build time
#   nvdisasm 13.0                    (optional) the nvdisasm that read them
#   source  lessons/scan_kit.hpp  0123456789abcdef   one per file it was made from
#   kernel  ts::lessons::scan_blelloch::Body         then its instructions:
#   02e0  63  scan_kit.hpp  global  load  4  p  LDG.E  0
# offset (hex), line, file, space, op, bytes, predicated (p) or not (-), opcode,
# block barriers before it; instructions that differ only in their offset and
# follow each other are one record, "0630,0640,0650 ..." (an unrolled loop's
# copies: the largest lesson, 15 tile widths, stays under 800 lines). '#'
# starts a comment line.

DEFAULT_DIR = "lessons/compiled/" + ARCH
PENDING = DEFAULT_DIR + "/pending.txt"
SPACES = {"Global": "global", "Shared": "shared", "Constant": "constant"}
OPS = {"Load": "load", "Store": "store", "Atomic": "atomic", "Reduce": "reduce"}
BODY_LESSON = re.compile(r"^ts::lessons::(\w+)::")


def lesson_id(name):
    """scan_blelloch -> scan.blelloch (lessons/generate_registry.cmake's rule)."""
    return name.replace("_", ".", 1)


def lesson_text(name, kernels, sources, nvcc_release, origin, nvdisasm_release=None):
    """The file of lesson `name`: kernels {body: [access]}, sources [(path, hash)]."""
    lines = [
        "# %s: the memory instructions nvcc made of the lesson's timed kernels," % lesson_id(name),
        "# launch_body<Body, PlainRec>, for %s, in program order (engine/compiled_code.hpp)." % ARCH,
        "# Generated by scripts/sass_table.py: do not edit. After editing a source below, run",
        "# scripts/sass_table.sh (needs nvcc and nvdisasm), or without them name the lesson",
        "# in %s. Instructions: offset (several: copies in a row)," % PENDING,
        "# line, file, space, op, bytes, predicated (p) or not (-), opcode, block barriers",
        "# before it.",
        "lesson\t" + lesson_id(name),
        "arch\t" + ARCH,
        "nvcc\t" + nvcc_release,
        "origin\t" + origin,
    ]
    if nvdisasm_release:
        lines.append("nvdisasm\t" + nvdisasm_release)
    lines += ["source\t%s\t%s" % s for s in sources]
    for body in sorted(kernels):
        lines.append("kernel\t" + body)
        rest = None
        for a in kernels[body]:
            this = "\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t%d" % (
                a["line"], a["file"], SPACES[a["space"]], OPS[a["op"]], a["bytes"],
                "p" if a["predicated"] else "-", a["opcode"], a["barriers"])
            if this == rest:  # the same instruction again (an unrolled copy): one record
                lines[-1] = lines[-1].replace("\t", ",%04x\t" % a["offset"], 1)
            else:
                lines.append("%04x%s" % (a["offset"], this))
            rest = this
    return "\n".join(lines) + "\n"


def by_lesson(table, names):
    """{name: {body: [access]}}: each kernel under the lesson whose namespace holds its Body."""
    out = {}
    for body, accesses in table.items():
        m = BODY_LESSON.match(body)
        if not m or m.group(1) not in names:
            print("sass_table: warning: %s is no lesson's kernel; left out" % body, file=sys.stderr)
            continue
        out.setdefault(m.group(1), {})[body] = accesses
    return out


def write_if_changed(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def write_lessons(repo, table, out_dir, origin, nvcc_release, nvdisasm_release=None):
    """One file per lesson with kernels in `table`; the names written."""
    names = lesson_list(repo)
    lessons = by_lesson(table, set(names))
    for name in names:
        if name not in lessons:
            print("sass_table: warning: no kernel of lesson %s" % name, file=sys.stderr)
            continue
        write_if_changed(Path(out_dir) / (name + ".tsv"),
                         lesson_text(name, lessons[name], sources_block(repo, name), nvcc_release,
                                     origin, nvdisasm_release))
    for old in Path(out_dir).glob("*.tsv"):  # a lesson since removed
        if old.stem not in lessons:
            old.unlink()
    return sorted(lessons)


def read_lesson(text):
    """A lesson file back as (header {key: value}, sources [(path, hash)], kernels
    {body: [access]}), the shape table_of() gives; raises ValueError on a bad line."""
    header, sources, kernels, body = {}, [], {}, None
    space_of = {v: k for k, v in SPACES.items()}
    op_of = {v: k for k, v in OPS.items()}
    for number, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        f = line.split("\t")
        if f[0] == "source" and len(f) == 3:
            sources.append((f[1], f[2]))
        elif f[0] == "kernel" and len(f) == 2:
            body = f[1]
            kernels[body] = []
        elif len(f) == 2 and f[0] in ("lesson", "arch", "nvcc", "origin", "nvdisasm"):
            header[f[0]] = f[1]
        elif len(f) == 9 and body is not None:
            for offset in f[0].split(","):
                kernels[body].append({
                    "offset": int(offset, 16), "line": int(f[1]), "file": f[2],
                    "space": space_of[f[3]], "op": op_of[f[4]], "bytes": int(f[5]),
                    "predicated": f[6] == "p", "opcode": f[7], "barriers": int(f[8])})
        else:
            raise ValueError("line %d: %r is no record of a lesson file" % (number, line))
    return header, sources, kernels


def pending_lessons(repo):
    """The ids named in the pending list (lessons waiting to be remade)."""
    path = repo / PENDING
    if not path.exists():
        return []
    return [w.strip() for w in path.read_text().splitlines() if w.strip() and not w.startswith("#")]


def drop_pending(repo, written):
    """Takes the lessons just remade off the pending list (their tables are current now)."""
    path = repo / PENDING
    if not path.exists():
        return
    done = {lesson_id(n) for n in written}
    kept = [line for line in path.read_text().splitlines() if line.strip() not in done]
    write_if_changed(path, "\n".join(kept) + "\n")


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


def restamp(repo, out_dir, names):
    """Records the current hashes of the sources of the lessons `names` (all
    when empty) without compiling: for a change that cannot alter their timed
    kernels (a comment, a recorder or accessor the timed kernels do not use).
    The kernels are kept as they are; the commit must say why they still hold."""
    done = []
    for path in sorted(Path(out_dir).glob("*.tsv")):
        if names and path.stem not in names and lesson_id(path.stem) not in names:
            continue
        header, _, kernels = read_lesson(path.read_text())
        write_if_changed(path, lesson_text(path.stem, kernels, sources_block(repo, path.stem),
                                           header.get("nvcc", "?"), header.get("origin", "?"),
                                           header.get("nvdisasm")))
        done.append(path.stem)
    print("sass_table: restamped %d lessons in %s" % (len(done), out_dir))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--restamp", nargs="*", metavar="LESSON",
                    help="record the sources' current hashes in the tree's files (these lessons, "
                         "or all) without compiling: only for a change that cannot alter the "
                         "timed kernels, said in the commit")
    ap.add_argument("--out-dir", metavar="DIR",
                    help="write one file per lesson here (the tree's: %s)" % DEFAULT_DIR)
    ap.add_argument("--origin", choices=["tree", "build"], default="tree",
                    help="what compiled_code_origin() says: the copy kept in the tree (default; "
                         "also takes the lessons written off %s), or generated at build time"
                         % PENDING)
    ap.add_argument("--stamp", help="touch this file when done (the build's output)")
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
    if args.restamp is not None:
        restamp(REPO, Path(args.out_dir or REPO / DEFAULT_DIR), set(args.restamp))
        return

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
    if not args.out_dir:
        for body in sorted(table):
            print(body)
            for a in table[body]:
                print("  %04x %-26s %-8s %-6s %2d  %s:%d  after %d barriers" % (
                    a["offset"], ("@P " if a["predicated"] else "") + a["opcode"], a["space"],
                    a["op"], a["bytes"], a["file"], a["line"], a["barriers"]))
        return
    full = tool_version(nvcc)[1] if nvcc else "?"
    written = write_lessons(REPO, table, args.out_dir, args.origin, full,
                            tool_version(nvdisasm)[0] if nvdisasm else None)
    if args.origin == "tree":
        drop_pending(REPO, written)
    if args.stamp:
        Path(args.stamp).touch()
    print("sass_table: %d kernels of %d lessons, %d memory instructions -> %s" % (
        len(table), len(written), sum(len(v) for v in table.values()), args.out_dir))


def main_or_fallback():
    """main(); with --fallback DIR (the build's way), a failure copies the lesson
    files of DIR, the table kept in the tree, to --out-dir and says why, instead
    of failing the build."""
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
        out = Path(sys.argv[sys.argv.index("--out-dir") + 1])
        print("sass_table: warning: could not read the lessons' SASS (%s); the build uses the "
              "copy kept in the tree, %s" % (e, fallback), file=sys.stderr)
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob("*.tsv"):
            old.unlink()
        for f in Path(fallback).glob("*.tsv"):
            shutil.copyfile(f, out / f.name)
        if "--stamp" in sys.argv:
            Path(sys.argv[sys.argv.index("--stamp") + 1]).touch()


if __name__ == "__main__":
    main_or_fallback()
