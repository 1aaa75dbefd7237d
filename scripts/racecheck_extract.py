#!/usr/bin/env python3
"""Extract the hazard records of a compute-sanitizer racecheck log into a small text file
that tests/test_racecheck_extracts.cpp replays against our analysis (analysis/hazards.hpp).

racecheck prints one record per BYTE of shared memory; this keeps one line per 4-byte word
and hazard (the same kind, threads and instructions), with the bytes of the word it
reported and their values. Each access keeps its instruction (the offset in the kernel's SASS) and the source
line the SASS line table gives it, from a line map of the binary that ran (nvdisasm -gi of
engine/cuda/cuda_backend.cu compiled for sm_90 as the build compiles it; --sass makes the map).
The line table is the compiler's: it can put an access on a neighbouring line.

  racecheck_extract.py LOG --lines MAP --case 'reduction.warp_volatile --barriers 1,2' \
      --gpu 'NVIDIA H200' > docs/measurements/racecheck_h200/NAME.txt
  racecheck_extract.py --sass KERNEL.sass > MAP      # offset line opcode, shared accesses only
"""
import argparse
import re
import sys
from collections import OrderedDict

RECORD = re.compile(
    r"=+ (Error|Warning): (?:\(Warp Level Programming\) )?Potential (RAW|WAR|WAW) hazard "
    r"detected at __shared__ (0x[0-9a-f]+) in block \((\d+),(\d+),(\d+)\) :\n"
    r"=+\s+(Read|Write) Thread \((\d+),(\d+),(\d+)\) at .*?\+(0x[0-9a-f]+) in [^\n]*\n"
    r"=+\s+(Read|Write) Thread \((\d+),(\d+),(\d+)\) at .*?\+(0x[0-9a-f]+) in [^\n]*\n"
    r"=+\s+Current Value : (\d+)(?:, Incoming Value : (\d+))?")
SUMMARY = re.compile(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)")


def sass_lines(path):
    """nvdisasm -gi output -> [(offset, line, opcode)] for LDS/STS/ATOMS; the line is the
    innermost lessons/*.hpp line of the inline chain (not access.hpp): the line the
    trace records for that access."""
    chain, out, open_block = [], [], False
    for text in open(path, errors="replace"):
        m = re.match(r'\s*//## File "([^"]+)", line (\d+)', text)
        if m:
            if not open_block:
                chain, open_block = [], True
            chain.append((m.group(1), int(m.group(2))))
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", text)
        if not m:
            continue
        open_block = False
        op = m.group(2)
        if op.startswith(("LDS", "STS", "ATOMS")):
            line = next((n for f, n in chain if "/lessons/" in f and not f.endswith("access.hpp")), 0)
            out.append((int(m.group(1), 16), line, op))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log", nargs="?")
    ap.add_argument("--sass", help="print the line map of one kernel's nvdisasm -gi output")
    ap.add_argument("--lines", help="the line map (offset line opcode per line)")
    ap.add_argument("--case", help="lesson id and the races options of the run")
    ap.add_argument("--gpu", default="NVIDIA H200")
    ap.add_argument("--note", default="")
    a = ap.parse_args()
    if a.sass:
        for off, line, op in sass_lines(a.sass):
            print("0x%x %d %s" % (off, line, op))
        return 0
    lines = {}
    for text in open(a.lines):
        off, line, op = text.split()
        lines[int(off, 16)] = (int(line), op)
    log = open(a.log, errors="replace").read()
    words = OrderedDict()
    for m in RECORD.finditer(log):
        g = m.groups()
        addr = int(g[2], 16)
        key = (g[0][0], g[1], ",".join(g[3:6]), addr & ~3,
               g[6][0], ",".join(g[7:10]), int(g[10], 16),
               g[11][0], ",".join(g[12:15]), int(g[15], 16))
        cur, inc = int(g[16]), g[17]
        words.setdefault(key, []).append(
            "b%d=%02x" % (addr & 3, cur) + ("" if inc is None else ">%02x" % int(inc)))
    summ = SUMMARY.search(log)
    print("# compute-sanitizer racecheck, hazard records one per 4-byte word (scripts/racecheck_extract.py)")
    print("# gpu: %s" % a.gpu)
    print("# command: compute-sanitizer --tool racecheck --racecheck-report all --print-limit 20000 "
          "tilescope-cli races %s --backend cuda --launch-only" % a.case)
    if a.note:
        print("# note: %s" % a.note)
    print("# summary: %s hazards displayed (%s errors, %s warnings)" % (summ.groups() if summ else ("?",) * 3))
    print("case %s" % a.case)
    print("# severity kind block word first(R/W thread instruction:line) second(...), then each")
    print("# byte racecheck reported: bN=current>incoming value (RAW: how many bytes)")
    for k, values in words.items():
        sev, kind, block, word, t1, th1, pc1, t2, th2, pc2 = k
        l1, l2 = lines.get(pc1, (0, "?"))[0], lines.get(pc2, (0, "?"))[0]
        if not l1 or not l2:
            sys.exit("no line for instruction 0x%x or 0x%x" % (pc1, pc2))
        print("%s %s %s 0x%x %s %s 0x%x:%d %s %s 0x%x:%d %s"
              % (sev, kind, block, word, t1, th1, pc1, l1, t2, th2, pc2, l2,
                 "bytes=%d" % len(values) if kind == "RAW" else " ".join(sorted(values))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
