// Builds a parsed graph description (graph.js) through the standard MLGraphBuilder API, node by
// node, mirroring how wnn's GraphBuilder::add maps a call onto an operator (src/wnn/core/
// builder.cc): positional arguments fill the operator's positional parameters in order, named
// ones are found among all its parameters, null means absent, and each value is converted to
// what the WebNN JS API takes for the parameter's kind (data types by their WebNN name, enum
// strings checked, operands by name, 64-bit integers beyond 2^53 as BigInt).

import { LoaderError, rawToText } from './graph.js';
import { parseDataType, elementCount, isFourBit, storageBytes, toHalfBits } from './dtypes.js';

const MAX_NAME_BYTES = 4096;
const encoder = new TextEncoder();

function editDistance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; ++j) d[0][j] = j;
  for (let i = 1; i <= a.length; ++i) {
    for (let j = 1; j <= b.length; ++j) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return d[a.length][b.length];
}

// The candidate closest to `word`, or '' when none is close (wnn's closest_name).
export function closestName(word, candidates) {
  let best = '', bestD = Infinity;
  for (const c of candidates) {
    let d = editDistance(word, c);
    if (word.length >= 3 && c.length >= 3 && word.slice(0, 3) === c.slice(0, 3)) d = Math.min(d, 2);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return bestD <= Math.max(2, Math.floor(word.length / 3)) ? best : '';
}

const SPECIAL_FLOATS = { inf: Infinity, Infinity, '+inf': Infinity, '-inf': -Infinity, '-Infinity': -Infinity, nan: NaN, NaN };

function text(r) {
  return r.k === 'string' || r.k === 'name' ? r.v : null;
}

function kindName(r) {
  return { null: 'null', bool: 'a boolean', int: 'an integer', float: 'a float', string: 'a string', name: 'a name', list: 'a list', object: 'an object' }[r.k];
}

// A JS number for a 64-bit integer when it is exact, else a BigInt.
function jsInteger(v) {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

class Converter {
  constructor(operands) {
    this.operands = operands;  // name -> MLOperand
  }

  operand(r) {
    const name = text(r);
    if (name === null) throw new LoaderError(`expected an operand, got ${kindName(r)}`);
    const o = this.operands.get(name);
    if (!o) throw new LoaderError(`'${name}' is not defined before its use`);
    return o;
  }

  integer(r) {
    if (r.k === 'int') return jsInteger(r.v);
    if (r.k === 'float' && Number.isFinite(r.v) && Number.isInteger(r.v)) return r.v;
    throw new LoaderError(`expected an integer, got ${r.k === 'float' ? r.v : kindName(r)}`);
  }

  number(r) {
    if (r.k === 'int') return jsInteger(r.v);
    if (r.k === 'float') return r.v;
    const s = text(r);
    if (s !== null && Object.hasOwn(SPECIAL_FLOATS, s)) return SPECIAL_FLOATS[s];
    throw new LoaderError(`expected a number, got ${kindName(r)}`);
  }

  list(r, what, each) {
    if (r.k !== 'list') throw new LoaderError(`expected a list of ${what}, got ${kindName(r)}`);
    return r.v.map(each);
  }

  enumValue(r, p) {
    const s = text(r);
    if (s === null) throw new LoaderError(`expected one of ${p.enumValues.join(', ')}, got ${kindName(r)}`);
    if (!p.enumValues.includes(s)) throw new LoaderError(`'${s}' is not one of ${p.enumValues.join(', ')}`);
    return s;
  }

  convert(r, p) {
    switch (p.kind) {
      case 'operand': return this.operand(r);
      case 'operand list': return this.list(r, 'operands', (x) => this.operand(x));
      case 'boolean':
        if (r.k !== 'bool') throw new LoaderError(`expected true or false, got ${kindName(r)}`);
        return r.v;
      case 'integer': return this.integer(r);
      case 'number': return this.number(r);
      case 'integer list': return this.list(r, 'integers', (x) => this.integer(x));
      case 'number list': return this.list(r, 'numbers', (x) => { const n = this.number(x); return typeof n === 'bigint' ? Number(n) : n; });
      case 'integer or integer list': return r.k === 'list' ? this.list(r, 'integers', (x) => this.integer(x)) : this.integer(r);
      case 'enum': return this.enumValue(r, p);
      case 'enum list': return this.list(r, 'enum values', (x) => this.enumValue(x, p));
      case 'data type': {
        const s = text(r);
        if (s === null) throw new LoaderError(`expected a data type, got ${kindName(r)}`);
        const t = parseDataType(s);
        if (!t) throw new LoaderError(`unknown data type '${s}'`);
        return t;
      }
      case 'string':
        if (r.k !== 'string') throw new LoaderError(`expected a string, got ${kindName(r)}`);
        return r.v;
      default:
        throw new LoaderError(`parameter '${p.name}' has a kind the loader does not know (${p.kind})`);
    }
  }
}

function withContext(where, fn) {
  try {
    return fn();
  } catch (e) {
    const message = e && e.message !== undefined ? e.message : String(e);
    const err = new LoaderError(where ? `${where}: ${message}` : message);
    err.cause = e;
    throw err;
  }
}

function checkNewName(names, name) {
  const n = encoder.encode(name).length;
  if (n < 1 || n > MAX_NAME_BYTES) throw new LoaderError(`operand names must have 1 to ${MAX_NAME_BYTES} bytes`);
  for (let i = 0; i < name.length; ++i) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) throw new LoaderError(`operand name '${name}' holds a control character`);
  }
  if (names.has(name)) throw new LoaderError(`'${name}' is defined twice`);
}

// The arguments of one node as the JS call takes them: [positional..., options].
export function callArguments(node, schema, convert) {
  const params = [...schema.args, ...schema.options];
  const values = new Array(params.length);
  let nextPositional = 0;
  for (const a of node.args) {
    let index;
    if (a.name === '') {
      if (nextPositional >= schema.args.length) {
        throw new LoaderError(`${a.where}: too many positional arguments (${schema.name} takes ${schema.args.length})`);
      }
      index = nextPositional++;
    } else {
      index = params.findIndex((p) => p.name === a.name);
      if (index < 0) {
        const near = closestName(a.name, params.map((p) => p.name));
        throw new LoaderError(near ? `${a.where}: unknown option '${a.name}' (did you mean '${near}'?)`
          : `${a.where}: unknown option '${a.name}'; ${schema.name} takes: ${params.map((p) => p.name).join(', ')}`);
      }
    }
    const p = params[index];
    withContext(`${a.where}: argument '${p.name}'`, () => {
      if (values[index] !== undefined) throw new LoaderError('given twice');
      if (a.value.k === 'null') {
        if (index < schema.args.length) throw new LoaderError('null is not a value for a required argument');
        return;
      }
      values[index] = convert(a.value, p);
    });
  }
  schema.args.forEach((p, i) => {
    if (values[i] === undefined) throw new LoaderError(`missing required argument '${p.name}'`);
  });
  const options = {};
  schema.options.forEach((p, i) => {
    const v = values[schema.args.length + i];
    if (v !== undefined) options[p.name] = v;
  });
  return [...values.slice(0, schema.args.length), options];
}

// int4/uint4: the storage form holds two elements per byte; `layout` 'unpacked' gives one
// element per byte (int4 sign-extended), which wnn's Node addon takes.
function fourBitBytes(dataType, packed, count, layout) {
  if (layout === 'packed') return packed;
  const out = new Uint8Array(count);
  for (let i = 0; i < count; ++i) {
    const nib = (packed[i >> 1] >> ((i & 1) * 4)) & 0xf;
    out[i] = dataType === 'int4' && nib >= 8 ? nib | 0xf0 : nib;
  }
  return out;
}

// The ArrayBufferView type the WebNN spec pairs with each data type; constant() takes the
// bytes in it. 4-bit data: a Uint8Array when packed (two per byte), an Int8Array of
// sign-extended int4 when one per byte.
const VIEW_TYPES = {
  float32: Float32Array, float16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array, int8: Int8Array, uint8: Uint8Array,
};

function viewFor(dataType, bytes, layout) {
  const T = isFourBit(dataType) ? (layout === 'unpacked' && dataType === 'int4' ? Int8Array : Uint8Array)
    : VIEW_TYPES[dataType];
  const own = bytes.byteOffset % T.BYTES_PER_ELEMENT === 0 ? bytes : bytes.slice();
  return new T(own.buffer, own.byteOffset, own.byteLength / T.BYTES_PER_ELEMENT);
}

function toInt64(v) {
  if (Number.isNaN(v)) return 0n;
  if (v <= -9223372036854775808) return -(1n << 63n);
  if (v >= 9223372036854775808) return (1n << 63n) - 1n;
  return BigInt(Math.trunc(v));
}

// The storage bytes of a @scalar constant: the value converted as wnn's store_double does
// (integers exact for 64-bit types, else through double; NaN -> 0 and saturation for integers,
// then the type's own wrap-around).
export function scalarFill(dataType, shape, scalar) {
  const n = elementCount(shape);
  const out = new Uint8Array(storageBytes(dataType, n));
  const dv = new DataView(out.buffer);
  const d = scalar.k === 'int' ? Number(scalar.v) : scalar.v;
  const exact64 = scalar.k === 'int' && (dataType === 'int64' || dataType === 'uint64');
  const i64 = exact64 ? scalar.v : toInt64(d);
  let write;
  switch (dataType) {
    case 'float32': write = (i) => dv.setFloat32(4 * i, d, true); break;
    case 'float16': { const h = toHalfBits(d); write = (i) => dv.setUint16(2 * i, h, true); break; }
    case 'int32': write = (i) => dv.setInt32(4 * i, Number(BigInt.asIntN(32, i64)), true); break;
    case 'uint32': write = (i) => dv.setUint32(4 * i, Number(BigInt.asUintN(32, i64)), true); break;
    case 'int64': write = (i) => dv.setBigInt64(8 * i, i64, true); break;
    case 'uint64': {
      const u = exact64 ? BigInt.asUintN(64, i64) : d < 0 ? BigInt.asUintN(64, toInt64(d))
        : Number.isNaN(d) || d <= 0 ? 0n : d >= 18446744073709551616 ? (1n << 64n) - 1n : BigInt(Math.trunc(d));
      write = (i) => dv.setBigUint64(8 * i, u, true);
      break;
    }
    case 'int8': write = (i) => dv.setInt8(i, Number(BigInt.asIntN(8, i64))); break;
    case 'uint8': write = (i) => dv.setUint8(i, Number(BigInt.asUintN(8, i64))); break;
    case 'int4': case 'uint4': {
      const nib = Number(i64 & 0xfn);
      out.fill(nib | (nib << 4));
      if (n % 2) out[out.length - 1] = nib;
      return out;
    }
    default: throw new LoaderError(`unknown data type ${dataType}`);
  }
  for (let i = 0; i < n; ++i) write(i);
  return out;
}

// Which int4/uint4 buffer size a builder takes: the WebNN spec packs two elements per byte;
// wnn's Node addon takes one per byte. Asked of a throwaway builder on the same context.
function probeFourBitLayout(Builder, context, dataType) {
  const tryLayout = (bytes) => {
    try {
      new Builder(context).constant({ dataType, shape: [2] }, new Uint8Array(bytes));
      return true;
    } catch {
      return false;
    }
  };
  if (tryLayout(1)) return 'packed';
  if (tryLayout(2)) return 'unpacked';
  throw new LoaderError(`this MLContext does not take ${dataType} constants`);
}

export function resolveInputShape(input, dims) {
  if (input.dims.length === 0) return input.shape;
  return input.shape.map((d, i) => {
    const dyn = input.dims[i];
    if (!dyn) return d;
    if (!Object.hasOwn(dims, dyn.name)) return dyn.max;  // as wnn: the maximum
    const v = Number(dims[dyn.name]);
    if (!Number.isInteger(v) || v < 1 || v > dyn.max) {
      throw new LoaderError(`${input.where}: dynamic dim '${dyn.name}' (input '${input.name}', dim ${i}) must be in [1, ${dyn.max}], got ${dims[dyn.name]}`);
    }
    return v;
  });
}

// Builds `graph` on `context` with `Builder` (an MLGraphBuilder class). `weights`: a
// SafetensorsArchive or null. Returns {graph, inputs, outputs}.
export async function buildGraph(graph, { context, Builder, weights, operators, dims = {}, int4Layout }) {
  const known = new Set();
  for (const input of graph.inputs) for (const d of input.dims) if (d) known.add(d.name);
  for (const name of Object.keys(dims)) {
    if (!known.has(name)) {
      throw new LoaderError(`options.dims: the graph has no dynamic dim named '${name}'${known.size ? ` (it has ${[...known].join(', ')})` : ''}`);
    }
  }
  const builder = new Builder(context);
  const operands = new Map();
  const kinds = new Map();  // name -> 'input' | 'constant' | 'node'
  const inputs = {};
  for (const input of graph.inputs) {
    withContext(input.where, () => {
      checkNewName(operands, input.name);
      const shape = resolveInputShape(input, dims);
      operands.set(input.name, builder.input(input.name, { dataType: input.dataType, shape }));
      kinds.set(input.name, 'input');
      inputs[input.name] = { dataType: input.dataType, shape };
    });
  }
  let layout = int4Layout;
  for (const c of graph.consts) {
    withContext(`${c.where}: constant '${c.name}'`, () => {
      checkNewName(operands, c.name);
      const n = elementCount(c.shape);
      let bytes;
      if (c.init === 'scalar') {
        bytes = scalarFill(c.dataType, c.shape, c.scalar);
      } else if (c.init === 'bytes') {
        const want = storageBytes(c.dataType, n);
        if (c.bytes.length !== want) {
          throw new LoaderError(`@bytes of a ${c.dataType}[${c.shape.join(', ')}] constant needs ${want} bytes, got ${c.bytes.length}`);
        }
        bytes = c.bytes;
      } else {
        if (!weights) throw new LoaderError(`@weights("${c.key}") needs a weights file, and none was given`);
        bytes = weights.load(c.key, c);
      }
      if (isFourBit(c.dataType)) {
        if (!layout) layout = probeFourBitLayout(Builder, context, c.dataType);
        bytes = fourBitBytes(c.dataType, bytes, n, layout);
      }
      operands.set(c.name, builder.constant({ dataType: c.dataType, shape: c.shape }, viewFor(c.dataType, bytes, layout)));
      kinds.set(c.name, 'constant');
    });
  }
  const converter = new Converter(operands);
  const convert = (r, p) => converter.convert(r, p);
  for (const node of graph.nodes) {
    const label = `${node.where}: ${node.op} '${node.outputs[0] ?? ''}'`;
    withContext(label, () => {
      const schema = Object.hasOwn(operators, node.op) ? operators[node.op] : null;
      if (!schema) {
        const near = closestName(node.op, Object.keys(operators));
        throw new LoaderError(near ? `unknown operator '${node.op}' (did you mean '${near}'?)` : `unknown operator '${node.op}'`);
      }
      if (typeof builder[node.op] !== 'function') {
        throw new LoaderError(`this MLGraphBuilder has no method ${node.op}`);
      }
      const args = callArguments(node, schema, convert);
      const result = builder[node.op](...args);
      const results = Array.isArray(result) ? result : [result];
      if (results.length !== node.outputs.length) {
        throw new LoaderError(`${node.outputs.length} output names given, ${node.op} produces ${results.length}`);
      }
      node.outputs.forEach((name, i) => {
        checkNewName(operands, name);
        if (node.outputs.indexOf(name) !== i) throw new LoaderError(`output '${name}' named twice`);
      });
      node.outputs.forEach((name, i) => {
        operands.set(name, results[i]);
        kinds.set(name, 'node');
      });
    });
  }
  const record = {};
  const outputs = {};
  for (const out of graph.outputs) {
    withContext(out.where, () => {
      let o = operands.get(out.operand);
      if (!o) throw new LoaderError(`output '${out.operand}' names nothing defined in the graph`);
      if (Object.hasOwn(record, out.name)) throw new LoaderError(`output '${out.name}' is listed twice`);
      if (out.name !== out.operand && operands.has(out.name)) checkNewName(operands, out.name);
      // build() takes operators' results only: an input or constant listed as an output is
      // passed through identity, as wnn's JSON reader does for a renamed output.
      if (kinds.get(out.operand) !== 'node') o = builder.identity(o);
      record[out.name] = o;
      outputs[out.name] = { dataType: o.dataType, shape: [...o.shape] };
    });
  }
  let built;
  try {
    built = await builder.build(record);
  } catch (e) {
    const err = new LoaderError(`${graph.where}: build: ${e.message}`);
    err.cause = e;
    throw err;
  }
  return { graph: built, inputs, outputs };
}
