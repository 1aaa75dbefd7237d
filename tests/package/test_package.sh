#!/usr/bin/env bash
# The Debian package a course hands out (docs/package.md), used as a student's
# machine uses it: cpack on this build, the package unpacked into an empty
# folder (dpkg-deb -x: no root, nothing installed on this machine), and the
# unpacked programs run from another empty folder with TileScope's variables
# unset. It checks
#  - the file's name and the dependencies it declares (the compiler lesson
#    files are compiled with, the libraries the programs link);
#  - `--version` of both programs (the window's without a display);
#  - that every header an installed header includes is installed too;
#  - the puzzles are the unpacked ones, a reference solution is graded 0 and
#    the skeleton 3 by the unpacked tilescope-cli, the solution runs as a
#    lesson file (and, in a CUDA build, its GPU half compiles from the
#    unpacked engine/cuda headers);
#  - every file the plug-in compiles read (the compiler's -MMD list in the
#    plug-in cache) lies in the unpacked tree or the student's folder: the
#    source tree this build came from is never read.
# ctest runs it (cmake/packaging.cmake) with CPACK, BUILD_DIR, SOURCE_DIR,
# VERSION, WINDOW (the window's file name, or empty) and HAVE_CUDA set.
set -euo pipefail
for v in CPACK BUILD_DIR SOURCE_DIR VERSION HAVE_CUDA; do
  [ -n "${!v:-}" ] || { echo "FAIL: $v is not set (run through ctest)"; exit 1; }
done
WINDOW=${WINDOW:-}
# Not a Debian system: there is no package to make (77: ctest's skip).
command -v dpkg-deb >/dev/null || { echo "skipped: no dpkg-deb (not a Debian system)"; exit 77; }
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilescope-package.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tmp=$(realpath "$tmp")  # the programs see their own path resolved (/proc/self/exe)
seconds() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(seconds)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- The package ----
t0=$(seconds)
"$CPACK" --config "$BUILD_DIR/CPackConfig.cmake" -B "$tmp/out" >"$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log"; fail "cpack failed"; }
deb="$tmp/out/tilescope_${VERSION}_$(dpkg --print-architecture).deb"
[ -f "$deb" ] || fail "cpack made no $(basename "$deb"); it made: $(ls "$tmp/out")"
echo "cpack: $(elapsed "$t0") s, $(basename "$deb") $(stat -c %s "$deb") bytes"

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
grep -Eq '(^|, )libc6( |,|$)' <<<"$depends" ||
  fail "Depends lacks libc6: the libraries were not read from the binaries (dpkg-shlibdeps, file)"
grep -Eq '(^|, )(g\+\+|clang)' <<<"$depends" ||
  fail "Depends names no C++ compiler: lesson files and puzzles could not be compiled"
if [ -n "$WINDOW" ]; then
  for p in libglfw3 fonts-dejavu-core; do
    grep -Eq "(^|, )$p( |,|$)" <<<"$depends" || fail "Depends lacks $p (the window needs it)"
  done
fi

root="$tmp/root"
dpkg-deb -x "$deb" "$root"
cli="$root/usr/bin/tilescope-cli"
include="$root/usr/include/tilescope"
[ -x "$cli" ] || fail "no usr/bin/tilescope-cli in the package"
[ -z "$WINDOW" ] || [ -x "$root/usr/bin/$WINDOW" ] || fail "no usr/bin/$WINDOW in the package"

# The student's folder, and an environment without TileScope's variables.
work="$tmp/work"
mkdir -p "$work" "$tmp/home"
cd "$work"
student() {
  env -i PATH="$PATH" HOME="$tmp/home" XDG_CACHE_HOME="$tmp/cache" LANG=C.UTF-8 "$@"
}

# ---- --version ----
version_re="^tilescope-cli ${VERSION//./\\.}( \(git [0-9a-f]+\))?$"
out=$(student "$cli" --version) || fail "tilescope-cli --version exited $?"
[[ $out =~ $version_re ]] || fail "tilescope-cli --version printed '$out'"
echo "$out"
if [ -n "$WINDOW" ]; then
  out=$(student "$root/usr/bin/$WINDOW" --version) || fail "$WINDOW --version exited $? (no display)"
  [[ $out =~ ^tilescope\ ${VERSION//./\\.} ]] || fail "$WINDOW --version printed '$out'"
  echo "$out"
fi

# ---- Every quoted include of an installed header is installed ----
missing=0
while IFS= read -r -d '' h; do
  while IFS= read -r name; do
    [ -f "$include/$name" ] || [ -f "$(dirname "$h")/$name" ] || {
      echo "${h#"$root"/}: includes \"$name\", which the package does not hold" >&2
      missing=1
    }
  done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/p' "$h")
done < <(find "$include" -type f \( -name '*.hpp' -o -name '*.cuh' \) -print0)
[ "$missing" = 0 ] || fail "installed headers include headers the package lacks"
for h in engine/lesson_plugin.hpp engine/cuda/lesson_plugin.cuh engine/puzzles.hpp; do
  [ -f "$include/$h" ] || fail "the package lacks include/tilescope/$h"
done

# ---- A puzzle, graded by the installed program ----
puzzles="$root/usr/share/tilescope/puzzles"
[ -d "$puzzles" ] || fail "the package has no usr/share/tilescope/puzzles"
id=""
for j in "$puzzles"/*/puzzle.json; do
  candidate=$(sed -nE 's/^[[:space:]]*"id":[[:space:]]*"([a-z0-9_]+)".*/\1/p' "$j" | head -1)
  if [ -n "$candidate" ] && [ -f "$SOURCE_DIR/tests/puzzle_solutions/$candidate.hpp" ]; then
    id=$candidate
    break
  fi
done
[ -n "$id" ] || fail "no installed puzzle has a reference solution in tests/puzzle_solutions"
cp "$SOURCE_DIR/tests/puzzle_solutions/$id.hpp" "$work/solution.hpp"
cp "$SOURCE_DIR/tests/puzzle_solutions/$id.cu" "$work/solution.cu"

shown=$(student "$cli" puzzles "$id" --json) || fail "puzzles $id --json exited $?"
skeleton_path=$(sed -nE 's/.*"skeleton": "([^"]+)".*/\1/p' <<<"$shown" | head -1)
[[ $skeleton_path == "$puzzles/"* ]] ||
  fail "the puzzles were not read from the unpacked tree: skeleton '$skeleton_path'"
student "$cli" puzzles "$id" --skeleton >"$work/skeleton.cu" || fail "puzzles --skeleton exited $?"

t0=$(seconds)
rc=0
student "$cli" check "$id" solution.hpp >"$tmp/check.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$tmp/check.log"; fail "check $id solution.hpp exited $rc, not 0"; }
rc=0  # the plain CUDA one (docs/plain_cuda.md), from the unpacked headers too
student "$cli" check "$id" solution.cu >"$tmp/check_cu.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$tmp/check_cu.log"; fail "check $id solution.cu exited $rc, not 0"; }
rc=0
student "$cli" check "$id" skeleton.cu >"$tmp/skeleton.log" 2>&1 || rc=$?
[ "$rc" = 3 ] || { cat "$tmp/skeleton.log"; fail "check $id skeleton.cu exited $rc, not 3"; }
rc=0
student "$cli" run --lesson-file solution.hpp --check >"$tmp/run.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$tmp/run.log"; fail "run --lesson-file solution.hpp exited $rc"; }
echo "puzzle $id: solution 0, skeleton 3, run --lesson-file 0 ($(elapsed "$t0") s)"

if [ "$HAVE_CUDA" = 1 ]; then
  # The GPU half (nvcc, the unpacked engine/cuda/*.cuh), asked for without a GPU.
  t0=$(seconds)
  rc=0
  student TILESCOPE_PLUGIN_CUDA=1 "$cli" run --lesson-file solution.hpp --json >"$tmp/gpu.log" \
    2>&1 || rc=$?
  [ "$rc" = 0 ] || { cat "$tmp/gpu.log"; fail "run --lesson-file with its GPU half exited $rc"; }
  tr -d ' \n' <"$tmp/gpu.log" | grep -q '"gpu":true' ||
    { cat "$tmp/gpu.log"; fail "the plug-in has no GPU half (nvcc from the unpacked headers)"; }
  echo "GPU half compiled from the unpacked headers ($(elapsed "$t0") s)"
fi

# ---- What the compiles read ----
shopt -s nullglob
deps=("$tmp/cache/tilescope/plugins"/*.deps)
[ "${#deps[@]}" -gt 0 ] || fail "no plug-in dependency list in $tmp/cache/tilescope/plugins"
read_files=$(cut -d' ' -f2- "${deps[@]}" | sort -u)
# (TileScope's generated glue lies in the cache itself.)
outside=$(grep -v -e "^$root/" -e "^$work/" -e "^$tmp/cache/" <<<"$read_files" || true)
[ -z "$outside" ] || fail "the plug-in compiles read files outside the unpacked tree:
$outside"
grep -q "^$include/engine/lesson_plugin.hpp$" <<<"$read_files" ||
  fail "the plug-in compiles did not read the unpacked engine/lesson_plugin.hpp"
echo "the compiles read $(wc -l <<<"$read_files") files, all in the unpacked tree or $work"
echo "ok"
