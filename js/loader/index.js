// wnn's graph loader for JavaScript: reads a .webnn graph (text or webnn-graph-json) and its
// Safetensors weights and builds it through the standard WebNN MLGraphBuilder API. Standard JS
// only (no Node built-ins, no dependencies): it runs in Node on wnn's addon and in browsers on
// navigator.ml. docs/javascript.md, "Loader", documents it.
//
//   import { loadGraph } from '<checkout>/js/loader/index.js';
//   const { graph, inputs, outputs } = await loadGraph(context, webnnText, safetensorsBuffer,
//                                                      { dims: { batch: 1 } });

import { LoaderError } from './graph.js';
import { parseText } from './text.js';
import { parseJsonGraph } from './json_graph.js';
import { SafetensorsArchive } from './safetensors.js';
import { buildGraph } from './build.js';
import { OPERATORS } from './operators.js';

export { LoaderError } from './graph.js';
export { SafetensorsArchive } from './safetensors.js';
export { nameTokenLength, isValidOperandName } from './names.js';
export { OPERATORS } from './operators.js';

const encoder = new TextEncoder();

function bytesOf(source, what) {
  if (typeof source === 'string') return encoder.encode(source);
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  throw new LoaderError(`${what}: expected a string, an ArrayBuffer or a typed array`);
}

// Whether a graph file is JSON: its first significant byte (after whitespace, a UTF-8 byte
// order mark, '#' and '//' comments) is '{'.
export function isJsonGraph(bytes) {
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length) {
    const c = bytes[i];
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0c || c === 0x0b) {
      ++i;
    } else if (c === 0x23 || (c === 0x2f && bytes[i + 1] === 0x2f)) {
      while (i < bytes.length && bytes[i] !== 0x0a) ++i;
    } else {
      return c === 0x7b;
    }
  }
  return false;
}

// Parses a graph file (string, ArrayBuffer or typed array of UTF-8) into the loader's graph
// description (graph.js) without building it. options.fileName names it in errors.
export function parseGraph(source, options = {}) {
  const file = options.fileName ?? 'graph.webnn';
  const operators = options.operators ?? OPERATORS;
  const bytes = bytesOf(source, file);
  return isJsonGraph(bytes) ? parseJsonGraph(bytes, file, operators) : parseText(bytes, file, operators);
}

function builderClass(context, options) {
  const B = options.MLGraphBuilder ?? globalThis.MLGraphBuilder;
  if (typeof B !== 'function') {
    throw new LoaderError('no MLGraphBuilder: pass options.MLGraphBuilder (in Node: require(\'<checkout>/js\').MLGraphBuilder), or run where the global MLGraphBuilder exists');
  }
  return B;
}

// Loads a graph and its weights and builds it on `context`.
//   source:  the .webnn text or webnn-graph-json (string, ArrayBuffer or typed array)
//   weights: the .safetensors file (ArrayBuffer or typed array), or null for a graph without
//            @weights constants
//   options: MLGraphBuilder  the builder class (default: the global MLGraphBuilder)
//            dims            {name: size} for dyn("name", max) input dims; a dim not given
//                            takes its max, as `wnn run` does
//            int4Layout      'packed' (two per byte, as .webnn files hold them) or 'unpacked' (one per
//                            byte); by default asked of the context once, when needed
//            fileName, weightsFileName   names used in error messages
//            operators       the operator table (default: operators.js, wnn's table)
// Returns {graph: MLGraph, inputs: {name: {dataType, shape}}, outputs: {name: {dataType, shape}}}.
export async function loadGraph(context, source, weights, options = {}) {
  const parsed = parseGraph(source, options);
  const Builder = builderClass(context, options);
  const archive = weights === null || weights === undefined ? null
    : weights instanceof SafetensorsArchive ? weights
      : new SafetensorsArchive(weights, options.weightsFileName ?? 'weights.safetensors');
  if (options.int4Layout !== undefined && !['packed', 'unpacked'].includes(options.int4Layout)) {
    throw new LoaderError(`options.int4Layout must be 'packed' or 'unpacked', got '${options.int4Layout}'`);
  }
  return buildGraph(parsed, {
    context, Builder, weights: archive, operators: options.operators ?? OPERATORS,
    dims: options.dims ?? {}, int4Layout: options.int4Layout,
  });
}
