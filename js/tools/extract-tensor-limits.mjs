#!/usr/bin/env node
// Extracts the allowed ranks of every operand of every operator from the "Tensor limits for ..."
// tables (<table id=tensor-limits-...>) of webmachinelearning/webnn's index.bs into
// js/test/data/tensor-limits.txt, the copy the opSupportLimits test reads.
// Refresh: node tools/extract-tensor-limits.mjs <index.bs> <repo> <commit> <date> [output]
//   (get index.bs, commit and date as for tools/extract-idl.mjs)
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

// An operand cell names an argument ({{input}}), an option ({{MLConv2dOptions/bias}}), the
// items of a list ({{inputs}}'s [=list/items=]) or an output (*output*, *outputs[1]* if ...).
// Returns the MLOpSupportLimits member name.
function operandName(cell) {
  let m = cell.match(/^\{\{(?:\w+\/)?(\w+)\}\}/);
  if (m) return m[1];
  m = cell.match(/^\*outputs?(?:\[(\d+)\])?\*/);
  if (m) return m[1] === undefined ? (cell.startsWith('*outputs*') ? 'outputs' : 'output') : `output${m[1]}`;
  throw new Error(`unknown operand cell: ${cell}`);
}

// A ranks cell: "4", "1 to N", "N", "0 to 2", or "same as {{input}}". Returns "MIN..MAX" (MAX
// may be N, the implementation's maximum) or "same NAME".
function ranks(cell) {
  const c = cell.replace(/\[=\/any rank\|N=\]/g, 'N').trim();
  let m = c.match(/^(\d+|N)$/);
  if (m) return m[1] === 'N' ? '0..N' : `${m[1]}..${m[1]}`;
  m = c.match(/^(\d+) to (\d+|N)$/);
  if (m) return `${m[1]}..${m[2]}`;
  m = c.match(/^\[=\/same rank as\|same as=\] \{\{(\w+)\}\}/);
  if (m) return `same ${m[1]}`;
  throw new Error(`unknown ranks cell: ${cell}`);
}

export function extractTensorLimits(bikeshed) {
  const rows = [];
  const tables = /<table id=tensor-limits-[^>]*link-for="([^"]*)"[^>]*>([\s\S]*?)<\/table>/g;
  for (const t of bikeshed.matchAll(tables)) {
    const ops = [...t[1].matchAll(/MLGraphBuilder\/(\w+)\(/g)].map((m) => m[1]);
    if (ops.length === 0) throw new Error(`a tensor-limits table names no operator: ${t[1]}`);
    // A row ends at the next <tr> (HTML lets index.bs leave out a </tr>, as prelu's does).
    for (const r of t[2].split(/<tr>/).slice(1)) {
      const cells = [...r.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((m) => m[1].trim());
      if (cells.length === 0) continue;  // the header row
      if (cells.length !== 5) throw new Error(`a row of ${ops[0]}'s table has ${cells.length} cells`);
      for (const op of ops) rows.push([op, operandName(cells[0]), ranks(cells[3])]);
    }
  }
  if (rows.length === 0) throw new Error('no <table id=tensor-limits-...> found');
  return rows;
}

function main() {
  const [input, repo, commit, date, output] = process.argv.slice(2);
  if (!input || !repo || !commit || !date) {
    process.stderr.write('usage: extract-tensor-limits.mjs <index.bs> <repo> <commit> <date> [output]\n');
    process.exit(2);
  }
  const here = path.dirname(fileURLToPath(import.meta.url));
  const out = output ?? path.join(here, '..', 'test', 'data', 'tensor-limits.txt');
  const rows = extractTensorLimits(readFileSync(input, 'utf8'));
  const header = [
    '# The allowed ranks of each operand of each WebNN operator, extracted by',
    '# js/tools/extract-tensor-limits.mjs from the tensor-limits tables of index.bs. Do not edit;',
    '# re-run the tool.',
    `# Source: https://github.com/${repo} commit ${commit} (${date})`,
    '# Columns: operator, MLOpSupportLimits member, allowed ranks (MIN..MAX, N = any rank, or',
    '# "same OPERAND").',
    '',
  ].join('\n');
  const tmp = `${out}.tmp`;
  writeFileSync(tmp, header + rows.map((r) => r.join(' ')).join('\n') + '\n');
  renameSync(tmp, out);
  process.stdout.write(`${out}: ${rows.length} operands\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
