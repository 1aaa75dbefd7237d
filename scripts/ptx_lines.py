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
the chains already written for that call site (Resolver.choose: the state
space of the accessors, then what the instruction's data says, the statement
it follows, the access it is an unrolled copy of, the branch it is on; a
guess, reported, where none of those decides). Each PTX instruction gets its
whole chain; sass_table.py reads it for each SASS instruction through the PTX
line nvdisasm -gp names.
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


FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"')
INSTRUCTION = re.compile(r"^\s*(@!?%p\d+\s+)?([a-z][\w.]*)\s*(.*?)\s*;")
REGISTER = re.compile(r"%[a-z]+\d+")
LABEL = re.compile(r"^\s*(\$L__\w+):")
STRUCTURE = ("//", ".", "{", "}")  # a PTX line that is no instruction starts so


def split_operands(text):
    """`[%r8+4], {%f1, %f2}` -> ['[%r8+4]', '{%f1, %f2}']: commas outside [] and {}."""
    out, depth, word = [], 0, ""
    for ch in text:
        depth += ch in "[{"
        depth -= ch in "]}"
        if ch == "," and depth == 0:
            out.append(word.strip())
            word = ""
        else:
            word += ch
    return out + [word.strip()] if word.strip() else out


class Instruction:
    """One PTX instruction: opcode, the registers it writes and reads (in order),
    its address base, and the innermost .loc line written above it."""

    def __init__(self, line, loc):
        m = INSTRUCTION.match(line)
        self.opcode, self.loc = (m.group(2) if m else ""), loc
        operands = split_operands(m.group(3)) if m else []
        writes = bool(operands) and not self.opcode.startswith(("st.", "bar", "red.", "bra", "ret"))
        self.dests = REGISTER.findall(operands[0]) if writes else []
        self.sources = [r for o in operands[1 if writes else 0:] for r in REGISTER.findall(o)]
        base = ADDRESS_BASE.search(m.group(3)) if m and MEMORY.match(line) else None
        self.base = base.group(1) if base else None
        self.values = ([r for o in operands[1:] for r in REGISTER.findall(o)]
                       if self.opcode.startswith("st.") else [])


class Flow:
    """One function's instructions and control flow (basic blocks: a label starts
    one, a branch or return ends one), for the rules of Resolver.choose."""

    def __init__(self, lines, start, end):
        self.at, self.block_of = {}, {}
        labels, jumps, falls = {}, {}, {}  # label -> block; block -> targets; block -> falls on
        loc, block, open_block = "", 0, True
        for i in range(start, end):
            s = lines[i].strip()
            m = LABEL.match(lines[i])
            if m or not open_block:
                if m or (s and not s.startswith(STRUCTURE)):
                    block += 1
                    open_block = True
                if m:
                    labels[m.group(1)] = block
                    continue
            if s.startswith(".loc"):
                loc = " ".join(s.split())
            if not s or s.startswith(STRUCTURE):
                continue
            ins = Instruction(lines[i], loc)
            self.at[i], self.block_of[i] = ins, block
            falls[block] = True
            if ins.opcode.startswith(("bra", "ret", "exit")):
                target = re.search(r"(\$L__\w+)", s)
                jumps[block] = [target.group(1)] if target else []
                falls[block] = s.startswith("@")  # a guarded branch may fall through
                open_block = False
        self.succ = {b: {labels[t] for t in jumps.get(b, []) if t in labels} |
                     ({b + 1} if falls.get(b, True) else set()) for b in range(block + 1)}
        self.order = sorted(self.at)
        self.index = {i: k for k, i in enumerate(self.order)}
        self._reach = {}

    def reaches(self, i, j):
        """Whether control can go from the instruction at PTX line index i to j's."""
        a, b = self.block_of.get(i), self.block_of.get(j)
        if a is None or b is None:
            return True
        if a not in self._reach:
            seen, todo = {a}, [a]
            while todo:
                for n in self.succ.get(todo.pop(), ()):
                    if n not in seen:
                        seen.add(n)
                        todo.append(n)
            self._reach[a] = seen
        return b in self._reach[a]

    def partner(self, i):
        """What the memory instruction at i is tied to by its data: a load's first
        reader, a store's value's writer; as ((opcode, .loc, the register's place
        among the partner's reads or writes), the partner's address base, its line,
        whether the register has no other reader: a temporary of one statement, not
        a named value that later statements use)."""
        ins = self.at.get(i)
        if not ins or i not in self.index:
            return None
        k = self.index[i]
        if ins.dests:
            reg = ins.dests[0]
            readers = self.readers(reg, k + 1)
            if readers:
                other = self.at[readers[0]]
                return ((other.opcode, other.loc, other.sources.index(reg)), other.base,
                        readers[0], len(readers) == 1)
        elif ins.values:
            reg = ins.values[0]
            for j in reversed(self.order[:k]):
                other = self.at[j]
                if reg in other.dests:
                    alone = len(self.readers(reg, self.index[j] + 1)) == 1
                    return (other.opcode, other.loc, other.dests.index(reg)), other.base, j, alone
        return None

    def readers(self, reg, k):
        """The PTX lines that read `reg` from the k-th instruction on, until it is written
        again (in program order: a loop's next turn is not followed)."""
        out = []
        for j in self.order[k:]:
            other = self.at[j]
            if reg in other.sources:
                out.append(j)
            if reg in other.dests:
                break
        return out


def locations(ptx):
    """({PTX line number (1-based): innermost-first [(path, line)] of the location
    nvcc meant for the instruction there}, {line number: True where the chain
    was chosen among several candidates that fit})."""
    lines = ptx.splitlines()
    names = info_strings(lines)
    files = {m.group(1): m.group(2) for m in map(FILE.match, lines) if m}
    where, unsure = {}, {}
    i = 0
    while i < len(lines):
        if not BODY_START.match(lines[i]):
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].startswith("}"):
            end += 1
        # Twice: the second time the data rule knows the lines of the first's sure
        # instructions, a load's reader among them (it comes after the load).
        first = Resolver(lines, i + 1, end, names, files, {})
        first.run({}, {})
        Resolver(lines, i + 1, end, names, files, first.sure).run(where, unsure)
        i = end + 1
    return where, unsure


class Resolver:
    """The locations of one function's instructions (locations())."""

    def __init__(self, lines, start, end, names, files, hints):
        self.lines, self.start, self.end, self.names, self.files = lines, start, end, names, files
        self.hints = hints  # PTX line -> lesson line of an instruction placed without a choice
        self.sure = {}  # the same, of this pass
        self.flow = Flow(lines, start, end)
        self.uses = {}  # id(Instance) -> PTX lines whose chain was written in full through it
        self.decided = []  # (PTX line, Instruction, lesson key, partner) of decided accesses
        self.bases = {}  # address base register -> lesson lines whose sure accesses used it

    def run(self, where, unsure):
        written, group, current, context = {}, [], None, None
        guessed = ambiguous = context_ambiguous = False
        for i in range(self.start, self.end):
            line = self.lines[i]
            m = LOC.match(line)
            if not m:
                if group:
                    current, group = group[-1], []
                    if current.parent or current.pos[1] != "0":
                        context, context_ambiguous = current, ambiguous
                s = line.strip()
                if current and s and not s.endswith(":") and not s.startswith(STRUCTURE):
                    where[i + 1] = [(self.files.get(n.pos[0], "?"), int(n.pos[1]))
                                    for n in current.chain()]
                    self.record(i, current, guessed, ambiguous)
                    if guessed:
                        unsure[i + 1] = True
                continue
            if not group:
                guessed = ambiguous = False
            pos = (m.group(1), m.group(2), m.group(3))
            parent = None
            if m.group(4):
                ppos = (m.group(5), m.group(6), m.group(7))
                for node in reversed(group):  # written just now, as part of this chain
                    if node.pos == ppos:
                        parent = node
                        break
                else:
                    at = self.next_instruction_at(i + 1)
                    statement = None if context_ambiguous else context
                    parent, several, many = self.choose(written.get(ppos, []), context,
                                                        statement, at)
                    guessed, ambiguous = guessed or several, ambiguous or many
            inst = Instance(pos, m.group(4), parent)
            bucket = written.setdefault(pos, [])
            bucket[:] = [c for c in bucket if c.key() != inst.key()] + [inst]  # the latest last
            group.append(inst)

    def next_instruction_at(self, i):
        """The PTX line index of the instruction a .loc group ending before line i is
        chosen for: the first memory access it applies to (up to the next .loc), else
        its first instruction."""
        first = None
        for k in range(i, self.end):
            s = self.lines[k].strip()
            if first is not None and s.startswith(".loc"):
                break
            if s and not s.startswith((".loc", "//")) and not s.endswith(":"):
                first = k if first is None else first
                if access_of(self.lines[k])[0] is not None:
                    return k
        return first

    def record(self, i, current, guessed, ambiguous):
        if not ambiguous:  # a use of each chain node: the flow rule's evidence
            self.sure[i] = lesson_key(current, self.files)
            for node in current.chain():
                self.uses.setdefault(id(node), []).append(i)
        space, base = access_of(self.lines[i])
        if space is None or guessed:
            return
        key = lesson_key(current, self.files)
        if base:
            self.bases.setdefault(base, set()).add(key)
        self.decided.append((i, self.flow.at.get(i), key, self.flow.partner(i)))

    def choose(self, seen, current, statement, at):
        """The chain nvcc meant, among those written for a call site (`seen`, the
        latest last), for the instruction at PTX line `at`; whether it was a guess
        (candidates of several lesson lines were left after the rules); whether
        there were candidates of several lesson lines at all. `current`: the
        previous instruction's chain; `statement`: the same where it was not itself
        chosen among lines. For a memory access the rules, in order, each applied
        while candidates of several lesson lines are left:
          - the space: the accessors in the chain work on the instruction's state space;
          - the data: the lesson line of the instruction that reads what a load
            loaded, or wrote what a store stores (`sum += a[i]`: the add's line), when
            that instruction was placed without a choice and the value is a temporary
            (one reader: `const float b = s[k]`, read by the next lines, is not);
          - the statement: a chain through the lesson line of `statement` (the same
            statement: its access after its arithmetic);
          - the unrolled copy: an instruction whose opcode, .loc and data partner (the
            reader of what it loads, the writer of what it stores: the same opcode and
            .loc, the same operand) are those of an access already placed is a copy of
            that access, made by unrolling a loop: it is on that access's line;
          - the flow: a chain whose fully written uses cannot reach the instruction,
            nor be reached from it, is another branch's (an if/else's two statements).
        Then, a guess: chains of lines whose sure accesses used the same address
        register; the closest to the previous instruction's chain; the latest."""
        space, base = access_of(self.lines[at] if at is not None else "")
        fitting = [c for c in seen if fits(c, space, self.names)] or seen
        if not fitting:
            return None, False, False

        def lines_of(cands):
            return {lesson_key(c, self.files) for c in cands}

        many = len(lines_of(fitting)) > 1
        if space is not None:
            node = lesson_node(statement, self.files) if statement is not None else None
            partner = self.flow.partner(at)
            rules = [
                lambda cands: [c for c in cands if partner is not None and partner[3]
                               and lesson_key(c, self.files) == self.hints.get(partner[2])],
                lambda cands: [c for c in cands if node is not None
                               and lesson_node(c, self.files).key() == node.key()],
                lambda cands: self.copies(at, cands),
                lambda cands: [c for c in cands
                               if any(self.flow.reaches(u, at) or self.flow.reaches(at, u)
                                      for u in self.uses.get(id(c), []))],
            ]
            for rule in rules:
                if len(lines_of(fitting)) > 1:
                    fitting = rule(fitting) or fitting
        guess = len(lines_of(fitting)) > 1
        if guess:
            fitting = [c for c in fitting
                       if lesson_key(c, self.files) in self.bases.get(base, set())] or fitting
        here = {} if current is None else {n.key(): d for d, n in enumerate(current.chain())}

        def distance(c):
            for n in c.chain():
                if n.key() in here:
                    return here[n.key()]
            return len(here) + 1

        best = min(distance(c) for c in fitting)
        return [c for c in fitting if distance(c) == best][-1], guess, many

    def copies(self, at, candidates):
        """The candidates on the line of the access whose unrolled copy the instruction
        at `at` is (Resolver.choose), where its copies name one line; else []."""
        ins, partner = self.flow.at.get(at), self.flow.partner(at)
        if not ins or not partner:
            return []
        lines = {lesson_key(c, self.files) for c in candidates}
        copies = [(i, o, key, p) for i, o, key, p in self.decided
                  if o and p and key in lines and o.opcode == ins.opcode
                  and o.loc == ins.loc and p[0] == partner[0]]
        for narrower in (lambda c: c[1].base == ins.base, lambda c: c[3][1] == partner[1]):
            if len({c[2] for c in copies}) > 1:
                copies = [c for c in copies if narrower(c)] or copies
        keys = {c[2] for c in copies}
        if len(keys) != 1:
            return []
        key = keys.pop()
        return [c for c in candidates if lesson_key(c, self.files) == key]


def lesson_node(instance, files):
    """The chain's innermost frame in lessons/ that is not the accessors'."""
    for n in instance.chain():
        folder, name = os.path.split(files.get(n.pos[0], ""))
        if os.path.basename(folder) == "lessons" and name != "access.hpp":
            return n
    return None


def lesson_key(instance, files):
    """What the table records of a chain: its innermost frame in lessons/ that
    is not the accessors' (sass_table.py: source_line)."""
    n = lesson_node(instance, files)
    return (os.path.basename(files.get(n.pos[0], "")), n.pos[1]) if n else None


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
