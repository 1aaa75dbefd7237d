#!/usr/bin/env python3
"""scripts/sass_table.py on a committed sample (tests/sass/sample/, remade by
tests/sass/make_sample.sh): a kernel shaped like a lesson's, its PTX and its
SASS as nvdisasm -gp and -gi print them. Needs c++filt; no CUDA."""
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "scripts"))
import ptx_lines  # noqa: E402
import sass_table  # noqa: E402

SAMPLE = HERE / "sample"
BODY = "ts::lessons::demo::Body"


def read(name):
    return (SAMPLE / name).read_text()


class SampleTable(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.table = sass_table.table_of(read("sample.sass"), read("sample.ptx"))
        cls.accesses = cls.table[BODY]

    def lines_of(self, opcode, space="Shared"):
        return [a["line"] for a in self.accesses if a["opcode"] == opcode and a["space"] == space]

    def test_the_kernel_is_named_by_its_body(self):
        self.assertEqual(list(self.table), [BODY])

    def test_every_memory_instruction_and_no_other(self):
        # 1 LDG, 2 STS, 2 LDS.128 + 8 LDS, 4 ULDC.64 of the __constant__ array, 1 STG;
        # the LDC/ULDC of the kernel's parameters (bank 0) are not accesses.
        self.assertEqual(len(self.accesses), 18)
        self.assertEqual(len(self.lines_of("ULDC.64", "Constant")), 4)
        self.assertTrue(all(a["file"] == "demo.hpp" for a in self.accesses))

    def test_each_load_is_on_the_line_of_its_element(self):
        # s[j] (line 21), eight consecutive floats: two LDS.128; t[8 * j] (line 22),
        # 32 bytes apart: eight LDS. nvcc wrote the chain above the accessor only
        # for the first load of each: the others are told apart by their address.
        self.assertEqual(self.lines_of("LDS.128"), [21, 21])
        self.assertEqual(self.lines_of("LDS"), [22] * 8)
        self.assertEqual(self.lines_of("ULDC.64", "Constant"), [20] * 4)

    def test_width_and_predicate(self):
        wide = [a for a in self.accesses if a["opcode"] == "LDS.128"]
        self.assertTrue(all(a["bytes"] == 16 for a in wide))
        (ldg,) = [a for a in self.accesses if a["opcode"] == "LDG.E"]
        self.assertTrue(ldg["predicated"])  # if (i < n): @!P0 LDG.E
        self.assertEqual((ldg["line"], ldg["op"]), (14, "Load"))
        (stg,) = [a for a in self.accesses if a["opcode"] == "STG.E"]
        self.assertEqual((stg["line"], stg["op"], stg["predicated"]), (24, "Store", False))

    def test_nvdisasm_gi_chains_would_put_loads_on_the_wrong_line(self):
        # Why the table reads -gp and the PTX: -gi shows every LDS of the loop on
        # line 21, the line whose chain nvcc wrote last before them.
        gi = sass_table.table_of(read("sample.gi.sass"))[BODY]
        self.assertEqual([a["line"] for a in gi if a["opcode"] == "LDS"], [21] * 8)


# Hand-written PTX shaped like nvcc's: file 1 a lesson, 2 the accessors, 3 the
# recorder. nvcc writes a call site's chain only the first time; a later
# `inlined_at 2 83 5` could be any statement's store (scripts/ptx_lines.py).
HEAD = """.file 1 "lessons/demo.hpp"
.file 2 "lessons/access.hpp"
.file 3 "engine/cuda/recorders.cuh"
.entry k(
)
{
\t.loc 1 5 1
"""
STORE = ("\t.loc 1 {line} 7, function_name $L__info_string0, inlined_at 1 5 1\n"
         "\t.loc 2 83 5, function_name $L__info_string1, inlined_at 1 {line} 7\n"
         "\t.loc 3 55 5, function_name $L__info_string2, inlined_at 2 83 5\n")
AGAIN = "\t.loc 3 55 5, function_name $L__info_string2, inlined_at 2 83 5\n"


def lesson_lines(ptx, opcode):
    """The lesson line given to each instruction of `opcode`, in order."""
    where, unsure = ptx_lines.locations(ptx)
    out = []
    for number, text in enumerate(ptx.splitlines(), 1):
        if text.strip().startswith(opcode):
            out.append(next(line for path, line in where[number] if path.endswith("demo.hpp")))
            assert number not in unsure, "a guess at PTX line %d" % number
    return out


class LineRules(unittest.TestCase):
    def test_an_unrolled_copy_is_on_the_line_of_the_access_it_copies(self):
        # Two turns of `As[0][r] = a.x; As[1][r] = a.y;` (lines 20, 21): the second
        # turn's stores name only the accessor's call site, whose latest chain is
        # line 21's. Each stores the same component of a load as a first-turn store.
        load = "\t.loc 1 19 7, function_name $L__info_string0, inlined_at 1 5 1\n" \
               "\tld.global.nc.v2.f32 {{%f{a},%f{b}}}, [%rd{a}];\n"
        ptx = (HEAD + load.format(a=1, b=2)
               + STORE.format(line=20) + "\tst.shared.f32 [%r6], %f1;\n"
               + STORE.format(line=21) + "\tst.shared.f32 [%r6+256], %f2;\n"
               + load.format(a=3, b=4)
               + AGAIN + "\tst.shared.f32 [%r6+128], %f3;\n"
               + AGAIN + "\tst.shared.f32 [%r6+384], %f4;\n"
               + "\tret;\n}\n")
        self.assertEqual(lesson_lines(ptx, "st.shared"), [20, 21, 20, 21])

    def test_a_store_on_another_branch_is_not_that_branchs(self):
        # if (aligned) { line 30's store } else { line 36's store }: line 30's chain
        # was written once, for an address computed before the branch; line 36's
        # store cannot reach line 30's branch, nor be reached from it.
        ptx = (HEAD + STORE.format(line=30) + "\tadd.s32 %r8, %r1, %r2;\n"
               + "\t@%p1 bra $L__BB0_2;\n"
               + "\t.loc 1 36 9, function_name $L__info_string0, inlined_at 1 5 1\n"
               + "\tld.global.f32 %f1, [%rd1];\n"
               + STORE.format(line=36) + "\tst.shared.f32 [%r8], %f1;\n"
               + "\tbra.uni $L__BB0_3;\n$L__BB0_2:\n"
               + "\t.loc 1 28 7, function_name $L__info_string0, inlined_at 1 5 1\n"
               + "\tld.global.f32 %f2, [%rd2];\n"
               + AGAIN + "\tst.shared.f32 [%r8+4], %f2;\n"
               + "$L__BB0_3:\n\t.loc 1 40 1\n\tret;\n}\n")
        self.assertEqual(lesson_lines(ptx, "st.shared"), [36, 30])


class Opcodes(unittest.TestCase):
    def test_classify(self):
        c = sass_table.classify
        self.assertEqual(c("LDS.U8", "R1, [R2]"), ("Shared", "Load"))
        self.assertEqual(c("STS.64", "[R2], R4"), ("Shared", "Store"))
        self.assertEqual(c("LDG.E.128.CONSTANT", "R4, desc[UR4][R2.64]"), ("Global", "Load"))
        self.assertEqual(c("ATOMS.POPC.INC.32", "RZ, [R6+URZ]"), ("Shared", "Atomic"))
        self.assertEqual(c("REDG.E.ADD.STRONG.GPU", "desc[UR6][R4.64], R9"), ("Global", "Reduce"))
        self.assertEqual(c("LDC", "R2, c[0x3][0x10]"), ("Constant", "Load"))
        self.assertIsNone(c("LDC.64", "R2, c[0x0][0x210]"))
        self.assertIsNone(c("IMAD", "R1, R2, R3, R4"))

    def test_width(self):
        w = sass_table.width
        self.assertEqual([w("LDS"), w("LDS.64"), w("STS.128"), w("LDS.U8"), w("LDG.E.S16")],
                         [4, 8, 16, 1, 2])
        self.assertEqual(w("ATOMS.POPC.INC.32"), 4)


if __name__ == "__main__":
    unittest.main()
