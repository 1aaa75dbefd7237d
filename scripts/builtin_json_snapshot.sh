#!/bin/bash
# Every built-in lesson's `run --json` at its defaults, one file each, without
# the kernel's timing: run it with the build before and after a change, then
# `diff -r BEFORE AFTER` shows what the change did to the built-in lessons.
#   scripts/builtin_json_snapshot.sh build/h/tilescope-cli /tmp/before
set -euo pipefail
cli=$1 out=$2
mkdir -p "$out"
for id in $("$cli" list | awk 'NR > 1 && $1 ~ /\./ {print $1}'); do
  "$cli" run "$id" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
d.pop("kernel_ms", None)
print(json.dumps(d, indent=1, sort_keys=True))' > "$out/$id.json"
done
echo "$(ls "$out" | wc -l) lessons in $out"
