// A generated graph of `nodes` nodes in .webnn text: residual-style blocks (two branches
// joined by an add) with a skip over three blocks, and a shared constant. The browser test and
// bench/view_page_load.js draw it.
"use strict";

function bigGraph(nodes) {
  const lines = ['webnn_graph "big" v1 {', "  inputs {", "    x: f32[1, 8];", "  }", "  consts {",
    "    c: f32[1, 8] @scalar(0.5);", "  }", "  nodes {"];
  let last = "x", count = 0;
  const skips = [];
  while (count + (skips.length >= 3 ? 5 : 4) <= nodes) {
    const b = `b${count}`;
    lines.push(`    ${b}_a = relu(${last});`, `    ${b}_b = mul(${b}_a, c);`, `    ${b}_c = tanh(${last});`,
      `    ${b}_d = add(${b}_b, ${b}_c);`);
    count += 4;
    if (skips.length >= 3) {
      lines.push(`    ${b}_e = add(${b}_d, ${skips[skips.length - 3]});`);
      ++count;
      last = `${b}_e`;
    } else {
      last = `${b}_d`;
    }
    skips.push(last);
  }
  for (; count < nodes; ++count) {  // exactly `nodes`: a short tail
    lines.push(`    t${count} = relu(${last});`);
    last = `t${count}`;
  }
  lines.push("  }", "  outputs {", `    ${last};`, "  }", "}");
  return { text: lines.join("\n") + "\n", nodes: count };
}

module.exports = { bigGraph };
