#!/usr/bin/env python3
"""scripts/sass_table.py on a committed sample (tests/sass/sample/, remade by
tests/sass/make_sample.sh): a kernel shaped like a lesson's, its PTX and its
SASS as nvdisasm -gp and -gi print them; and the per-lesson files it writes,
the sources each is hashed over (the same hashes as the build's,
engine/compiled/embed_compiled_table.cmake, where cmake is found) and the
conversion of the old C++ table. Needs c++filt; no CUDA."""
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "scripts"))
import compiled_table_from_cpp  # noqa: E402
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


class TempTree(unittest.TestCase):
    """A checkout of three lessons of one family in a temporary folder."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.repo = Path(self.tmp.name)
        files = {
            "lessons/CMakeLists.txt": "set(TS_LESSONS\n  demo_one\n  demo_two\n  other_three\n)\n",
            "lessons/demo_one.hpp": '#include "lessons/access.hpp"\n#include "lessons/demo_kit.hpp"\n',
            "lessons/demo_two.hpp": '#include "lessons/demo_kit.hpp"\n',
            "lessons/other_three.hpp": '#include "lessons/access.hpp"\n',
            "lessons/demo_kit.hpp": '#include "lessons/lesson.hpp"\n#include "model/params.hpp"\n',
            "lessons/access.hpp": '#include "model/event.hpp"\n',
            "lessons/lesson.hpp": "// the lesson contract\n",
            "engine/cuda/launch.cuh": '#include "lessons/access.hpp"\n',
            "engine/cuda/recorders.cuh": "// the recorders\n",
            "model/params.hpp": "// not followed\n",
        }
        for rel, text in files.items():
            (self.repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.repo / rel).write_text(text)

    def tearDown(self):
        self.tmp.cleanup()


ACCESS = {"offset": 0x2e0, "line": 63, "file": "demo_one.hpp", "space": "Global", "op": "Load",
          "bytes": 16, "predicated": True, "opcode": "LDG.E.128", "barriers": 0}


def copies(at, n, **changes):
    """n instructions alike but for their offsets, from `at` on."""
    return [dict(ACCESS, offset=at + 0x10 * k, **changes) for k in range(n)]


class LessonFiles(TempTree):
    def test_sources_are_the_header_its_lesson_includes_and_the_launch(self):
        self.assertEqual(sass_table.lesson_sources(self.repo, "demo_one"), [
            "engine/cuda/launch.cuh", "engine/cuda/recorders.cuh", "lessons/access.hpp",
            "lessons/demo_kit.hpp", "lessons/demo_one.hpp", "lessons/lesson.hpp"])
        # No kit: another family's kit is not a source of it.
        self.assertNotIn("lessons/demo_kit.hpp", sass_table.lesson_sources(self.repo, "other_three"))

    def test_one_byte_changed_changes_the_hash_of_that_file_only(self):
        before = dict(sass_table.sources_block(self.repo, "demo_one"))
        kit = self.repo / "lessons/demo_kit.hpp"
        kit.write_bytes(kit.read_bytes().replace(b"params.hpp", b"params.hpq", 1))
        after = dict(sass_table.sources_block(self.repo, "demo_one"))
        self.assertEqual([p for p in before if before[p] != after.get(p)],
                         ["lessons/demo_kit.hpp"])

    def test_the_build_hashes_the_sources_as_the_generator_does(self):
        cmake = shutil.which("cmake")
        if not cmake:
            self.skipTest("no cmake")
        out = self.repo / "table.cpp"
        script = HERE.parent.parent / "engine/compiled/embed_compiled_table.cmake"
        subprocess.run([cmake, "-DDATA_DIR=" + str(self.repo / "none"), "-DDATA_LABEL=x",
                        "-DSOURCE_DIR=" + str(self.repo), "-DOUT=" + str(out), "-P", str(script)],
                       check=True)
        built = dict(re.findall(r'\{"([^"]+)", "([0-9a-f]{16})"\}', out.read_text()))
        for name in ("demo_one", "demo_two", "other_three"):
            for rel, sha in sass_table.sources_block(self.repo, name):
                self.assertEqual(built.get(rel), sha, rel)

    def test_a_file_reads_back_as_written_copies_in_a_row_in_one_record(self):
        kernels = {"ts::lessons::demo_one::Body<8>": copies(0x2e0, 3) + [
            dict(ACCESS, offset=0x400, space="Shared", op="Store", predicated=False,
                 opcode="STS", barriers=1)] + copies(0x500, 2)}
        text = sass_table.lesson_text("demo_one", kernels, [("lessons/demo_one.hpp", "0" * 16)],
                                      "13.0.88", "build", "13.0")
        records = [line for line in text.splitlines() if line.count("\t") == 8]
        self.assertEqual(records[0].split("\t")[0], "02e0,02f0,0300")
        self.assertEqual(len(records), 3)
        header, sources, back = sass_table.read_lesson(text)
        self.assertEqual(back, kernels)
        self.assertEqual(sources, [("lessons/demo_one.hpp", "0" * 16)])
        self.assertEqual(header, {"lesson": "demo.one", "arch": "sm_90", "nvcc": "13.0.88",
                                  "origin": "build", "nvdisasm": "13.0"})

    def test_each_kernel_goes_to_the_lesson_of_its_namespace(self):
        table = {"ts::lessons::demo_one::Body<4>": copies(0x100, 1),
                 "ts::lessons::demo_one::Body<8>": copies(0x100, 2),
                 "ts::lessons::other_three::Body": copies(0x200, 1),
                 "ts::lessons::gone::Body": copies(0x300, 1)}
        out = self.repo / sass_table.DEFAULT_DIR
        out.mkdir(parents=True)
        (out / "removed_lesson.tsv").write_text("lesson\tremoved.lesson\n")
        written = sass_table.write_lessons(self.repo, table, out, "tree", "13.0.88")
        self.assertEqual(written, ["demo_one", "other_three"])
        self.assertEqual(sorted(p.name for p in out.glob("*.tsv")),
                         ["demo_one.tsv", "other_three.tsv"])
        _, _, kernels = sass_table.read_lesson((out / "demo_one.tsv").read_text())
        self.assertEqual(sorted(kernels), ["ts::lessons::demo_one::Body<4>",
                                           "ts::lessons::demo_one::Body<8>"])

    def test_remade_lessons_leave_the_pending_list(self):
        pending = self.repo / sass_table.PENDING
        pending.parent.mkdir(parents=True)
        pending.write_text("# waiting\ndemo.one\ndemo.two\n")
        sass_table.drop_pending(self.repo, ["demo_one"])
        self.assertEqual(pending.read_text(), "# waiting\ndemo.two\n")
        self.assertEqual(sass_table.pending_lessons(self.repo), ["demo.two"])


# Two kernels of the C++ table as scripts/sass_table.py wrote it until issue 30.
OLD_CPP = """namespace ts::compiled {
namespace {
// ts::lessons::demo_one::Body<8>
constexpr CompiledAccess k0[] = {
    {0x02e0, 63, "demo_one.hpp", Space::Global, SassOp::Load, 16, true, "LDG.E.128", 0},
    {0x0400, 70, "demo_kit.hpp", Space::Shared, SassOp::Reduce, 4, false, "ATOMS.ADD", 2},
};
}  // namespace
constexpr CompiledKernel kKernelList[] = {
    {"ts::lessons::demo_one::Body<8>", "sm_90", k0},
    {"ts::lessons::other_three::Body", "sm_90", {}},
};
constinit const std::string_view kOrigin = "the copy kept in the tree (engine/compiled/sm_90.cpp, nvcc 13.0)";
constinit const std::string_view kNvccRelease = "13.0.88";
constinit const std::string_view kSourcesHash = "a8e8eaca547161a9";
}  // namespace ts::compiled
"""


class Conversion(TempTree):
    def test_every_field_of_the_cpp_table_survives(self):
        table, strings = compiled_table_from_cpp.parse_cpp(OLD_CPP)
        self.assertEqual(strings["kNvccRelease"], "13.0.88")
        self.assertEqual(table["ts::lessons::other_three::Body"], [])
        (atom,) = [a for a in table["ts::lessons::demo_one::Body<8>"] if a["offset"] == 0x400]
        self.assertEqual(atom, {"offset": 0x400, "line": 70, "file": "demo_kit.hpp",
                                "space": "Shared", "op": "Reduce", "bytes": 4,
                                "predicated": False, "opcode": "ATOMS.ADD", "barriers": 2})
        out = self.repo / "out"
        sass_table.write_lessons(self.repo, table, out, "tree", strings["kNvccRelease"])
        header, _, back = sass_table.read_lesson((out / "demo_one.tsv").read_text())
        self.assertEqual(back, {"ts::lessons::demo_one::Body<8>":
                                table["ts::lessons::demo_one::Body<8>"]})
        self.assertEqual((header["nvcc"], header["origin"]), ("13.0.88", "tree"))
        _, _, empty = sass_table.read_lesson((out / "other_three.tsv").read_text())
        self.assertEqual(empty, {"ts::lessons::other_three::Body": []})


if __name__ == "__main__":
    unittest.main()
