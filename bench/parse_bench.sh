#!/bin/sh
# Times parsing + validation of a generated 100,000-node .webnn graph with `wnn check`
# (target: under 1 s), and `wnn fmt` (parse + print) on the same file. Not a test.
# usage: bench/parse_bench.sh [path/to/wnn] [nodes]
set -eu
WNN=${1:-build/wnn}
NODES=${2:-100000}
DIR=$(mktemp -d)
trap "rm -rf \"$DIR\"" EXIT
GRAPH="$DIR/big.webnn"

# A chain of elementwise ops, a conv every 1000 nodes, inline constants only (no weights file).
awk -v n="$NODES" 'BEGIN {
  print "webnn_graph \"bench\" v1 {"
  print "  inputs {\n    x: f32[1, 8, 16, 16];\n  }"
  print "  consts {\n    s: f32[1, 8, 1, 1] @scalar(0.5);\n    w: f32[8, 8, 3, 3] @scalar(0.01);\n  }"
  print "  nodes {"
  prev = "x"
  for (i = 0; i < n; i++) {
    name = "/block" int(i / 100) "/op_" i
    if (i % 1000 == 999) {
      printf "    %s = conv2d(%s, w, padding=[1, 1, 1, 1], strides=[1, 1], groups=1);\n", name, prev
    } else if (i % 3 == 0) {
      printf "    %s = mul(%s, s);\n", name, prev
    } else if (i % 3 == 1) {
      printf "    %s = clamp(%s, minValue=-6.0, maxValue=6.0);\n", name, prev
    } else {
      printf "    %s = add(%s, %s);\n", name, prev, prev
    }
    prev = name
  }
  print "  }"
  printf "  outputs {\n    %s;\n  }\n}\n", prev
}' > "$GRAPH"

echo "graph: $NODES nodes, $(wc -c < "$GRAPH") bytes"
# CPU time (user + sys) is the number to read: wall time includes waiting for a shared CPU.
run() {
  label=$1; shift
  start=$(date +%s.%N)
  cpu=$( { /usr/bin/env bash -c 'TIMEFORMAT="%U %S"; time "$@" > /dev/null' _ "$@"; } 2>&1 )
  end=$(date +%s.%N)
  echo "$label: cpu $(echo "$cpu" | awk '{print $1 + $2}') s, wall $(echo "$end - $start" | bc) s"
}
run "wnn check (parse + validate)" "$WNN" check "$GRAPH"
run "wnn fmt (parse + validate + print)" "$WNN" fmt "$GRAPH"
"$WNN" fmt "$GRAPH" > "$DIR/out.webnn"
cmp -s "$GRAPH" "$DIR/out.webnn" && echo "generated file is canonical: yes" || echo "generated file is canonical: no"
