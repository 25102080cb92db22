// Real models through the loader: a 4-bit MatMulNBits model (tests/models/make_4bit_model.py:
// uint4 constants as wnn's writer packs them), each zoo model `make test` exports (in
// WNN_MODELS_ZOO, default <checkout>/build/models-zoo) and each dev-set model (WNN_DEV_MODELS) is
// converted by `wnn convert` (the graph also to JSON), run by `wnn run` and loaded by js/loader in
// both forms on the addon with the same inputs. Every output must match on the auto backend, and
// on ref for the 4-bit model and two small image models.
// WNN_LOADER_MODELS=a,b restricts the list. A model whose file is absent is skipped, saying so.
// Needs the wnn CLI: WNN_CLI (as CTest's js.npm_test sets it) or WNN_BINARY, default
// <checkout>/build/wnn; CTest's js.loader_models provides it and the models.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SOURCE, DEFAULT_ZOO, zooModel, devModels, generatedModels, findSharedModels, convert, checkModel } from '../tools/loader-models.mjs';

const WNN = process.env.WNN_CLI || process.env.WNN_BINARY || path.join(SOURCE, 'build', 'wnn');
const ZOO = process.env.WNN_MODELS_ZOO || path.join(SOURCE, 'build', 'models-zoo');
const ONLY = process.env.WNN_LOADER_MODELS ? process.env.WNN_LOADER_MODELS.split(',') : null;
const REF = new Set(['matmul_nbits_4bit', 'squeezenet1_1', 'mobilenet_v3_small']);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wnn-loader-models-'));

const shared = findSharedModels();
const models = [...generatedModels(work), ...DEFAULT_ZOO.map((n) => zooModel(ZOO, n)), ...(shared ? devModels(shared, work) : [])]
  .filter((m) => !ONLY || ONLY.includes(m.name));

test('the dev set is listed', { skip: ONLY !== null }, () => {
  assert.ok(shared, 'no shared/models/dev-models.json above the checkout: set WNN_SHARED_MODELS');
});

for (const model of models) {
  // A zoo model is exported by the CTest fixture (js.loader_models_prepare): its absence is a
  // broken setup, not a reason to skip. A dev-set file absent from the cache is skipped, saying so.
  const absent = model.kind === 'dev' && !model.make && !fs.existsSync(model.onnx);
  if (absent) console.log(`skip ${model.name}: ${model.onnx} is absent`);
  test(`${model.name} loads and matches wnn run`, { skip: absent && `${model.onnx} is absent` }, async () => {
    assert.ok(fs.existsSync(WNN), `no wnn binary at ${WNN}: set WNN_CLI`);
    const pair = convert(WNN, model, work);
    for (const backend of REF.has(model.name) ? ['auto', 'ref'] : ['auto']) {
      const r = await checkModel(WNN, model, pair, backend);
      console.log(`${model.name} [${backend}]: ${r.outputs} outputs, max abs diff ${r.maxAbs}`);
      assert.ok(r.outputs > 0);
      assert.deepEqual(r.bad, [], `${model.name} [${backend}]`);
    }
  });
}
