// The loader's description of a parsed graph, shared by the text and JSON readers:
//   {name, version, quantized,
//    inputs:  [{name, dataType, shape, dims, where}]   dims: [] or one {name, max} | null per dim
//    consts:  [{name, dataType, shape, init: 'weights' | 'scalar' | 'bytes', key | scalar | bytes, where}]
//    nodes:   [{op, outputs: [name...], args: [{name: '' (positional) | param, value, where}], where}]
//    outputs: [{name, operand, where}]}
// Values are tagged like wnn's RawValue ({k: 'int', v: BigInt}, 'float', 'string', 'name',
// 'bool', 'null', 'list', 'object'), so integers keep 64 bits and names stay distinct from strings.

export class LoaderError extends Error {
  constructor(message) {
    super(message);
    this.name = 'LoaderError';
  }
}

export const raw = {
  null: () => ({ k: 'null' }),
  bool: (v) => ({ k: 'bool', v }),
  int: (v) => ({ k: 'int', v }),
  float: (v) => ({ k: 'float', v }),
  string: (v) => ({ k: 'string', v }),
  name: (v) => ({ k: 'name', v }),
  list: (v) => ({ k: 'list', v }),
  object: (v) => ({ k: 'object', v }),
};

// A value as written, for messages: `[1, 8]`, `"nchw"`, `x`.
export function rawToText(r) {
  switch (r.k) {
    case 'null': return 'null';
    case 'bool': return String(r.v);
    case 'int': return r.v.toString();
    case 'float': return Number.isNaN(r.v) ? 'nan' : r.v === Infinity ? 'inf' : r.v === -Infinity ? '-inf' : String(r.v);
    case 'string': return `"${r.v}"`;
    case 'name': return r.v;
    case 'list': return `[${r.v.map(rawToText).join(', ')}]`;
    case 'object': return `{${r.v.map(([k, x]) => `${k}: ${rawToText(x)}`).join(', ')}}`;
    default: return 'value';
  }
}

// A name, or a list of names only.
export function isOperandReference(r) {
  return r.k === 'name' || (r.k === 'list' && r.v.every((x) => x.k === 'name'));
}

// The operator table's name of a parameter a file spells `name` (cast's `type=` and `to=` are
// the table's `dataType`): operators.js carries wnn's spelling table.
export function tableParamName(operators, op, name) {
  const spellings = Object.hasOwn(operators, op) ? operators[op].spellings : undefined;
  return spellings && Object.hasOwn(spellings, name) ? spellings[name] : name;
}
