"""The transformer-zoo generator's own tests: packing, quantization, layouts, sidecars, bytes.

Run: /usr/bin/python3 -m unittest test_generator (from tests/transformers). The packed
weights are unpacked by reference.py (written independently of the packer) and checked
against the float weights they came from and against ONNX Runtime's MatMulNBits.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zlib
from collections import Counter

import numpy as np
import onnx
from onnx import helper, numpy_helper

from harness import MODELS, excess, feed_arrays, generate, run_ort
from reference import Weight, dequantize_matmul_nbits, unpack_nbits
from transformer_zoo.quant import block_quantize, dynamic_weight_quantize, gather_block_quantize

MAKE = os.path.join(MODELS, "make_transformers.py")


class TempDir(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.rng = np.random.default_rng(zlib.crc32(self.id().encode()))

    def tearDown(self):
        shutil.rmtree(self.dir)


class MatMulNBitsPacking(TempDir):
    CASES = [(bits, block, symmetric, k) for bits in (4, 8) for block in (16, 32, 64, 128)
             for symmetric in (True, False) for k in (64, 80)]

    def test_four_bit_bytes_are_low_nibble_first(self):
        # One block of 16 with an exact symmetric grid: the extreme -2.0 maps to 0, so
        # w / scale + 8 runs 0..15 and pairs pack as (high << 4) | low.
        w = (np.arange(-8, 8, dtype=np.float32) * 0.25).reshape(16, 1)
        b, scales, zero_points = block_quantize(w, 4, 16, symmetric=True)
        self.assertIsNone(zero_points)
        self.assertEqual(b.shape, (1, 1, 8))
        self.assertEqual(list(b.reshape(-1)), [0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE])
        np.testing.assert_array_equal(scales, [0.25])

    def test_zero_points_pack_per_row_low_nibble_first(self):
        # Three blocks per row of an all-positive column: asymmetric ranges start at 0, so each
        # zero point is 0; a column of negatives puts its zero point at 15.
        w = np.concatenate([np.full((48, 1), 3.0, np.float32), np.full((48, 1), -3.0, np.float32)],
                           axis=1)
        _, _, zero_points = block_quantize(w, 4, 16, symmetric=False)
        self.assertEqual(list(zero_points), [0x00, 0x00, 0xFF, 0x0F])

    def test_shapes_and_round_trip_within_one_step(self):
        for bits, block, symmetric, k in self.CASES:
            with self.subTest(bits=bits, block=block, symmetric=symmetric, k=k):
                n = 7
                w = self.rng.standard_normal((k, n)).astype(np.float32)
                b, scales, zp = block_quantize(w, bits, block, symmetric)
                blocks = -(-k // block)
                self.assertEqual(b.shape, (n, blocks, block * bits // 8))
                self.assertEqual(b.dtype, np.uint8)
                self.assertEqual(scales.shape, (n * blocks,))
                if symmetric:
                    self.assertIsNone(zp)
                else:
                    self.assertEqual(zp.shape, (n * -(-blocks * bits // 8),))
                back = dequantize_matmul_nbits(b, scales, zp, k, n, bits, block)
                step = np.abs(scales.reshape(n, blocks)).T.repeat(block, 0)[:k]
                # Rounding moves a value by half a step; the symmetric grid clips its top end
                # (the extreme maps to -2^(bits-1), its mirror to 2^(bits-1) - 1): one step.
                self.assertTrue((np.abs(back - w) <= step * (1.0 if symmetric else 0.5) + 1e-6)
                                .all())
                self.assertLess(np.abs(back - w).mean(), 0.3 * step.mean())

    def test_padding_of_the_last_block_is_zero(self):
        w = self.rng.standard_normal((80, 3)).astype(np.float32)
        b, _, _ = block_quantize(w, 4, 32, symmetric=True)
        q = unpack_nbits(b, 4, 32)  # [N, 3 blocks, 32]
        np.testing.assert_array_equal(q[:, 2, 16:], 8)  # padding quantizes to the zero point

    def test_onnx_runtime_multiplies_by_the_dequantized_weight(self):
        for bits, block, symmetric, k in self.CASES[::3]:
            for level in (0, 4):
                with self.subTest(bits=bits, block=block, symmetric=symmetric, k=k, level=level):
                    self.check_ort(bits, block, symmetric, k, level)

    def check_ort(self, bits, block, symmetric, k, level):
        n = 9
        w = self.rng.standard_normal((k, n)).astype(np.float32)
        a = self.rng.standard_normal((2, 3, k)).astype(np.float32)
        b, scales, zp = block_quantize(w, bits, block, symmetric)
        inits = [numpy_helper.from_array(b, "B"), numpy_helper.from_array(scales, "scales")]
        inputs = ["A", "B", "scales"]
        if zp is not None:
            inits.append(numpy_helper.from_array(zp, "zp"))
            inputs.append("zp")
        node = helper.make_node("MatMulNBits", inputs, ["Y"], domain="com.microsoft", K=k, N=n,
                                bits=bits, block_size=block, accuracy_level=level)
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("A", 1, a.shape)],
                                  [helper.make_tensor_value_info("Y", 1, None)], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                        helper.make_opsetid("com.microsoft", 1)])
        path = os.path.join(self.dir, "m.onnx")
        onnx.save(model, path)
        got = run_ort(path, {"A": a}, self.dir)["Y"]
        weight = Weight(dequantize_matmul_nbits(b, scales, zp, k, n, bits, block),
                        block if level == 4 else None)
        self.assertLessEqual(excess(got, a @ weight, 1e-5, 1e-5), 0)


class GatherTablePacking(TempDir):
    def test_int4_table_bytes_are_twos_complement_low_nibble_first(self):
        row = (np.arange(-8, 8, dtype=np.float32) * 0.25)[None]
        data, scales, zero_points = gather_block_quantize(row, 16, symmetric=True)
        self.assertIsNone(zero_points)
        self.assertEqual(list(data), [0x98, 0xBA, 0xDC, 0xFE, 0x10, 0x32, 0x54, 0x76])
        np.testing.assert_array_equal(scales, [[0.25]])

    def test_round_trip_within_one_step(self):
        table = self.rng.standard_normal((5, 40)).astype(np.float32)
        for symmetric in (True, False):
            with self.subTest(symmetric=symmetric):
                data, scales, zp = gather_block_quantize(table, 16, symmetric)
                self.assertEqual((len(data), scales.shape), (100, (5, 3)))
                q = unpack_nbits(np.frombuffer(data, np.uint8), 4, 200).reshape(5, 40)
                blocks = np.arange(40) // 16
                if symmetric:
                    q = np.where(q >= 8, q - 16, q)
                    back = q * scales[:, blocks]
                else:
                    zero = unpack_nbits(np.frombuffer(zp, np.uint8), 4, 15).reshape(5, 3)
                    back = (q - zero[:, blocks]) * scales[:, blocks]
                step = np.abs(scales[:, blocks])
                self.assertTrue((np.abs(back - table) <= step + 1e-6).all())
                self.assertLess(np.abs(back - table).mean(), 0.3 * step.mean())


class DynamicQuantization(unittest.TestCase):
    def test_int8_is_symmetric_with_a_zero_zero_point(self):
        w = np.array([[-1.27, 0.5], [0.01, 0.0]], np.float32)
        q, scale, zero = dynamic_weight_quantize(w, np.int8)
        self.assertEqual((q.dtype, zero.dtype, int(zero)), (np.int8, np.int8, 0))
        self.assertAlmostEqual(float(scale), 0.01, places=7)
        np.testing.assert_array_equal(q, [[-127, 50], [1, 0]])

    def test_uint8_covers_min_to_max_including_zero(self):
        w = np.array([0.5, 1.0, 2.55], np.float32)  # all positive: the range starts at 0
        q, scale, zero = dynamic_weight_quantize(w, np.uint8)
        self.assertEqual((q.dtype, int(zero)), (np.uint8, 0))
        np.testing.assert_array_equal(q, [50, 100, 255])
        w = np.array([-1.0, 0.0, 1.55], np.float32)
        q, scale, zero = dynamic_weight_quantize(w, np.uint8)
        self.assertEqual(int(zero), 100)
        np.testing.assert_array_equal(q, [0, 100, 255])


class Layouts(TempDir):
    def model(self, name):
        sidecar = generate(name, self.dir)
        path = os.path.join(self.dir, name + ".onnx")
        return onnx.load(path, load_external_data=False), sidecar

    def test_genai_int4_is_the_builders_cpu_layout(self):
        m, sidecar = self.model("genai_tiny_int4_b32_acc4")
        g = m.graph
        self.assertEqual((m.ir_version, m.producer_name), (10, "onnxruntime-genai"))
        self.assertEqual({o.domain: o.version for o in m.opset_import}, {"": 21, "com.microsoft": 1})
        self.assertEqual([i.name for i in g.input], [
            "input_ids", "attention_mask", "past_key_values.0.key", "past_key_values.1.key",
            "past_key_values.0.value", "past_key_values.1.value"])
        self.assertEqual([o.name for o in g.output], [
            "logits", "present.0.key", "present.1.key", "present.0.value", "present.1.value"])
        dims = [d.dim_param or d.dim_value for d in g.input[2].type.tensor_type.shape.dim]
        self.assertEqual(dims, ["batch_size", 2, "past_sequence_length", "kv_cache_dim"])
        ops = Counter(n.op_type for n in g.node)
        # qkv, o, gate, up, down per layer, and lm_head.
        self.assertEqual(ops["MatMulNBits"], 5 * 2 + 1)
        self.assertEqual((ops["MatMul"], ops["GroupQueryAttention"]), (0, 2))
        self.assertEqual((ops["SimplifiedLayerNormalization"],
                          ops["SkipSimplifiedLayerNormalization"]), (1, 4))
        nodes = {n.name: n for n in g.node}
        qkv = nodes["/model/layers.0/attn/qkv_proj/MatMul_Q4"]
        attrs = {a.name: helper.get_attribute_value(a) for a in qkv.attribute}
        self.assertEqual(attrs, {"K": 64, "N": 64 + 2 * 32, "bits": 4, "block_size": 32,
                                 "accuracy_level": 4})
        self.assertEqual(list(qkv.input), [
            "/model/layers.0/input_layernorm/output_0",
            "model.layers.0.attn.qkv_proj.MatMul.weight_Q4",
            "model.layers.0.attn.qkv_proj.MatMul.weight_scales"])
        self.assertEqual(qkv.output[0], "/model/layers.0/attn/qkv_proj/MatMul/output_0")
        gqa = nodes["/model/layers.1/attn/GroupQueryAttention"]
        attrs = {a.name: helper.get_attribute_value(a) for a in gqa.attribute}
        self.assertEqual((attrs["do_rotary"], attrs["num_heads"], attrs["kv_num_heads"],
                          attrs["local_window_size"]), (1, 4, 2, -1))
        self.assertEqual(list(gqa.input[5:9]), [
            "/model/attn_mask_reformat/attn_mask_subgraph/Sub/Cast/output_0",
            "/model/attn_mask_reformat/attn_mask_subgraph/Gather/Cast/output_0",
            "cos_cache", "sin_cache"])
        self.assertEqual(nodes["/lm_head/MatMul_Q4"].output[0], "logits")
        # Every initializer lives in the one external file, as the builder writes them.
        for t in g.initializer:
            self.assertEqual(t.data_location, onnx.TensorProto.EXTERNAL, t.name)
            self.assertEqual({e.key: e.value for e in t.external_data}["location"],
                             "genai_tiny_int4_b32_acc4.onnx.data")
        self.assertEqual(sidecar["quantization"], {
            "method": "MatMulNBits", "bits": 4, "block_size": 32, "accuracy_level": 4,
            "zero_points": False, "gather": "float"})

    def test_builders_before_2026_interleave_the_cache_inputs(self):
        m, sidecar = self.model("genai_tiny_fp32_interleaved")
        self.assertEqual([i.name for i in m.graph.input][2:], [
            "past_key_values.0.key", "past_key_values.0.value", "past_key_values.1.key",
            "past_key_values.1.value"])
        dims = [d.dim_param or d.dim_value for d in m.graph.output[1].type.tensor_type.shape.dim]
        self.assertEqual(dims, ["batch_size", 2, "total_sequence_length", 16])
        self.assertEqual([s["name"] for s in sidecar["phases"]["decode"]["inputs"]][2:4],
                         ["past_key_values.0.key", "past_key_values.0.value"])

    def test_zero_points_and_mha_variant(self):
        m, _ = self.model("genai_tiny_mha_int4_b32_zp_acc0")
        nodes = {n.name: n for n in m.graph.node}
        q = nodes["/model/layers.0/attn/q_proj/MatMul_Q4"]
        self.assertEqual(q.input[3], "model.layers.0.attn.q_proj.MatMul.weight_zero_points")
        self.assertEqual(nodes["/model/layers.0/attn/k_rotary/RotaryEmbedding"].input[1],
                         "position_ids")
        mha = nodes["/model/layers.0/attn/MultiHeadAttention"]
        self.assertEqual(mha.input[5], "/model/attn_mask_reformat/Tile/output_0")
        self.assertIn("position_ids", [i.name for i in m.graph.input])

    def test_interleaved_and_partial_rotary(self):
        m, _ = self.model("genai_tiny_fp32_rotary_interleaved")
        gqa = {n.name: n for n in m.graph.node}["/model/layers.0/attn/GroupQueryAttention"]
        attrs = {a.name: helper.get_attribute_value(a) for a in gqa.attribute}
        self.assertEqual(attrs["rotary_interleaved"], 1)
        m, _ = self.model("genai_tiny_mha_fp32_partial_interleaved")
        nodes = {n.name: n for n in m.graph.node}
        rot = nodes["/model/layers.1/attn/q_rotary/RotaryEmbedding"]
        attrs = {a.name: helper.get_attribute_value(a) for a in rot.attribute}
        self.assertEqual((attrs["interleaved"], attrs["rotary_embedding_dim"], attrs["num_heads"]),
                         (1, 8, 4))
        # The caches hold the rotated half of the 16-wide heads: [context, 8 / 2].
        caches = {t.name: list(t.dims) for t in m.graph.initializer if t.name.endswith("_cache")}
        self.assertEqual(caches, {"cos_cache": [128, 4], "sin_cache": [128, 4]})

    def test_tied_embeddings_share_or_copy_as_the_builder_does(self):
        m, _ = self.model("genai_tiny_fp32_tied")
        names = {t.name for t in m.graph.initializer}
        self.assertNotIn("model.embed_tokens.weight", names)  # Gather(Transpose(lm_head))
        m, _ = self.model("genai_tiny_int4_tied_acc0")
        names = {t.name for t in m.graph.initializer}
        self.assertTrue({"model.embed_tokens.weight", "lm_head.MatMul.weight_Q4"} <= names)
        m, _ = self.model("genai_tiny_int4_tied_gbq_acc0")
        names = {t.name for t in m.graph.initializer}
        self.assertNotIn("model.embed_tokens.weight", names)
        gbq = [n for n in m.graph.node if n.op_type == "GatherBlockQuantized"][0]
        self.assertEqual(gbq.input[2], "lm_head.MatMul.weight_scales")
        # Untied with Gather quantized: the quantizer's own int4 / uint4 table.
        for name, dtype in (("genai_tiny_int4_gbq_acc4", 22), ("genai_tiny_int4_gbq_zp_acc0", 21)):
            m, _ = self.model(name)
            types = {t.name: t.data_type for t in m.graph.initializer}
            gbq = {n.name: n for n in m.graph.node}["/model/embed_tokens/Gather_Q4"]
            self.assertEqual(types[gbq.input[0]], dtype, name)
            self.assertEqual(gbq.output[0], "/model/embed_tokens/Gather/output_0")
            self.assertEqual(len(gbq.input), 3 if dtype == 22 else 4)

    def test_quantize_dynamic_pattern(self):
        m, sidecar = self.model("bert_tiny_int8")
        ops = Counter(n.op_type for n in m.graph.node)
        layers = sidecar["sizes"]["layers"]
        # Per layer the attention input (shared by q, k, v), the context, the FFN input and
        # the GELU output are quantized once each; six weights per layer.
        self.assertEqual(ops["DynamicQuantizeLinear"], 4 * layers)
        self.assertEqual(ops["MatMulInteger"], 6 * layers)
        self.assertEqual(ops["MatMul"], 2 * layers)  # scores and context stay float
        self.assertEqual(ops["DequantizeLinear"], 3)  # the three embedding tables
        nodes = {n.name: n for n in m.graph.node}
        mmi = nodes["/encoder/layer.0/attention/self/query/MatMul_quant"]
        x = "/embeddings/LayerNorm/Add_1_output_0"
        self.assertEqual(list(mmi.input), [f"{x}_quantized", "onnx::MatMul_1000_quantized",
                                           f"{x}_zero_point", "onnx::MatMul_1000_zero_point"])
        inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
        self.assertEqual(inits["onnx::MatMul_1000_quantized"].dtype, np.int8)
        self.assertEqual(int(inits["onnx::MatMul_1000_zero_point"]), 0)
        self.assertEqual(m.producer_name, "onnx.quantize")

    def test_optimum_layout(self):
        m, _ = self.model("optimum_tiny_fp32")
        self.assertEqual([i.name for i in m.graph.input][:5], [
            "input_ids", "attention_mask", "position_ids", "past_key_values.0.key",
            "past_key_values.0.value"])
        ops = Counter(n.op_type for n in m.graph.node)
        self.assertFalse({o.domain for o in m.opset_import} - {""})
        self.assertEqual((ops["Softmax"], ops["Concat"] >= 4, ops["Expand"] >= 2), (2, True, True))


class Sidecars(TempDir):
    def test_feeds_give_an_empty_past_for_prefill_and_a_random_one_for_decode(self):
        sidecar = generate("genai_tiny_mha_fp32", self.dir)
        pre, dec = (feed_arrays(sidecar["phases"][p]) for p in ("prefill", "decode"))
        self.assertEqual(pre["past_key_values.0.key"].shape, (1, 4, 0, 16))
        self.assertEqual(dec["past_key_values.1.value"].shape, (1, 4, 7, 16))
        self.assertGreater(dec["past_key_values.1.value"].std(), 0.5)
        self.assertEqual(dec["attention_mask"].shape, (1, 8))
        np.testing.assert_array_equal(dec["position_ids"], [[7]])
        np.testing.assert_array_equal(pre["position_ids"], [[0, 1, 2, 3, 4]])
        self.assertTrue(((pre["input_ids"] >= 0) & (pre["input_ids"] < 1000)).all())
        self.assertEqual(len(set(pre["input_ids"].reshape(-1))), 5)
        for phase in ("prefill", "decode"):
            for spec in sidecar["phases"][phase]["inputs"]:
                npy = os.path.join(self.dir, sidecar["phases"][phase]["npy_dir"],
                                   spec["name"] + ".npy")
                self.assertEqual(list(np.load(npy).shape), spec["shape"])

    def test_encoder_feed_pads_the_tail_and_has_two_segments(self):
        sidecar = generate("bert_tiny_fp32", self.dir)
        feed = feed_arrays(sidecar["phases"]["prefill"])
        np.testing.assert_array_equal(feed["attention_mask"], [[1, 1, 1, 1, 0]])
        np.testing.assert_array_equal(feed["token_type_ids"], [[0, 0, 1, 1, 1]])


class Cli(TempDir):
    def run_cli(self, *args):
        return subprocess.run([sys.executable, MAKE, *args], capture_output=True, text=True)

    def digest(self, directory, name):
        out = hashlib.sha256()
        for suffix in (".onnx", ".onnx.data", ".json", ".decode.inputs.safetensors"):
            path = os.path.join(directory, name + suffix)
            if os.path.exists(path):
                with open(path, "rb") as f:
                    out.update(f.read())
        return out.hexdigest()

    def test_same_arguments_give_the_same_bytes(self):
        names = "genai_tiny_int4_b16_zp_acc0,bert_tiny_uint8"
        other = os.path.join(self.dir, "again")
        for d in (self.dir, other):
            r = self.run_cli(d, "--only", names)
            self.assertEqual(r.returncode, 0, r.stderr)
        for name in names.split(","):
            self.assertEqual(self.digest(self.dir, name), self.digest(other, name), name)
        self.assertNotEqual(self.digest(self.dir, "genai_tiny_int4_b16_zp_acc0"),
                            self.digest(self.dir, "bert_tiny_uint8"))

    def test_list_and_unknown_names(self):
        listing = self.run_cli("--list", "--size", "all").stdout.splitlines()
        names = [line.split("\t")[0] for line in listing]
        self.assertIn("genai_bench_int4", names)
        self.assertIn("bert_tiny_int8", names)
        tiny = self.run_cli("--list").stdout
        self.assertNotIn("genai_bench_int4", tiny)
        r = self.run_cli(self.dir, "--only", "genai_tiny_fp32,genai_huge")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("unknown model(s) genai_huge", r.stderr)

    def test_bench_decoder_sizes(self):
        line = [l for l in self.run_cli("--list", "--size", "bench").stdout.splitlines()
                if l.startswith("genai_bench_int4\t")][0]
        self.assertIn("122,962,944 params", line)


if __name__ == "__main__":
    unittest.main()
