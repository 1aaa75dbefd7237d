#!/usr/bin/env bash
# Keeps the layers apart (docs/architecture.md):
#   model -> lessons -> engine -> analysis -> io -> cli, app
# 1. No file includes a header of a layer above its own.
# 2. Inside app/, no file includes a header of a room ranked above its own
#    (the rooms form a chain, so no include cycle between them):
#      core -> replay -> quiz -> grid -> views -> lecture -> compare -> perf -> export -> shell
# 3. Outside lessons/ (and docs, assets), no source names a lesson id:
#    menus, the CLI and the panels iterate the registry.
# 3. tests/ and bench/ name none either, not even inside a command line or an
#    expected message (comments aside): they pick lessons by what they have
#    (tests/lesson_picks.hpp), so adding, renaming or removing a lesson needs
#    no test edit.
# Prints every violation with file and line; exits 1 if there is one.
#   scripts/check_layers.sh
set -euo pipefail
cd "$(dirname "$0")/.."

layers=(model lessons engine analysis io cli app)
rank() {
  local i
  for i in "${!layers[@]}"; do
    [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }
  done
  echo -1
}

bad=0
for layer in "${layers[@]}"; do
  mine=$(rank "$layer")
  [ -d "$layer" ] || continue
  while IFS= read -r hit; do
    file=${hit%%:*}
    rest=${hit#*:}
    line=${rest%%:*}
    target=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$rest")
    theirs=$(rank "$target")
    # cli and app sit side by side: neither may include the other.
    if [ "$theirs" -gt "$mine" ] || { [ "$layer" = cli ] && [ "$target" = app ]; }; then
      echo "$file:$line: $layer includes $target, a layer above it: ${rest#*:}"
      bad=1
    fi
  done < <(grep -rnE '^#include "[a-z_]+/' "$layer" --include='*.hpp' --include='*.cpp' \
             --include='*.cu' --include='*.cuh' || true)
done

# The window's rooms, lowest first: a room includes only rooms below it.
rooms=(core replay quiz grid views lecture compare perf export shell)
room_rank() {
  local i
  for i in "${!rooms[@]}"; do
    [ "${rooms[$i]}" = "$1" ] && { echo "$i"; return; }
  done
  echo -1
}
for d in app/*/; do
  room=$(basename "$d")
  [ "$(room_rank "$room")" -ge 0 ] || { echo "$d: a room check_layers does not rank (add it to rooms)"; bad=1; }
done
for room in "${rooms[@]}"; do
  mine=$(room_rank "$room")
  [ -d "app/$room" ] || continue
  while IFS= read -r hit; do
    file=${hit%%:*}
    rest=${hit#*:}
    line=${rest%%:*}
    target=$(sed -E 's/.*#include "app\/([a-z_]+)\/.*/\1/' <<<"$rest")
    theirs=$(room_rank "$target")
    if [ "$theirs" -gt "$mine" ]; then
      echo "$file:$line: room $room includes $target, a room above it: ${rest#*:}"
      bad=1
    fi
  done < <(grep -rnE '^#include "app/[a-z_]+/' "app/$room" --include='*.hpp' --include='*.cpp' || true)
done

# The ids follow from the lesson list (lessons/CMakeLists.txt): the file
# name's first '_' made a '.'.
ids=$(sed -n '/^set(TS_LESSONS/,/^)/p' lessons/CMakeLists.txt | grep -oE '^ +[a-z0-9]+_[a-z0-9_]+' |
        sed -E 's/^ +//; s/_/./' | sort -u)
[ -n "$ids" ] || { echo "no lesson ids found in lessons/"; exit 1; }
for id in $ids; do
  while IFS= read -r hit; do
    echo "$hit: names the lesson $id (iterate the registry instead)"
    bad=1
  done < <(grep -rnF "\"$id\"" model engine analysis io cli app --include='*.hpp' \
             --include='*.cpp' --include='*.cu' --include='*.cuh' || true)
done

id_pattern="(^|[^a-z0-9_.])($(sed 's/\./\\./g' <<<"$ids" | paste -sd '|'))([^a-z0-9_]|$)"
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  code=${rest#*:}
  code=${code%%//*}  # a comment may mention a lesson
  [[ $code =~ $id_pattern ]] || continue
  echo "$file:$line: names the lesson ${BASH_REMATCH[2]} (pick it by property: tests/lesson_picks.hpp)"
  bad=1
done < <(grep -rnE "$id_pattern" tests bench --include='*.hpp' --include='*.cpp' --include='*.cu' \
           --include='*.cuh' || true)

if [ "$bad" -ne 0 ]; then
  echo "check_layers: FAILED"
  exit 1
fi
echo "check_layers: ok ($(wc -w <<<"$ids") lessons; layers ${layers[*]}; app rooms ${rooms[*]})"
