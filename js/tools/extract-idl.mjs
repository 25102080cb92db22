#!/usr/bin/env node
// Extracts the WebIDL of the WebNN specification (the <script type=idl> blocks of
// webmachinelearning/webnn's index.bs) into js/test/data/webnn.idl, the copy the IDL coverage
// test reads. Refresh: node tools/extract-idl.mjs <index.bs> <repo> <commit> <date> [output]
//   e.g. git --git-dir=<webnn>/.git show HEAD:index.bs > /tmp/index.bs
//        node tools/extract-idl.mjs /tmp/index.bs webmachinelearning/webnn \
//          "$(git --git-dir=<webnn>/.git log -1 --format=%H)" \
//          "$(git --git-dir=<webnn>/.git log -1 --format=%cI)"
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export function extractIdl(bikeshed) {
  // Bikeshed marks IDL as <script type=idl> (quoted or not); <pre class=idl> is the older form.
  const re = /<script\s+type=["']?idl["']?[^>]*>([\s\S]*?)<\/script>|<pre\s+class=["']?idl["']?[^>]*>([\s\S]*?)<\/pre>/g;
  const blocks = [];
  for (const m of bikeshed.matchAll(re)) blocks.push((m[1] ?? m[2]).replace(/^\n+|\s+$/g, ''));
  if (blocks.length === 0) throw new Error('no <script type=idl> or <pre class=idl> block found');
  return blocks;
}

function main() {
  const [input, repo, commit, date, output] = process.argv.slice(2);
  if (!input || !repo || !commit || !date) {
    process.stderr.write('usage: extract-idl.mjs <index.bs> <repo> <commit> <date> [output]\n');
    process.exit(2);
  }
  const here = path.dirname(fileURLToPath(import.meta.url));
  const out = output ?? path.join(here, '..', 'test', 'data', 'webnn.idl');
  const blocks = extractIdl(readFileSync(input, 'utf8'));
  const header = [
    '// The WebIDL of the WebNN specification, extracted by js/tools/extract-idl.mjs from the',
    `// ${blocks.length} <script type=idl> blocks of index.bs. Do not edit; re-run the tool.`,
    `// Source: https://github.com/${repo} commit ${commit} (${date})`,
    '',
    '',
  ].join('\n');
  const tmp = `${out}.tmp`;
  writeFileSync(tmp, header + blocks.join('\n\n') + '\n');
  renameSync(tmp, out);
  process.stdout.write(`${out}: ${blocks.length} blocks\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
