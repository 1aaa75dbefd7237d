#!/usr/bin/env python3
"""scripts/sass_table.py on a committed sample (tests/sass/sample/, remade by
tests/sass/make_sample.sh): a kernel shaped like a lesson's, its PTX and its
SASS as nvdisasm -gp and -gi print them. Needs c++filt; no CUDA."""
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "scripts"))
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
