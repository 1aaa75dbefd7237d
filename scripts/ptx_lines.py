"""Repairs the inlined line info of nvcc's PTX before ptxas reads it
(used by scripts/sass_table.py).

Why: with -lineinfo, nvcc writes a location inside an inlined function as
    .loc 4 49 5, function_name $L__info_string5, inlined_at 3 80 91
and writes the chain above it (where 3:80:91 itself was inlined) only the
first time that call site occurs in the function. ptxas, reading
`inlined_at 3 80 91`, takes the LAST chain written for 3:80:91. Every lesson
access goes through the same accessor lines (lessons/access.hpp), so a load
of line 43 is reported at line 39 whenever line 39's access was written
last: in matmul.tiled_square's inner loop every LDS was reported on the
tile-loading line. (Nsight Compute's source view shows the same.)

The repair: for each location whose chain nvcc did not repeat, choose among
the chains already written for that call site the one whose accessor works
on the instruction's state space (an `ld.shared` comes from an ElemRef of
Space::Shared, not of Space::Global), the latest of those; then write every
location with its whole chain, so that ptxas cannot pick a stale one. The
code ptxas makes does not depend on .loc lines: sass_table.py checks that the
SASS is the same, instruction for instruction, as nvcc's own.
"""
import os
import re
import subprocess

LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)"
                 r"(?:\s*,\s*function_name\s+(\$L__info_string\d+)\s*,\s*inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?")
BODY_START = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\b")
INFO_LABEL = re.compile(r"^(\$L__info_string\d+):")
MEMORY = re.compile(r"^\s*(?:@%!?p\d+\s+)?(?:ld|st|atom|red|cp\.async)\.(?:[a-z0-9]+\.)*?"
                    r"(shared|global|const|local)\b")
SPACE_OF = {"global": "0", "shared": "1", "const": "2"}
ACCESSOR_SPACE = re.compile(r"\(ts::Space\)(\d)")


class Instance:
    """One inlined location as nvcc meant it: position, function, parent."""

    def __init__(self, pos, fn, parent):
        self.pos, self.fn, self.parent = pos, fn, parent

    def chain(self):
        node, out = self, []
        while node:
            out.append(node)
            node = node.parent
        return out

    def key(self):
        return tuple((n.pos, n.fn) for n in self.chain())


def info_strings(ptx_lines):
    """{label: demangled name} of the $L__info_string byte strings."""
    raw, label, data = {}, None, []
    for line in ptx_lines:
        m = INFO_LABEL.match(line)
        if m:
            label, data = m.group(1), []
            continue
        if label and line.startswith(".b8"):
            data += [int(b) for b in line[3:].split(",")]
            if data and data[-1] == 0:
                raw[label] = bytes(data[:-1]).decode("latin-1")
                label = None
    labels = sorted(raw)
    out = subprocess.run(["c++filt"], input="\n".join(raw[k] for k in labels) + "\n",
                         capture_output=True, text=True, check=True).stdout.splitlines()
    return dict(zip(labels, out))


def fits(instance, space, names):
    """No accessor in the chain works on another space than the instruction's."""
    if space is None:
        return True
    for node in instance.chain():
        m = ACCESSOR_SPACE.search(names.get(node.fn, "")) if node.fn else None
        if m and m.group(1) != space:
            return False
    return True


ADDRESS_BASE = re.compile(r"\[\s*([%$\w]+)")


def access_of(line):
    """(state space, address base) of a memory instruction, else (None, None)."""
    m = MEMORY.match(line)
    if not m:
        return None, None
    base = ADDRESS_BASE.search(line)
    return SPACE_OF.get(m.group(1)), base.group(1) if base else None


def next_instruction(lines, i):
    """The instruction a .loc group ending before line i applies to."""
    for line in lines[i:]:
        s = line.strip()
        if s and not s.startswith(".loc") and not s.endswith(":") and not s.startswith("//"):
            return line
    return ""


FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"')


def locations(ptx):
    """({PTX line number (1-based): innermost-first [(path, line)] of the location
    nvcc meant for the instruction there}, {line number: True where the chain
    was chosen among several candidates that fit})."""
    lines = ptx.splitlines()
    names = info_strings(lines)
    files = {m.group(1): m.group(2) for m in map(FILE.match, lines) if m}
    where, unsure = {}, {}
    written, group, current, context, guessed = {}, [], None, None, False
    bases = {}  # address base register -> lesson lines whose sure accesses used it
    in_body = False
    for i, line in enumerate(lines):
        if BODY_START.match(line):
            in_body, written, current, context, bases = True, {}, None, None, {}
            continue
        if in_body and line.startswith("}"):
            in_body = False
        if not in_body:
            continue
        m = LOC.match(line)
        if not m:
            if group:
                current, group = group[-1], []
                if current.parent or current.pos[1] != "0":
                    context = current  # a line-0 location's chain is not written: keep the last
            s = line.strip()
            if current and s and not s.endswith(":") and not s.startswith(("//", ".", "{", "}")):
                where[i + 1] = [(files.get(n.pos[0], "?"), int(n.pos[1])) for n in current.chain()]
                if guessed:
                    unsure[i + 1] = True
                else:
                    base = access_of(line)[1]
                    if base:
                        bases.setdefault(base, set()).add(lesson_key(current, files))
            continue
        if not group:
            guessed = False
        pos = (m.group(1), m.group(2), m.group(3))
        parent = None
        if m.group(4):
            ppos = (m.group(5), m.group(6), m.group(7))
            for node in reversed(group):  # written just now, as part of this chain
                if node.pos == ppos:
                    parent = node
                    break
            else:
                space, base = access_of(next_instruction(lines, i + 1))
                parent, several = choose(written.get(ppos, []), context, space, names, files,
                                         bases.get(base, set()))
                guessed = guessed or several
        inst = Instance(pos, m.group(4), parent)
        bucket = written.setdefault(pos, [])
        bucket[:] = [c for c in bucket if c.key() != inst.key()] + [inst]  # the latest last
        group.append(inst)
    return where, unsure


def choose(seen, current, space, names, files, lines_of_base):
    """The chain nvcc meant, among those written for a call site (`seen`, the
    latest last), for an instruction after `current`: one whose accessors work on
    the instruction's space; of those, the ones whose line's sure accesses used
    the same address register (an unrolled loop's copies do), if any; of those,
    the closest to the previous instruction's chain (the same statement before
    the same function); the latest of equals. Also whether candidates of different lesson lines were
    left to choose from."""
    fitting = [c for c in seen if fits(c, space, names)] or seen
    if not fitting:
        return None, False
    fitting = [c for c in fitting if lesson_key(c, files) in lines_of_base] or fitting
    here = {} if current is None else {n.key(): d for d, n in enumerate(current.chain())}

    def distance(c):
        for node in c.chain():
            if node.key() in here:
                return here[node.key()]
        return len(here) + 1

    best = min(distance(c) for c in fitting)
    closest = [c for c in fitting if distance(c) == best]
    return closest[-1], len({lesson_key(c, files) for c in closest}) > 1


def lesson_key(instance, files):
    """What the table records of a chain: its innermost frame in lessons/ that
    is not the accessors' (sass_table.py: source_line)."""
    for n in instance.chain():
        folder, name = os.path.split(files.get(n.pos[0], ""))
        if os.path.basename(folder) == "lessons" and name != "access.hpp":
            return (name, n.pos[1])
    return None


REGISTER = re.compile(r"%[a-z]+\d+")


def loaded_by(lines, number, space):
    """The PTX line that loaded what the instruction at line `number` uses, when
    that instruction is not itself a memory access of `space` (ptxas names a
    uniform constant load, ULDC, by the arithmetic that consumes it); else
    `number`. One step back along the registers the instruction reads."""
    text = lines[number - 1] if 0 < number <= len(lines) else ""
    m = MEMORY.match(text)
    if m and SPACE_OF.get(m.group(1)) == space:
        return number
    operands = text.split(None, 1)[1] if len(text.split(None, 1)) > 1 else ""
    sources = REGISTER.findall(operands)[1:]  # the first operand is the result
    for k in range(number - 2, max(-1, number - 400), -1):
        line = lines[k]
        if BODY_START.match(line):
            break
        d = MEMORY.match(line)
        if d and SPACE_OF.get(d.group(1)) == space:
            regs = REGISTER.findall(line)
            if regs and regs[0] in sources and line.strip().startswith("ld"):
                return k + 1
    return number
