// A TypeScript program over the JS API: test/dts.test.mjs compiles it against index.d.ts with
// tsc --noEmit --strict. Lines marked "@expect-error" must fail to compile.
import { ml, MLGraphBuilder, MLOperand, MLOpSupportLimits, setBackend } from '../../index';

async function main(): Promise<number> {
  setBackend('ref', 2);
  const context = await ml.createContext({ powerPreference: 'low-power', accelerated: false });
  const limits: MLOpSupportLimits = context.opSupportLimits();
  const ranks: number = limits.conv2d.filter.rankRange.max + limits.split.outputs.rankRange.min;
  const builder = new MLGraphBuilder(context);
  const x = builder.input('x', { dataType: 'float32', shape: [1, 2, 5, 5] });
  const w = builder.constant({ dataType: 'float32', shape: [3, 2, 3, 3] }, new Float32Array(54));
  const y: MLOperand = builder.conv2d(x, w, { padding: [1, 1, 1, 1], filterLayout: 'oihw', label: 'c' });
  const [a, b]: MLOperand[] = builder.split(builder.relu(y), [1, 2], { axis: 1 });
  const c = builder.cast(builder.add(a, builder.slice(b, [0, 0, 0, 0], [1, 1, 5, 5])), 'float16');
  const graph = await builder.build({ c });
  const input = await context.createTensor({ dataType: 'float32', shape: [1, 2, 5, 5], writable: true });
  const output = await context.createTensor({ dataType: 'float16', shape: [1, 1, 5, 5], readable: true });
  context.writeTensor(input, new Float32Array(50));
  context.dispatch(graph, { x: input }, { c: output });
  const bytes: ArrayBuffer = await context.readTensor(output);
  await context.readTensor(output, new Uint16Array(25));
  graph.destroy();
  context.destroy();
  const info = await context.lost;
  return bytes.byteLength + ranks + (info.message ?? '').length;
}

async function wrong(builder: MLGraphBuilder, x: MLOperand): Promise<void> {
  // @expect-error: not an MLConv2dFilterOperandLayout
  builder.conv2d(x, x, { filterLayout: 'xyzw' });
  // @expect-error: split returns a sequence
  const one: MLOperand = builder.split(x, 2);
  // @expect-error: no such data type
  builder.input('y', { dataType: 'float64', shape: [1] });
  // @expect-error: gemm takes two operands
  builder.gemm(x);
  void one;
}

void main;
void wrong;
