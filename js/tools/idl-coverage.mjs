#!/usr/bin/env node
// Measures how much of the WebNN spec's IDL (test/data/webnn.idl) the JS API implements, item by
// item, by looking at the live objects: every interface, operation, attribute, dictionary member
// and enum value is one item that passes only when the implementation behaves as the IDL says.
// test/idl.test.mjs fails below 100%; `node tools/idl-coverage.mjs [--markdown]` prints the
// table docs/javascript.md shows.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const webidl2 = require('webidl2');

export const IDL_FILE = path.join(here, '..', 'test', 'data', 'webnn.idl');

// ---- the IDL, with partials merged ----

export function loadIdl(file = IDL_FILE) {
  const tree = webidl2.parse(readFileSync(file, 'utf8'));
  const interfaces = new Map();
  const dictionaries = new Map();
  const enums = new Map();
  const typedefs = new Map();
  const mixins = new Map();
  for (const d of tree) {
    if (d.type === 'interface' || d.type === 'interface mixin') {
      const map = d.type === 'interface' ? interfaces : mixins;
      if (!map.has(d.name)) map.set(d.name, { name: d.name, members: [] });
      map.get(d.name).members.push(...d.members);
    } else if (d.type === 'dictionary') {
      if (!dictionaries.has(d.name)) dictionaries.set(d.name, { name: d.name, inheritance: null, members: [] });
      const dict = dictionaries.get(d.name);
      if (d.inheritance) dict.inheritance = d.inheritance;
      dict.members.push(...d.members);
    } else if (d.type === 'enum') {
      enums.set(d.name, d.values.map((v) => v.value));
    } else if (d.type === 'typedef') {
      typedefs.set(d.name, d.idlType);
    }
  }
  return { interfaces, dictionaries, enums, typedefs, mixins };
}

// Every member of a dictionary, inherited ones first.
export function dictionaryMembers(idl, name) {
  const d = idl.dictionaries.get(name);
  if (!d) return [];
  return [...(d.inheritance ? dictionaryMembers(idl, d.inheritance) : []), ...d.members];
}

// The JS `length` of an operation: the fewest required arguments over its overloads.
export function operationLength(overloads) {
  return Math.min(...overloads.map((o) => o.arguments.filter((a) => !a.optional && !a.variadic).length));
}

export function typeName(idlType) {
  if (typeof idlType.idlType === 'string') return idlType.idlType;
  if (idlType.union) return `(${idlType.idlType.map(typeName).join(' or ')})`;
  return `${idlType.generic}<${idlType.idlType.map(typeName).join(', ')}>`;
}

// The ParamKind names (schema.cc's param_kind_name) an IDL type may be declared with.
export function kindsFor(idl, idlType) {
  let t = idlType;
  while (typeof t.idlType === 'string' && idl.typedefs.has(t.idlType)) t = idl.typedefs.get(t.idlType);
  const name = typeName(t);
  if (name === 'MLOperand') return ['operand'];
  if (name === 'sequence<MLOperand>') return ['operand list'];
  if (name === 'boolean') return ['boolean'];
  if (/^(unsigned )?long( long)?$/.test(name)) return ['integer'];
  if (/^(unrestricted )?(double|float)$/.test(name)) return ['number'];
  if (name === '(bigint or unrestricted double)') return ['number'];
  if (/^sequence<(unsigned )?long( long)?>$/.test(name)) return ['integer list'];
  if (/^sequence<(unrestricted )?(double|float)>$/.test(name)) return ['number list'];
  if (/^\(unsigned long or sequence<unsigned long>\)$/.test(name)) return ['integer or integer list'];
  if (name === 'MLOperandDataType') return ['data type'];
  if (idl.enums.has(name)) return ['enum'];
  if (/^sequence<(\w+)>$/.test(name) && idl.enums.has(name.slice(9, -1))) return ['enum list'];
  if (/^(USV|DOM)String$/.test(name)) return ['string'];
  return [];
}

// ---- checks ----

// An object that records which members a dictionary conversion reads.
function spy(target = {}) {
  const read = new Set();
  const proxy = new Proxy(target, {
    get(t, key, recv) {
      if (typeof key === 'string') read.add(key);
      return Reflect.get(t, key, recv);
    },
  });
  return { proxy, read };
}

async function rejects(fn) {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  return null;
}

function isTypeError(e) {
  return e instanceof TypeError;
}

// A call of `op` with arguments that pass the positional type checks, so the options are read.
function fillerArgs(schema, x) {
  return schema.args.map((p) => {
    switch (p.kind) {
      case 'operand': return x;
      case 'operand list': return [x];
      case 'integer list': case 'number list': return [];
      case 'enum': return p.enumValues[0];
      case 'enum list': return [];
      case 'data type': return 'float32';
      case 'boolean': return false;
      case 'string': return '';
      default: return 0;
    }
  });
}

// One valid call per enum, taking the value under test; a value the enum lacks must throw a
// TypeError from the same call.
function enumUses(wnn) {
  const f32 = (b, shape, name = 'x') => b.input(name, { dataType: 'float32', shape });
  const ctx = () => wnn.ml.createContext();
  const builder = async () => new wnn.MLGraphBuilder(await ctx());
  const gru = (b, options) => {
    const dirs = options.direction === 'both' ? 2 : 1;
    return b.gru(f32(b, [1, 1, 2]), f32(b, [dirs, 6, 2], 'w'), f32(b, [dirs, 6, 2], 'r'), 1, 2, options);
  };
  return {
    MLPowerPreference: async (v) => wnn.ml.createContext({ powerPreference: v }),
    MLOperandDataType: async (v) => {
      const o = (await builder()).input('x', { dataType: v, shape: [2] });
      if (o.dataType !== v) throw new Error(`input: dataType reads back as ${o.dataType}`);
    },
    MLInputOperandLayout: async (v) => {
      const b = await builder();
      const shape = v === 'nchw' ? [1, 1, 3, 3] : [1, 3, 3, 1];
      const o = b.averagePool2d(f32(b, shape), { layout: v, windowDimensions: [3, 1] });
      const want = v === 'nchw' ? [1, 1, 1, 3] : [1, 1, 3, 1];
      if (o.shape.join() !== want.join()) throw new Error(`averagePool2d: shape ${o.shape}, expected ${want}`);
    },
    MLConv2dFilterOperandLayout: async (v) => {
      const b = await builder();
      b.conv2d(f32(b, [1, 1, 3, 3]), f32(b, [1, 1, 1, 1], 'w'), { filterLayout: v });
    },
    MLConvTranspose2dFilterOperandLayout: async (v) => {
      const b = await builder();
      b.convTranspose2d(f32(b, [1, 1, 3, 3]), f32(b, [1, 1, 1, 1], 'w'), { filterLayout: v });
    },
    MLRoundingType: async (v) => {
      const b = await builder();
      const o = b.maxPool2d(f32(b, [1, 1, 4, 4]), { windowDimensions: [3, 3], strides: [2, 2], outputShapeRounding: v });
      const want = v === 'ceil' ? 2 : 1;
      if (o.shape[2] !== want) throw new Error(`maxPool2d: height ${o.shape[2]}, expected ${want}`);
    },
    MLPaddingMode: async (v) => {
      const b = await builder();
      b.pad(f32(b, [2, 3]), [1, 1], [1, 1], { mode: v });
    },
    MLInterpolationMode: async (v) => {
      const b = await builder();
      b.resample2d(f32(b, [1, 1, 2, 2]), { mode: v, scales: [2, 2] });
    },
    MLRecurrentNetworkActivation: async (v) => {
      const b = await builder();
      const r = gru(b, { activations: [v, v] });
      if (!Array.isArray(r)) throw new Error('gru: the result is not a sequence');
    },
    MLRecurrentNetworkDirection: async (v) => {
      const b = await builder();
      gru(b, { direction: v });
    },
    MLGruWeightLayout: async (v) => {
      const b = await builder();
      gru(b, { layout: v });
    },
    MLLstmWeightLayout: async (v) => {
      const b = await builder();
      const r = b.lstm(f32(b, [1, 1, 2]), f32(b, [1, 8, 2], 'w'), f32(b, [1, 8, 2], 'r'), 1, 2, { layout: v });
      if (!Array.isArray(r) || r.length !== 2) throw new Error('lstm: expected a sequence of 2 operands');
    },
  };
}

// The dictionaries the implementation returns: every member must be present and valid.
const OUTPUT_DICTIONARIES = ['MLOpSupportLimits', 'MLContextLostInfo'];

// Runs every check; returns rows {group, name, covered, total, failures[]}.
export async function idlCoverage(wnn, idl = loadIdl()) {
  const rows = new Map();
  const item = (group, name, what, failure) => {
    const key = `${group} ${name}`;
    if (!rows.has(key)) rows.set(key, { group, name, covered: 0, total: 0, failures: [] });
    const r = rows.get(key);
    r.total += 1;
    if (failure) r.failures.push(`${what}: ${failure}`);
    else r.covered += 1;
  };
  const schemas = new Map(wnn.schemas.map((s) => [s.name, s]));

  // Live instances of each interface, for the instance checks.
  const context = await wnn.ml.createContext();
  const builder = new wnn.MLGraphBuilder(context);
  const x = builder.input('x', { dataType: 'float32', shape: [2, 3] });
  const relu = builder.relu(x);
  const graph = await builder.build({ y: relu });
  const tensor = await context.createTensor({ dataType: 'float32', shape: [2, 3], readable: true, writable: true });
  const instances = { ML: wnn.ml, MLContext: context, MLGraphBuilder: builder, MLOperand: relu, MLGraph: graph, MLTensor: tensor };

  // ---- interfaces ----
  for (const [mixinName, mixin] of idl.mixins) {
    // navigator.ml: the module's `ml` export stands for the NavigatorML mixin.
    for (const m of mixin.members) {
      const v = wnn[m.name];
      const iface = wnn[typeName(m.idlType)];
      item('interface', mixinName, m.name,
        iface && v instanceof iface ? null : `the module export '${m.name}' is not an ${typeName(m.idlType)}`);
    }
  }
  for (const [name, iface] of idl.interfaces) {
    const cls = wnn[name];
    if (typeof cls !== 'function') {
      item('interface', name, 'interface object', `the module exports no ${name}`);
      continue;
    }
    const proto = cls.prototype;
    const ctors = iface.members.filter((m) => m.type === 'constructor');
    if (ctors.length) {
      const want = operationLength(ctors);
      const e = await rejects(() => new cls());
      item('interface', name, 'constructor', cls.length !== want ? `length ${cls.length}, expected ${want}`
        : !isTypeError(e) ? 'new without arguments does not throw a TypeError' : null);
    } else {
      const e = await rejects(() => new cls());
      item('interface', name, 'no constructor', isTypeError(e) ? null : '`new` does not throw a TypeError');
    }
    const ops = new Map();
    for (const m of iface.members.filter((m) => m.type === 'operation')) {
      const key = `${m.special === 'static' ? 'static ' : ''}${m.name}`;
      if (!ops.has(key)) ops.set(key, []);
      ops.get(key).push(m);
    }
    const specNames = new Set(['constructor']);
    const specStatics = new Set(['length', 'name', 'prototype']);
    for (const [key, overloads] of ops) {
      const m = overloads[0];
      const isStatic = m.special === 'static';
      (isStatic ? specStatics : specNames).add(m.name);
      const desc = Object.getOwnPropertyDescriptor(isStatic ? cls : proto, m.name);
      const want = operationLength(overloads);
      let failure = null;
      if (!desc || typeof desc.value !== 'function') failure = 'not a method';
      else if (!desc.enumerable || !desc.writable || !desc.configurable) failure = 'not an enumerable, writable, configurable property';
      else if (desc.value.length !== want) failure = `length ${desc.value.length}, expected ${want}`;
      else if (name === 'MLGraphBuilder' && schemas.has(m.name)) {
        // The operator's positional arguments, by name and type, as the schema declares them.
        const s = schemas.get(m.name);
        const args = m.arguments.filter((a) => !a.optional);
        const got = s.args.map((p) => p.name).join(', ');
        const names = args.map((a) => a.name).join(', ');
        if (got !== names) failure = `schema arguments (${got}), the IDL has (${names})`;
        for (const [i, a] of args.entries()) {
          if (!failure && !kindsFor(idl, a.idlType).includes(s.args[i].kind)) {
            failure = `argument '${a.name}' is ${s.args[i].kind} in the schema, ${typeName(a.idlType)} in the IDL`;
          }
        }
      }
      item('interface', name, `${key}()`, failure);
    }
    for (const m of iface.members.filter((m) => m.type === 'attribute')) {
      specNames.add(m.name);
      const desc = Object.getOwnPropertyDescriptor(m.special === 'static' ? cls : proto, m.name);
      let failure = null;
      if (!desc || typeof desc.get !== 'function') failure = 'not a getter';
      else if (m.readonly && desc.set !== undefined) failure = 'readonly, but has a setter';
      else if (!m.readonly && typeof desc.set !== 'function') failure = 'has no setter';
      else if (!desc.enumerable || !desc.configurable) failure = 'not an enumerable, configurable property';
      else if (instances[name]) {
        const v = instances[name][m.name];
        const t = typeName(m.idlType);
        if (t === 'boolean' && typeof v !== 'boolean') failure = `${typeof v}, expected a boolean`;
        if (t === 'MLOperandDataType' && !idl.enums.get(t).includes(v)) failure = `'${v}' is not an MLOperandDataType`;
        if (t.startsWith('FrozenArray') && !(Array.isArray(v) && Object.isFrozen(v))) failure = 'not a frozen array';
        if (t.startsWith('Promise') && !(v instanceof Promise)) failure = 'not a promise';
      }
      item('interface', name, m.name, failure);
    }
    const extra = Reflect.ownKeys(proto).filter((k) => k !== Symbol.toStringTag && !specNames.has(k));
    const extraStatic = Reflect.ownKeys(cls).filter((k) => !specStatics.has(k));
    const extraOwn = instances[name] ? Object.getOwnPropertyNames(instances[name]) : [];
    item('interface', name, 'no non-spec members',
      extra.length + extraStatic.length + extraOwn.length === 0 ? null
        : `non-spec members ${[...extra, ...extraStatic.map((k) => `static ${String(k)}`), ...extraOwn.map((k) => `own ${k}`)].map(String).join(', ')}`);
  }

  // ---- dictionaries ----
  const optionDictionaries = new Map();  // dictionary name -> the builder operations taking it
  for (const m of idl.interfaces.get('MLGraphBuilder').members) {
    if (m.type !== 'operation') continue;
    for (const a of m.arguments) {
      const t = typeName(a.idlType);
      if (idl.dictionaries.has(t) && t !== 'MLOperandDescriptor') {
        if (!optionDictionaries.has(t)) optionDictionaries.set(t, []);
        optionDictionaries.get(t).push(m.name);
      }
    }
  }
  const outputs = new Set();
  const reach = (name) => {
    if (outputs.has(name) || !idl.dictionaries.has(name)) return;
    outputs.add(name);
    for (const m of dictionaryMembers(idl, name)) reach(typeName(m.idlType));
  };
  OUTPUT_DICTIONARIES.forEach(reach);

  // Options: each operation taking the dictionary must read every member, and the schema must
  // declare it with a matching type.
  const readByOp = new Map();
  for (const ops of optionDictionaries.values()) {
    for (const op of ops) {
      if (readByOp.has(op) || !schemas.has(op)) continue;
      const b = new wnn.MLGraphBuilder(context);
      const input = b.input('x', { dataType: 'float32', shape: [2, 3] });
      const { proxy, read } = spy();
      try {
        b[op](...fillerArgs(schemas.get(op), input), proxy);
      } catch {
        // The filler arguments may fail validation; only the members read matter here.
      }
      readByOp.set(op, read);
    }
  }
  const limits = context.opSupportLimits();
  const lostInfo = await (async () => {
    const c = await wnn.ml.createContext();
    c.destroy();
    return c.lost;
  })();
  const outputValues = { MLOpSupportLimits: [limits], MLContextLostInfo: [lostInfo] };
  // Gathers every value of each output dictionary type, following members.
  const gather = (dictName) => {
    for (const v of outputValues[dictName] ?? []) {
      if (v === null || typeof v !== 'object') continue;
      for (const m of dictionaryMembers(idl, dictName)) {
        const t = typeName(m.idlType);
        if (idl.dictionaries.has(t) && v[m.name] !== undefined) {
          if (!outputValues[t]) outputValues[t] = [];
          if (!outputValues[t].includes(v[m.name])) {
            outputValues[t].push(v[m.name]);
            gather(t);
          }
        }
      }
    }
  };
  OUTPUT_DICTIONARIES.forEach(gather);
  // Also follow the per-op support limit dictionaries, which are reached through MLOpSupportLimits.
  for (const name of outputs) gather(name);

  const checkOutputMember = (dictName, m) => {
    const values = outputValues[dictName] ?? [];
    if (values.length === 0) return 'the implementation never returns one';
    const t = typeName(m.idlType);
    for (const v of values) {
      const mv = v[m.name];
      if (mv === undefined) return `missing from a returned ${dictName}`;
      if (idl.enums.has(t) && !idl.enums.get(t).includes(mv)) return `'${mv}' is not an ${t}`;
      if (/long/.test(t) && !(Number.isInteger(mv) && mv >= 0)) return `${mv} is not an unsigned integer`;
      const dataTypes = [...idl.enums.get('MLOperandDataType'), ...wnn.extensions.dataTypes];
      if (t === 'MLDataTypeList' && !(Array.isArray(mv) && mv.every((d) => dataTypes.includes(d)))) {
        return `${JSON.stringify(mv)} is not a list of MLOperandDataType`;
      }
      if (/String$/.test(t) && typeof mv !== 'string') return `${typeof mv}, expected a string`;
    }
    return null;
  };

  for (const [name] of idl.dictionaries) {
    const members = dictionaryMembers(idl, name);
    if (outputs.has(name)) {
      for (const m of members) item('dictionary', name, m.name, checkOutputMember(name, m));
      const allowed = new Set(members.map((m) => m.name));
      const extra = new Set();
      for (const v of outputValues[name] ?? []) Object.keys(v).filter((k) => !allowed.has(k)).forEach((k) => extra.add(k));
      item('dictionary', name, 'no non-spec members', extra.size ? `returns non-spec members ${[...extra].join(', ')}` : null);
    } else if (optionDictionaries.has(name)) {
      for (const m of members) {
        let failure = null;
        for (const op of optionDictionaries.get(name)) {
          const s = schemas.get(op);
          if (!s) {
            failure = `no operator ${op}`;
            break;
          }
          const p = s.options.find((o) => o.name === m.name);
          if (!p) failure = `${op}: the schema has no option '${m.name}'`;
          else if (!kindsFor(idl, m.idlType).includes(p.kind)) failure = `${op}: option '${m.name}' is ${p.kind}, the IDL says ${typeName(m.idlType)}`;
          else if (p.kind === 'enum' && p.enumValues.join() !== idl.enums.get(typeName(m.idlType)).join()) {
            failure = `${op}: option '${m.name}' takes ${p.enumValues.join('|')}, the IDL ${idl.enums.get(typeName(m.idlType)).join('|')}`;
          } else if (!readByOp.get(op).has(m.name)) failure = `${op} does not read option '${m.name}'`;
          if (failure) break;
        }
        item('dictionary', name, m.name, failure);
      }
    } else {
      const check = inputDictionaryChecks[name];
      for (const m of members) {
        item('dictionary', name, m.name, check ? await check(wnn, context, m.name) : 'no check reads this dictionary');
      }
    }
  }

  // ---- enums ----
  const uses = enumUses(wnn);
  for (const [name, values] of idl.enums) {
    const use = uses[name];
    if (!use) {
      item('enum', name, 'values', `no check uses ${name}`);
      continue;
    }
    for (const v of values) {
      const e = await rejects(() => use(v));
      item('enum', name, `"${v}"`, e ? `rejected: ${e.message}` : null);
    }
    // Also every data type wnn knows that the IDL enum lacks, unless the module declares it as
    // an extension (then it must be accepted).
    const known = name === 'MLOperandDataType' ? wnn.schemas.flatMap((s) => s.args.flatMap((a) => a.dataTypes)) : [];
    const extensions = name === 'MLOperandDataType' ? wnn.extensions.dataTypes : [];
    for (const v of extensions) {
      const e = await rejects(() => use(v));
      item('enum', name, `extension "${v}"`, values.includes(v) ? 'declared as an extension but in the IDL'
        : e ? `rejected: ${e.message}` : null);
    }
    const foreign = known.filter((d) => !values.includes(d) && !extensions.includes(d));
    for (const bad of new Set(['no-such-value', ...foreign])) {
      const e = await rejects(() => use(bad));
      item('enum', name, `rejects "${bad}"`, isTypeError(e) ? null : e ? `${e.name}, expected a TypeError` : 'accepted');
    }
  }

  graph.destroy();
  tensor.destroy();
  context.destroy();
  return [...rows.values()];
}

// Input dictionaries outside the operators: each check returns null when the member is read
// and acts as the IDL says.
const inputDictionaryChecks = {
  async MLContextOptions(wnn, _ctx, member) {
    const { proxy, read } = spy({ powerPreference: 'low-power', accelerated: false });
    const c = await wnn.ml.createContext(proxy);
    const ok = read.has(member);
    const accelerated = c.accelerated;
    c.destroy();
    if (!ok) return `createContext does not read '${member}'`;
    if (member === 'accelerated' && accelerated !== false) return 'accelerated: false gives an accelerated context';
    return null;
  },
  async MLOperandDescriptor(wnn, ctx, member) {
    const b = new wnn.MLGraphBuilder(ctx);
    const { proxy, read } = spy({ dataType: 'int32', shape: [3, 1] });
    const o = b.input('x', proxy);
    if (!read.has(member)) return `input does not read '${member}'`;
    if (o.dataType !== 'int32' || o.shape.join() !== '3,1') return 'input does not use the descriptor';
    const { proxy: missing } = spy(member === 'shape' ? { dataType: 'int32' } : { shape: [3] });
    const e = await rejects(() => b.input('y', missing));
    return isTypeError(e) ? null : `a descriptor without the required '${member}' is not a TypeError`;
  },
  async MLTensorDescriptor(wnn, ctx, member) {
    const { proxy, read } = spy({ dataType: 'uint8', shape: [5], readable: true, writable: false });
    const t = await ctx.createTensor(proxy);
    const r = read.has(member) ? null : `createTensor does not read '${member}'`;
    const wrong = (member === 'readable' && t.readable !== true) || (member === 'writable' && t.writable !== false) ||
      (member === 'dataType' && t.dataType !== 'uint8') || (member === 'shape' && t.shape.join() !== '5');
    t.destroy();
    return r ?? (wrong ? `the tensor's ${member} does not reflect the descriptor` : null);
  },
  async MLOperatorOptions(wnn, ctx, member) {
    // The base of every options dictionary: read by each operator (checked there); here one
    // operator that takes it directly.
    const b = new wnn.MLGraphBuilder(ctx);
    const { proxy, read } = spy({ [member]: 'named' });
    b.relu(b.input('x', { dataType: 'float32', shape: [2] }), proxy);
    return read.has(member) ? null : `relu does not read '${member}'`;
  },
};

export function formatTable(rows, markdown = false) {
  const groups = ['interface', 'dictionary', 'enum'];
  const lines = [];
  let covered = 0;
  let total = 0;
  if (markdown) {
    lines.push('| Kind | Name | Covered | Total |', '|---|---|---:|---:|');
    for (const g of groups) {
      for (const r of rows.filter((r) => r.group === g)) {
        lines.push(`| ${g} | \`${r.name}\` | ${r.covered} | ${r.total} |`);
        covered += r.covered;
        total += r.total;
      }
    }
    lines.push(`| **all** | | **${covered}** | **${total}** (${((100 * covered) / total).toFixed(1)}%) |`);
    return lines.join('\n');
  }
  for (const g of groups) {
    for (const r of rows.filter((r) => r.group === g)) {
      lines.push(`${g.padEnd(10)} ${r.name.padEnd(40)} ${String(r.covered).padStart(4)}/${String(r.total).padEnd(4)}`);
      for (const f of r.failures) lines.push(`    ${f}`);
      covered += r.covered;
      total += r.total;
    }
  }
  lines.push(`total ${covered}/${total} = ${((100 * covered) / total).toFixed(1)}%`);
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const wnn = require('../index.js');
  const rows = await idlCoverage(wnn);
  process.stdout.write(`${formatTable(rows, process.argv.includes('--markdown'))}\n`);
}
