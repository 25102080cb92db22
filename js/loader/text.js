// The .webnn text form: a byte-level lexer and a recursive-descent parser that mirror wnn's
// src/wnn/format/text_lexer.cc and text_parser.cc (docs/formats.md, "What the text reader
// accepts"). It produces the loader's graph description (see graph.js); building is separate.
// Every error carries file:line:col, columns counted in bytes like wnn's.

import { nameTokenLength, isNameContinueByte } from './names.js';
import { parseDataType } from './dtypes.js';
import { LoaderError, raw, rawToText, isOperandReference, tableParamName } from './graph.js';

const MAX_VALUE_DEPTH = 64;
const PUNCT = new Set([...'{}[](),;:='].map((c) => c.charCodeAt(0)));
const utf8 = new TextDecoder('utf-8', { fatal: true });

function isDigit(c) {
  return c >= 0x30 && c <= 0x39;
}
function isAlpha(c) {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

// Token kinds: name, int, float, string, at, punct, end.
export function tokenize(bytes, file) {
  if (bytes.length >= 0xffffffff) throw new LoaderError(`${file}: file is larger than 4 GB`);
  const out = [];
  let pos = 0, line = 1, lineStart = 0;
  const col = () => pos - lineStart + 1;
  const peek = (k = 0) => (pos + k < bytes.length ? bytes[pos + k] : 0);
  const errorHere = (message) => {
    throw new LoaderError(`${file}:${line}:${col()}: ${message}`);
  };
  const text = (b, e) => String.fromCharCode(...bytes.subarray(b, e));
  for (;;) {
    // whitespace and comments
    while (pos < bytes.length) {
      const c = bytes[pos];
      if (c === 0x0a) {
        ++pos;
        ++line;
        lineStart = pos;
      } else if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0c || c === 0x0b) {
        ++pos;
      } else if (c === 0x23 || (c === 0x2f && peek(1) === 0x2f)) {
        while (pos < bytes.length && bytes[pos] !== 0x0a) ++pos;
      } else {
        break;
      }
    }
    const t = { kind: 'end', text: '', line, col: col() };
    if (pos >= bytes.length) {
      out.push(t);
      return out;
    }
    const begin = pos;
    const c = bytes[pos];
    const n = nameTokenLength(bytes, pos);
    if (n) {
      t.kind = 'name';
      pos += n;
    } else if (isDigit(c) || ((c === 0x2d || c === 0x2b) && (isDigit(peek(1)) || peek(1) === 0x2e)) ||
               (c === 0x2e && isDigit(peek(1)))) {
      if (c === 0x2d || c === 0x2b) ++pos;
      let isFloat = false;
      while (isDigit(peek())) ++pos;
      if (peek() === 0x2e) {
        isFloat = true;
        ++pos;
        while (isDigit(peek())) ++pos;
      }
      if (peek() === 0x65 || peek() === 0x45) {
        isFloat = true;
        ++pos;
        if (peek() === 0x2d || peek() === 0x2b) ++pos;
        if (!isDigit(peek())) {
          pos = begin;
          errorHere('malformed number: exponent has no digits');
        }
        while (isDigit(peek())) ++pos;
      }
      if (pos < bytes.length && isNameContinueByte(peek())) {
        const bad = pos;
        pos = begin;
        errorHere(`malformed number '${text(begin, bad + 1)}'`);
      }
      t.kind = isFloat ? 'float' : 'int';
    } else if ((c === 0x2d || c === 0x2b) && text(pos + 1, pos + 4) === 'inf' &&
               !(pos + 4 < bytes.length && isNameContinueByte(peek(4)))) {
      t.kind = 'float';
      pos += 4;
    } else if (c === 0x22) {
      t.kind = 'string';
      const sline = line, scol = col();
      ++pos;
      const parts = [];
      let from = pos;
      for (;;) {
        if (pos >= bytes.length) {
          throw new LoaderError(`${file}:${sline}:${scol}: unterminated string (no closing '"')`);
        }
        const ch = bytes[pos++];
        if (ch === 0x22) {
          parts.push(bytes.subarray(from, pos - 1));
          break;
        }
        if (ch === 0x0a) {
          ++line;
          lineStart = pos;
        }
        if (ch !== 0x5c) continue;
        parts.push(bytes.subarray(from, pos - 1));
        const e = peek();
        const esc = { 0x22: 0x22, 0x5c: 0x5c, 0x6e: 0x0a, 0x74: 0x09 }[e];
        if (esc === undefined) {
          --pos;
          errorHere(e === 0 ? 'unterminated string'
            : `unknown escape '\\${String.fromCharCode(e)}' in string`);
        }
        parts.push(Uint8Array.of(esc));
        ++pos;
        from = pos;
      }
      const all = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
      let o = 0;
      for (const p of parts) {
        all.set(p, o);
        o += p.length;
      }
      try {
        t.value = utf8.decode(all);
      } catch {
        throw new LoaderError(`${file}:${sline}:${scol}: the string is not valid UTF-8`);
      }
    } else if (c === 0x40) {
      ++pos;
      const start = pos;
      while (pos < bytes.length && (isAlpha(bytes[pos]) || bytes[pos] === 0x5f)) ++pos;
      if (pos === start) errorHere("'@' must be followed by an annotation name");
      t.kind = 'at';
      t.text = text(start, pos);
    } else if (PUNCT.has(c)) {
      t.kind = 'punct';
      ++pos;
    } else if (c >= 0x20 && c < 0x7f) {
      errorHere(`unexpected character '${String.fromCharCode(c)}'`);
    } else {
      errorHere(`unexpected byte 0x${c.toString(16).padStart(2, '0')}`);
    }
    if (t.kind !== 'at') t.text = text(begin, pos);
    out.push(t);
  }
}

function describe(t) {
  switch (t.kind) {
    case 'end': return 'end of file';
    case 'name': return `name '${t.text}'`;
    case 'int': case 'float': return `number ${t.text}`;
    case 'string': return `string "${t.value}"`;
    case 'at': return `'@${t.text}'`;
    default: return `'${t.text}'`;
  }
}

const INT64_MIN = -(1n << 63n), INT64_MAX = (1n << 63n) - 1n;

// Parses the text form into the loader's graph description. `operators` maps an op name to its
// {args, options} (operators.js): a positional argument in a non-operand slot is an error here,
// with the named form to write instead, as wnn reports it.
export function parseText(bytes, file, operators) {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
  const tokens = tokenize(bytes, file);
  let p = 0;
  const peek = (k = 0) => tokens[Math.min(p + k, tokens.length - 1)];
  const next = () => {
    const t = peek();
    if (p < tokens.length - 1) ++p;
    return t;
  };
  const is = (t, c) => t.kind === 'punct' && t.text === c;
  const accept = (c) => {
    if (!is(peek(), c)) return false;
    next();
    return true;
  };
  const where = (t) => `${file}:${t.line}:${t.col}`;
  const errorAt = (t, message) => {
    throw new LoaderError(`${where(t)}: ${message}`);
  };
  const expect = (c, context) => {
    if (!is(peek(), c)) errorAt(peek(), `expected '${c}' ${context}, got ${describe(peek())}`);
    return next();
  };
  const expectName = (what) => {
    if (peek().kind !== 'name') errorAt(peek(), `expected ${what}, got ${describe(peek())}`);
    return next();
  };
  const toInt = (t) => {
    const v = BigInt(t.text);
    if (v < INT64_MIN || v > INT64_MAX) errorAt(t, `integer ${t.text} does not fit in 64 bits`);
    return v;
  };
  const toDouble = (t) => {
    const s = t.text[0] === '+' ? t.text.slice(1) : t.text;
    if (s === 'inf') return Infinity;
    if (s === '-inf') return -Infinity;
    const v = Number(s);
    if (!Number.isFinite(v)) errorAt(t, `number ${t.text} is out of the range of a double`);
    return v;
  };
  const number = (t) => {
    if (t.kind === 'int') return raw.int(toInt(t));
    if (t.kind === 'float') return raw.float(toDouble(t));
    if (t.kind === 'name' && t.text === 'inf') return raw.float(Infinity);
    if (t.kind === 'name' && t.text === 'nan') return raw.float(NaN);
    return null;
  };

  const graph = { name: '', version: 1, quantized: false, inputs: [], consts: [], nodes: [], outputs: [] };

  // header
  const head = peek();
  if (!(head.kind === 'name' && head.text === 'webnn_graph')) {
    errorAt(head, `expected the header 'webnn_graph "name" v1 {', got ${describe(head)}`);
  }
  graph.where = where(next());
  if (peek().kind !== 'string') errorAt(peek(), `expected the graph name as a string, got ${describe(peek())}`);
  graph.name = next().value;
  const v = expectName('the version (v1 or v2)');
  let version = -1;
  if (v.text === 'v' && peek().kind === 'int') {
    version = Number(toInt(next()));
  } else if (/^v[0-9]+$/.test(v.text)) {
    version = Number(v.text.slice(1));
  }
  if (version !== 1 && version !== 2) errorAt(v, `unsupported version '${v.text}' (wnn reads v1 and v2)`);
  graph.version = version;
  while (peek().kind === 'at') {
    const a = next();
    if (a.text !== 'quantized') errorAt(a, `unknown header annotation '@${a.text}' (only @quantized)`);
    graph.quantized = true;
  }
  const open = expect('{', 'after the header');

  const parseType = (allowDynamic) => {
    const dt = expectName('a data type (f32, f16, i32, u32, i64, u64, i8, u8, i4, u4)');
    const dataType = parseDataType(dt.text);
    if (!dataType) errorAt(dt, `unknown data type '${dt.text}'`);
    const type = { dataType, shape: [], dims: [] };
    expect('[', 'to open the shape');
    let anyDynamic = false;
    if (!is(peek(), ']')) {
      do {
        const d = peek();
        if (d.kind === 'name' && d.text === 'dyn') {
          if (!allowDynamic) errorAt(d, 'dyn(...) dimensions are allowed on inputs only');
          next();
          expect('(', 'after dyn');
          if (peek().kind !== 'string') errorAt(peek(), `expected the dimension's name as a string, got ${describe(peek())}`);
          const name = next().value;
          expect(',', "between the dimension's name and its maximum");
          const m = peek();
          if (m.kind !== 'int') errorAt(m, `expected the maximum size of dyn("${name}") as an integer, got ${describe(m)}`);
          const max = toInt(next());
          if (max < 1n) errorAt(m, `dyn("${name}") needs a maximum of at least 1`);
          expect(')', 'to close dyn(...)');
          type.shape.push(Number(max));
          type.dims.push({ name, max: Number(max) });
          anyDynamic = true;
        } else if (d.kind === 'int') {
          const x = toInt(next());
          if (x < 0n) errorAt(d, `dimension ${x} is negative`);
          type.shape.push(Number(x));
          type.dims.push(null);
        } else {
          errorAt(d, `expected a dimension (an integer or dyn("name", max)), got ${describe(d)}`);
        }
      } while (accept(','));
    }
    expect(']', 'to close the shape');
    if (!anyDynamic) type.dims = [];
    return type;
  };

  const parseValue = (depth) => {
    const t = peek();
    if (depth >= MAX_VALUE_DEPTH) errorAt(t, `values nest deeper than ${MAX_VALUE_DEPTH} levels`);
    const n = number(t);
    if (n) {
      next();
      return n;
    }
    if (t.kind === 'string') return raw.string(next().value);
    if (t.kind === 'name') {
      next();
      if (t.text === 'true') return raw.bool(true);
      if (t.text === 'false') return raw.bool(false);
      if (t.text === 'null') return raw.null();
      return raw.name(t.text);
    }
    if (is(t, '[')) {
      next();
      const list = [];
      while (!is(peek(), ']')) {
        list.push(parseValue(depth + 1));
        if (!accept(',')) break;
      }
      expect(']', `to close the list opened at ${t.line}:${t.col}`);
      return raw.list(list);
    }
    if (is(t, '{')) {
      next();
      const entries = [];
      while (!is(peek(), '}')) {
        const key = peek();
        if (key.kind !== 'name' && key.kind !== 'string') errorAt(key, `expected a key, got ${describe(key)}`);
        next();
        expect(':', 'after the key');
        entries.push([key.kind === 'string' ? key.value : key.text, parseValue(depth + 1)]);
        if (!accept(',')) break;
      }
      expect('}', `to close the object opened at ${t.line}:${t.col}`);
      return raw.object(entries);
    }
    errorAt(t, `expected a value, got ${describe(t)}`);
  };

  const items = {
    inputs() {
      const name = expectName('an input name');
      expect(':', `after input '${name.text}'`);
      const type = parseType(true);
      expect(';', `after input '${name.text}'`);
      graph.inputs.push({ name: name.text, ...type, where: where(name) });
    },
    consts() {
      const name = expectName('a constant name');
      expect(':', `after constant '${name.text}'`);
      const c = { name: name.text, where: where(name), ...parseType(false), init: 'weights', key: name.text };
      let annotated = false;
      while (peek().kind === 'at') {
        const a = next();
        if (annotated) errorAt(a, `constant '${c.name}' has more than one initializer`);
        annotated = true;
        expect('(', `after @${a.text}`);
        if (a.text === 'weights') {
          if (peek().kind !== 'string') errorAt(peek(), `@weights needs the key as a string, got ${describe(peek())}`);
          c.key = next().value;
        } else if (a.text === 'scalar') {
          const t = next();
          const n = number(t);
          if (!n) errorAt(t, `@scalar needs a number, got ${describe(t)}`);
          c.init = 'scalar';
          c.scalar = n;
        } else if (a.text === 'bytes') {
          c.init = 'bytes';
          const list = [];
          expect('[', 'to open the @bytes list');
          if (!is(peek(), ']')) {
            do {
              const b = peek();
              if (b.kind !== 'int') errorAt(b, `@bytes holds integers 0..255, got ${describe(b)}`);
              const x = toInt(next());
              if (x < 0n || x > 255n) errorAt(b, `@bytes value ${x} is not in 0..255`);
              list.push(Number(x));
            } while (accept(','));
          }
          expect(']', 'to close the @bytes list');
          c.bytes = Uint8Array.from(list);
        } else {
          errorAt(a, `unknown annotation '@${a.text}' (expected @weights, @scalar or @bytes)`);
        }
        expect(')', `to close @${a.text}`);
      }
      if (c.init !== 'weights') delete c.key;
      expect(';', `after constant '${c.name}'`);
      graph.consts.push(c);
    },
    nodes() {
      const first = peek();
      const st = { op: '', outputs: [], args: [], where: where(first) };
      if (accept('[')) {
        do {
          st.outputs.push(expectName('an output name').text);
        } while (accept(','));
        expect(']', 'to close the output names');
      } else {
        st.outputs.push(expectName("a statement 'name = op(...)'").text);
      }
      expect('=', 'after the output name');
      const op = peek();
      if (op.kind !== 'name' || !is(peek(1), '(')) {
        errorAt(op, `expected an operator call 'op(...)' after '=', got ${describe(op)} (aliases are not allowed)`);
      }
      next();
      st.op = op.text;
      expect('(', 'after the operator name');
      const schema = operators[st.op];
      let positional = 0;
      while (!is(peek(), ')')) {
        const start = peek();
        const arg = { name: '', where: where(start) };
        if (start.kind === 'name' && is(peek(1), '=')) {
          arg.name = next().text;
          next();
          arg.name = tableParamName(operators, st.op, arg.name);  // cast(x, type=...), older spellings
          arg.value = parseValue(0);
        } else {
          arg.value = parseValue(0);
          const index = positional++;
          const slot = schema && index < schema.args.length ? schema.args[index] : null;
          const slotIsOperand = slot && (slot.kind === 'operand' || slot.kind === 'operand list');
          if (slot && !slotIsOperand) {
            errorAt(start, `${st.op}: positional argument ${index + 1} is not an operand; every other parameter is named: write ${slot.name}=${rawToText(arg.value)}`);
          }
          if (!isOperandReference(arg.value)) {
            if (slot) {
              errorAt(start, `${st.op}: argument '${slot.name}' must be an operand name${slot.kind === 'operand list' ? ' list [a, b]' : ''}, got ${rawToText(arg.value)}`);
            }
            errorAt(start, `${st.op}: positional argument ${index + 1} (${rawToText(arg.value)}) is not an operand or a list of operands; options are written name=value`);
          }
        }
        st.args.push(arg);
        if (!accept(',')) break;
      }
      expect(')', `to close the call to ${st.op}`);
      expect(';', 'after the statement');
      graph.nodes.push(st);
    },
    outputs() {
      do {
        const name = expectName('an output name');
        graph.outputs.push({ name: name.text, operand: name.text, where: where(name) });
      } while (accept(','));
      accept(';');
    },
  };

  for (;;) {
    const t = peek();
    if (is(t, '}')) {
      next();
      if (peek().kind !== 'end') errorAt(peek(), `unexpected ${describe(peek())} after the graph's closing '}'`);
      break;
    }
    if (t.kind === 'end') errorAt(t, `unterminated graph: the '{' at ${open.line}:${open.col} is never closed`);
    if (t.kind !== 'name' || !is(peek(1), '{')) {
      errorAt(t, `expected a block (inputs, consts, nodes, outputs) or the closing '}', got ${describe(t)}`);
    }
    const kw = next();
    const brace = next();
    const item = Object.hasOwn(items, kw.text) ? items[kw.text] : null;
    if (!item) errorAt(kw, `unknown block '${kw.text}' (expected inputs, consts, nodes or outputs)`);
    while (!accept('}')) {
      if (peek().kind === 'end') {
        errorAt(peek(), `unterminated '${kw.text}' block: the '{' at ${brace.line}:${brace.col} is never closed`);
      }
      item();
    }
  }
  if (graph.outputs.length === 0) {
    throw new LoaderError(`${graph.where}: the graph has no outputs (add 'outputs { name; }')`);
  }
  return graph;
}
