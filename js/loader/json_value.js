// A small JSON reader for the loader's two JSON inputs (webnn-graph-json and the Safetensors
// header): members in document order, a key repeated within one object is an error, integers
// as BigInt (64-bit values survive), nesting bounded, and syntax errors with file:line:col.
// Returns tagged values (graph.js): int, float, string, bool, null, list, object.

import { LoaderError, raw } from './graph.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

// `bytes`: UTF-8 JSON text (Uint8Array) or a string. `offset` is added to byte positions in
// messages (a Safetensors header starts at byte 8).
export function parseJson(bytes, file, maxDepth = 64) {
  const text = typeof bytes === 'string' ? bytes : (() => {
    try {
      return utf8.decode(bytes);
    } catch {
      throw new LoaderError(`${file}: not valid UTF-8`);
    }
  })();
  let pos = 0;
  const fail = (message, at = pos) => {
    let line = 1, col = 1;
    for (let i = 0; i < at && i < text.length; ++i) {
      if (text.charCodeAt(i) === 10) {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw new LoaderError(`${file}:${line}:${col}: invalid JSON: ${message}`);
  };
  const ws = () => {
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) ++pos;
      else break;
    }
  };
  const str = () => {
    const start = pos++;
    let out = '';
    for (;;) {
      if (pos >= text.length) fail('unterminated string', start);
      const c = text[pos++];
      if (c === '"') return out;
      if (c === '\\') {
        const e = text[pos++];
        const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }[e];
        if (simple !== undefined) {
          out += simple;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(pos, pos + 4))) {
          out += String.fromCharCode(parseInt(text.slice(pos, pos + 4), 16));
          pos += 4;
        } else {
          fail(`invalid escape '\\${e ?? ''}' in a string`, pos - 2);
        }
      } else if (c.charCodeAt(0) < 0x20) {
        fail('control character in a string', pos - 1);
      } else {
        out += c;
      }
    }
  };
  const value = (depth) => {
    if (depth > maxDepth) fail(`nesting deeper than ${maxDepth} levels`);
    ws();
    const c = text[pos];
    if (c === '{') {
      ++pos;
      const entries = [];
      const keys = new Set();
      ws();
      if (text[pos] === '}') {
        ++pos;
        return raw.object(entries);
      }
      for (;;) {
        ws();
        if (text[pos] !== '"') fail('expected a string key');
        const at = pos;
        const key = str();
        if (keys.has(key)) fail(`key "${key}" is repeated in one object`, at);
        keys.add(key);
        ws();
        if (text[pos] !== ':') fail("expected ':' after a key");
        ++pos;
        entries.push([key, value(depth + 1)]);
        ws();
        if (text[pos] === ',') {
          ++pos;
          continue;
        }
        if (text[pos] === '}') {
          ++pos;
          return raw.object(entries);
        }
        fail("expected ',' or '}' in an object");
      }
    }
    if (c === '[') {
      ++pos;
      const list = [];
      ws();
      if (text[pos] === ']') {
        ++pos;
        return raw.list(list);
      }
      for (;;) {
        list.push(value(depth + 1));
        ws();
        if (text[pos] === ',') {
          ++pos;
          continue;
        }
        if (text[pos] === ']') {
          ++pos;
          return raw.list(list);
        }
        fail("expected ',' or ']' in a list");
      }
    }
    if (c === '"') return raw.string(str());
    for (const [word, v] of [['true', raw.bool(true)], ['false', raw.bool(false)], ['null', raw.null()]]) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return v;
      }
    }
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/.exec(text.slice(pos, pos + 400));
    if (!m) fail(c === undefined ? 'unexpected end of input' : `unexpected character '${c}'`);
    pos += m[0].length;
    if (m[2] === undefined && m[3] === undefined) {
      const v = BigInt(m[0]);
      if (v < -(1n << 63n) || v >= (1n << 64n)) fail(`integer ${m[0]} does not fit in 64 bits`, pos - m[0].length);
      return raw.int(v);
    }
    const d = Number(m[0]);
    if (!Number.isFinite(d)) fail(`number ${m[0]} is out of the range of a double`, pos - m[0].length);
    return raw.float(d);
  };
  const v = value(1);
  ws();
  if (pos < text.length) fail('unexpected text after the JSON value');
  return v;
}
