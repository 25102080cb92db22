// The JSON form (webnn-graph-json), read as wnn's src/wnn/format/json_graph.cc reads it, into
// the same graph description as the text form (graph.js).

import { LoaderError, raw, tableParamName } from './graph.js';
import { parseJson } from './json_value.js';
import { parseDataType } from './dtypes.js';

const INT64_MAX = (1n << 63n) - 1n;

function fail(message) {
  throw new LoaderError(message);
}

function get(obj, key) {
  if (obj.k !== 'object') return undefined;
  const e = obj.v.find(([k]) => k === key);
  return e ? e[1] : undefined;
}

function present(v) {
  return v !== undefined && v.k !== 'null';
}

function member(obj, key, kind, where) {
  if (obj.k !== 'object') fail(`${where}: expected an object`);
  const v = get(obj, key);
  if (v === undefined) fail(`${where}: missing "${key}"`);
  if (v.k !== kind) fail(`${where}: "${key}" has the wrong type (${v.k})`);
  return v;
}

function checkInts(v, where) {
  if (v.k === 'int' && v.v > INT64_MAX) fail(`${where}: integer ${v.v} does not fit in 64 bits`);
  if (v.k === 'list') for (const x of v.v) checkInts(x, where);
  if (v.k === 'object') for (const [, x] of v.v) checkInts(x, where);
  return v;
}

function jsonInt(v, where) {
  if (v.k !== 'int') fail(`${where}: expected an integer`);
  checkInts(v, where);
  return v.v;
}

function readType(j, where, allowDynamic) {
  const dt = member(j, 'dataType', 'string', where);
  const dataType = parseDataType(dt.v);
  if (!dataType) fail(`${where}: unknown dataType '${dt.v}'`);
  const type = { dataType, shape: [], dims: [] };
  let anyDynamic = false;
  for (const d of member(j, 'shape', 'list', where).v) {
    if (d.k === 'object') {
      if (!allowDynamic) fail(`${where}: dynamic dims are allowed on inputs only`);
      const name = member(d, 'name', 'string', where).v;
      const max = jsonInt(member(d, 'maxSize', 'int', where), where);
      if (max < 1n) fail(`${where}: dynamic dim '${name}' needs a maxSize of at least 1`);
      type.shape.push(Number(max));
      type.dims.push({ name, max: Number(max) });
      anyDynamic = true;
    } else {
      const x = jsonInt(d, where);
      if (x < 0n) fail(`${where}: dimension ${x} is negative`);
      type.shape.push(Number(x));
      type.dims.push(null);
    }
  }
  if (!anyDynamic) type.dims = [];
  return type;
}

function readConstant(name, j, where) {
  const c = { name, where, ...readType(j, where, false), init: 'weights', key: name };
  const init = get(j, 'init');
  if (!present(init)) return c;
  const kind = member(init, 'kind', 'string', where).v;
  if (kind === 'weights') {
    const ref = get(init, 'ref');
    if (ref !== undefined) {
      if (ref.k !== 'string') fail(`${where}: init.ref must be a string`);
      c.key = ref.v;
    }
  } else if (kind === 'scalar') {
    const v = get(init, 'value');
    if (v === undefined) fail(`${where}: scalar init needs a "value"`);
    delete c.key;
    c.init = 'scalar';
    if (v.k === 'int') {
      c.scalar = raw.int(jsonInt(v, where));
    } else if (v.k === 'float') {
      c.scalar = v;
    } else {
      const special = { inf: Infinity, Infinity, '-inf': -Infinity, '-Infinity': -Infinity, nan: NaN, NaN }[v.k === 'string' ? v.v : ''];
      if (special === undefined) fail(`${where}: scalar value is not a number`);
      c.scalar = raw.float(special);
    }
  } else if (kind === 'inlineBytes') {
    delete c.key;
    c.init = 'bytes';
    c.bytes = Uint8Array.from(member(init, 'bytes', 'list', where).v, (b) => {
      const x = jsonInt(b, where);
      if (x < 0n || x > 255n) fail(`${where}: inline byte ${x} is not in 0..255`);
      return Number(x);
    });
  } else {
    fail(`${where}: unknown init kind '${kind}' (expected weights, scalar or inlineBytes)`);
  }
  return c;
}

// Node `inputs` are the positional operands flat (an operand list spread out); a nested array is
// read as is. Strings are operand names.
function positionalOperands(schema, inputs, where) {
  const items = inputs.map((v) => {
    if (v.k === 'string') return raw.name(v.v);
    if (v.k === 'list') {
      return raw.list(v.v.map((x) => {
        if (x.k !== 'string') fail(`${where}: inputs hold operand names`);
        return raw.name(x.v);
      }));
    }
    return fail(`${where}: inputs hold operand names, got ${v.k}`);
  });
  if (!schema) return items;
  let operandSlots = 0;
  let listSlot = -1;
  for (const a of schema.args) {
    if (a.kind === 'operand') ++operandSlots;
    if (a.kind === 'operand list') listSlot = operandSlots++;
  }
  if (listSlot < 0 || items.some((r) => r.k === 'list')) return items;
  const singles = operandSlots - 1;
  if (items.length < singles) fail(`${where}: ${schema.name} needs at least ${singles} inputs, got ${items.length}`);
  const listSize = items.length - singles;
  return [...items.slice(0, listSlot), raw.list(items.slice(listSlot, listSlot + listSize)),
    ...items.slice(listSlot + listSize)];
}

// Option values keep their JSON type; strings stay strings (enum values, data types, operand
// names: which one is decided by the operator's parameter kind when building).
function readNode(j, where, operators) {
  const op = member(j, 'op', 'string', where).v;
  const node = { op, outputs: [], args: [], where: '' };
  const outputs = get(j, 'outputs');
  if (present(outputs)) {
    if (outputs.k !== 'list') fail(`${where}: "outputs" must be null or a list of names`);
    for (const o of outputs.v) {
      if (o.k !== 'string') fail(`${where}: output names are strings`);
      node.outputs.push(o.v);
    }
  } else {
    node.outputs.push(member(j, 'id', 'string', where).v);
  }
  const label = `${where}: node '${node.outputs[0] ?? ''}'`;
  node.where = label;
  const inputs = get(j, 'inputs');
  if (present(inputs)) {
    if (inputs.k !== 'list') fail(`${label}: "inputs" must be a list`);
    for (const v of positionalOperands(operators[op], inputs.v, label)) {
      node.args.push({ name: '', value: v, where: `${label}: inputs` });
    }
  }
  const options = get(j, 'options');
  if (present(options)) {
    if (options.k !== 'object') fail(`${label}: "options" must be an object`);
    for (const [key, value] of options.v) {
      const name = tableParamName(operators, op, key);  // cast's type=, older spellings
      node.args.push({ name, value: checkInts(value, `${label}: options.${key}`), where: `${label}: options.${key}` });
    }
  }
  return node;
}

export function parseJsonGraph(bytes, file, operators) {
  const doc = parseJson(bytes, file, 64);
  if (doc.k !== 'object') fail(`${file}: a webnn-graph-json file is an object`);
  const format = get(doc, 'format');
  if (!format || format.k !== 'string' || format.v !== 'webnn-graph-json') {
    fail(`${file}: "format" must be "webnn-graph-json"`);
  }
  const version = get(doc, 'version');
  if (version !== undefined && !(version.k === 'int' && (version.v === 1n || version.v === 2n))) {
    fail(`${file}: unsupported version (wnn reads 1 and 2)`);
  }
  const graph = { name: '', version: version ? Number(version.v) : 1, quantized: false, inputs: [], consts: [], nodes: [], outputs: [], where: file };
  const name = get(doc, 'name');
  if (name && name.k === 'string') graph.name = name.v;
  const q = get(doc, 'quantized');
  if (present(q)) {
    if (q.k !== 'bool') fail(`${file}: "quantized" must be true or false`);
    graph.quantized = q.v;
  }
  const section = (key, kind, shape) => {
    const s = get(doc, key);
    if (!present(s)) return [];
    if (s.k !== kind) fail(`${file}: "${key}" must be ${shape}`);
    return s.v;
  };
  for (const [n, desc] of section('inputs', 'object', 'an object')) {
    const where = `${file}: input '${n}'`;
    graph.inputs.push({ name: n, ...readType(desc, where, true), where });
  }
  for (const [n, desc] of section('consts', 'object', 'an object')) {
    graph.consts.push(readConstant(n, desc, `${file}: const '${n}'`));
  }
  section('nodes', 'list', 'a list').forEach((n, i) => graph.nodes.push(readNode(n, `${file}: nodes[${i}]`, operators)));
  for (const [out, operand] of section('outputs', 'object', 'an object {"name": "operand"}')) {
    const where = `${file}: outputs.${out}`;
    if (operand.k !== 'string') fail(`${where}: expected an operand name`);
    graph.outputs.push({ name: out, operand: operand.v, where });
  }
  if (graph.outputs.length === 0) fail(`${file}: the graph has no outputs`);
  return graph;
}
