"""com.microsoft attention operators (RotaryEmbedding, GroupQueryAttention, MultiHeadAttention,
Attention) through wnn convert + wnn run against ONNX Runtime.

Run: WNN=build/wnn /usr/bin/python3 -m unittest discover -s tests/onnx -p 'test_*.py'
"""

import unittest

import numpy as np
from onnx import helper

from contrib_harness import F16_TOL, ContribCase, ContribTestBase, pack_rows


def ms_node(op, inputs, outputs, **attrs):
    return helper.make_node(op, inputs, outputs, domain="com.microsoft", **attrs)


class AttentionTest(ContribTestBase):
    def caches(self, positions, rotary_dim):
        inv = 1.0 / (10000 ** (np.arange(0, rotary_dim, 2) / rotary_dim))
        angles = np.arange(positions)[:, None] * inv[None, :]
        return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)

    # --- RotaryEmbedding -----------------------------------------------------------------

    def rotary_3d(self, interleaved):
        cos, sin = self.caches(16, 8)
        pos = self.rng.integers(0, 16, size=(2, 5)).astype(np.int64)
        node = ms_node("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["y"],
                       interleaved=interleaved)
        return ContribCase([node], {"x": self.rand(2, 5, 24), "pos": pos},
                           {"cos": cos, "sin": sin}, ["y"])

    def test_rotary_3d_halves_with_position_ids(self):
        self.check(self.rotary_3d(0))

    def test_rotary_3d_interleaved_with_position_ids(self):
        self.check(self.rotary_3d(1))

    def test_rotary_4d_with_offset_position(self):
        cos, sin = self.caches(12, 6)
        node = ms_node("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["y"], interleaved=1)
        self.check(ContribCase([node], {"x": self.rand(2, 3, 4, 6),
                                        "pos": np.array([5], np.int64)},
                               {"cos": cos, "sin": sin}, ["y"]))

    def test_rotary_partial_rotary_dim(self):
        cos, sin = self.caches(10, 4)
        node = ms_node("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["y"], num_heads=2,
                       rotary_embedding_dim=4)
        pos = self.rng.integers(0, 10, size=(1, 3)).astype(np.int64)
        self.check(ContribCase([node], {"x": self.rand(1, 3, 16), "pos": pos},
                               {"cos": cos, "sin": sin}, ["y"]))

    def test_rotary_scale_is_unsupported(self):
        case = self.rotary_3d(0)
        case.nodes[0].attribute.append(helper.make_attribute("scale", 0.5))
        self.expect_unsupported(case, "RotaryEmbedding", "scale=0.5")

    # --- GroupQueryAttention -------------------------------------------------------------

    def gqa(self, b=2, s=4, past=0, n=4, nkv=2, h=8, packed=False, rotary=None, seqlens=None,
            **attrs):
        t = past + s
        inputs = {}
        if packed:
            inputs["q"] = self.rand(b, s, (n + 2 * nkv) * h)
            names = ["q", "", ""]
        else:
            inputs.update(q=self.rand(b, s, n * h), k=self.rand(b, s, nkv * h),
                          v=self.rand(b, s, nkv * h))
            names = ["q", "k", "v"]
        if past:
            inputs.update(pk=self.rand(b, nkv, past, h), pv=self.rand(b, nkv, past, h))
            names += ["pk", "pv"]
        else:
            names += ["", ""]
        inputs["seqlens"] = np.array(seqlens or [t - 1] * b, np.int32)
        inits = {"total": np.array(t, np.int32)}
        names += ["seqlens", "total"]
        if rotary is not None:
            cos, sin = self.caches(32, h)
            inits.update(cos=cos, sin=sin)
            names += ["cos", "sin"]
            attrs.update(do_rotary=1, rotary_interleaved=rotary)
        node = ms_node("GroupQueryAttention", names, ["out", "present_k", "present_v"],
                       num_heads=n, kv_num_heads=nkv, **attrs)
        return ContribCase([node], inputs, inits, ["out", "present_k", "present_v"])

    def test_gqa_prompt_grouped_heads(self):
        self.check(self.gqa())

    def test_gqa_right_padded_prompt_masks_keys_past_seqlens(self):
        self.check(self.gqa(seqlens=[3, 1], n=2, nkv=1))

    def test_gqa_decode_step_with_past_and_rotary(self):
        self.check(self.gqa(s=1, past=5, h=16, rotary=0))

    def test_gqa_ragged_decode_batch(self):
        # Batch 1 has only 3 of the 5 past rows filled: ORT writes its new token at row 3 and
        # masks rows 4 and 5. Rows past a batch's last token are unspecified, so only the
        # output is compared.
        case = self.gqa(s=1, past=5, h=16, rotary=1, seqlens=[5, 3])
        case.outputs = ["out"]
        self.check(case)

    def test_gqa_single_batch_decode_four_query_heads_per_key_head(self):
        # One batch: the new rows are placed by a gather, and each key/value head's four query
        # heads share one matmul (no copies of the key/value heads).
        self.check(self.gqa(b=1, s=1, past=6, n=8, nkv=2, h=16, rotary=1))

    def test_gqa_single_batch_decode_inside_its_past_buffer(self):
        # seqlens 3 of a 5-row past: the new token goes to row 3 (rows after it unspecified).
        case = self.gqa(b=1, s=1, past=5, n=8, nkv=2, h=16, rotary=0, seqlens=[3])
        case.outputs = ["out"]
        self.check(case)

    def test_gqa_float16_decode_with_rotary(self):
        case = self.gqa(s=1, past=5, h=16, rotary=0)
        for name in ("q", "k", "v", "pk", "pv"):
            case.inputs[name] = case.inputs[name].astype(np.float16)
        for name in ("cos", "sin"):
            case.inits[name] = case.inits[name].astype(np.float16)
        case.out_dtype, case.tol = np.dtype(np.float16), F16_TOL
        self.check(case)

    def test_gqa_multi_token_step_with_past_interleaved_rotary(self):
        self.check(self.gqa(b=1, s=3, past=4, n=6, nkv=3, h=16, rotary=1, scale=0.2))

    def test_gqa_packed_qkv_equal_heads_with_window_and_softcap(self):
        self.check(self.gqa(s=6, n=2, nkv=2, packed=True, local_window_size=2, softcap=1.5))

    def test_gqa_prompt_with_rotary_halves(self):
        self.check(self.gqa(b=1, s=5, n=4, nkv=1, h=16, rotary=0))

    def test_gqa_local_window_alone(self):
        self.check(self.gqa(s=6, n=2, nkv=2, packed=True, local_window_size=3))

    def test_gqa_smooth_softmax_with_past(self):
        self.check(self.gqa(b=1, s=3, past=2, smooth_softmax=1))

    def test_gqa_not_causal(self):
        self.check(self.gqa(s=3, causal=0))

    def test_gqa_attention_bias_with_past(self):
        case = self.gqa(b=1, s=3, past=2)
        case.nodes[0].input.extend(["", "", "", "ab"])
        case.inputs["ab"] = self.rand(1, 4, 3, 5)
        self.check(case)

    def test_gqa_head_sink(self):
        case = self.gqa(b=1, s=3, past=2)
        case.nodes[0].input.extend(["", "", "", "", "sink"])
        case.inits["sink"] = self.rand(4)
        self.check(case)

    def test_gqa_run_time_total_sequence_length_is_unsupported(self):
        case = self.gqa()
        case.inputs["total"] = case.inits.pop("total")
        self.expect_unsupported(case, "GroupQueryAttention", "total_sequence_length")

    def test_gqa_pinned_total_sequence_length(self):
        case = self.gqa(s=1, past=5, h=16, rotary=1)
        case.inputs["total"] = case.inits.pop("total")
        self.check(case, pins=[("total", 6)])

    def test_gqa_with_seqlens_and_total_computed_from_attention_mask(self):
        # As onnxruntime-genai exports do: seqlens_k = ReduceSum(mask) - 1 at run time, and
        # total_sequence_length = Shape(mask)[1], which folds to a constant.
        case = self.gqa(b=1, s=1, past=3, h=16, rotary=0)
        del case.inputs["seqlens"], case.inits["total"]
        case.inputs["mask"] = np.ones((1, 4), np.int64)
        case.inits.update(axes=np.array([1], np.int64), one=np.array(1, np.int64),
                          index=np.array(1, np.int64))
        case.nodes[:0] = [
            helper.make_node("ReduceSum", ["mask", "axes"], ["sum"], keepdims=0),
            helper.make_node("Sub", ["sum", "one"], ["sum1"]),
            helper.make_node("Cast", ["sum1"], ["seqlens"], to=6),
            helper.make_node("Shape", ["mask"], ["mask_shape"]),
            helper.make_node("Gather", ["mask_shape", "index"], ["total64"], axis=0),
            helper.make_node("Cast", ["total64"], ["total"], to=6)]
        self.check(case)

    def test_gqa_qk_output_is_unsupported(self):
        case = self.gqa()
        case.nodes[0].attribute.append(helper.make_attribute("qk_output", 1))
        self.expect_unsupported(case, "GroupQueryAttention", "qk_output=1")

    # --- MultiHeadAttention --------------------------------------------------------------

    def test_mha_self_attention_bias_and_key_padding_mask(self):
        mask = np.ones((2, 5), np.int32)
        mask[0, 3:] = 0
        mask[1, 0] = 0
        node = ms_node("MultiHeadAttention", ["q", "k", "v", "bias", "mask"], ["out"],
                       num_heads=2)
        inputs = {"q": self.rand(2, 5, 16), "k": self.rand(2, 5, 16), "v": self.rand(2, 5, 16),
                  "mask": mask}
        self.check(ContribCase([node], inputs, {"bias": self.rand(48)}, ["out"]))

    def test_mha_unidirectional_with_past_attention_bias_and_present(self):
        node = ms_node("MultiHeadAttention",
                       ["q", "k", "v", "", "", "ab", "pk", "pv"], ["out", "pres_k", "pres_v"],
                       num_heads=2, unidirectional=1)
        inputs = {"q": self.rand(2, 3, 16), "k": self.rand(2, 3, 16), "v": self.rand(2, 3, 16),
                  "ab": self.rand(1, 2, 3, 7), "pk": self.rand(2, 2, 4, 8),
                  "pv": self.rand(2, 2, 4, 8)}
        self.check(ContribCase([node], inputs, {}, ["out", "pres_k", "pres_v"]))

    def test_mha_cross_attention_custom_scale_and_mask_filter(self):
        mask = np.ones((2, 6), np.int32)
        mask[1, 4:] = 0
        node = ms_node("MultiHeadAttention", ["q", "k", "v", "", "mask"], ["out"], num_heads=4,
                       scale=0.3, mask_filter_value=-50.0)
        inputs = {"q": self.rand(2, 4, 16), "k": self.rand(2, 6, 16), "v": self.rand(2, 6, 16),
                  "mask": mask}
        self.check(ContribCase([node], inputs, {}, ["out"]))

    def test_mha_bnsh_key_value(self):
        node = ms_node("MultiHeadAttention", ["q", "k", "v"], ["out"], num_heads=2)
        inputs = {"q": self.rand(1, 3, 8), "k": self.rand(1, 2, 5, 4), "v": self.rand(1, 2, 5, 4)}
        self.check(ContribCase([node], inputs, {}, ["out"]))

    def test_mha_key_lengths_mask_unidirectional(self):
        node = ms_node("MultiHeadAttention", ["q", "k", "v", "", "mask"], ["out"], num_heads=2,
                       unidirectional=1)
        inputs = {"q": self.rand(2, 4, 8), "k": self.rand(2, 4, 8), "v": self.rand(2, 4, 8),
                  "mask": np.array([3, 4], np.int32)}
        self.check(ContribCase([node], inputs, {}, ["out"]))

    def test_mha_3d_mask(self):
        mask = (self.rng.uniform(size=(2, 3, 5)) > 0.3).astype(np.int32)
        mask[:, :, 0] = 1
        node = ms_node("MultiHeadAttention", ["q", "k", "v", "", "mask"], ["out"], num_heads=2)
        inputs = {"q": self.rand(2, 3, 8), "k": self.rand(2, 5, 8), "v": self.rand(2, 5, 8),
                  "mask": mask}
        self.check(ContribCase([node], inputs, {}, ["out"]))

    def test_mha_cache_indirection_is_unsupported(self):
        node = ms_node("MultiHeadAttention", ["q", "k", "v", "", "", "", "", "", "", "ci"],
                       ["out"], num_heads=2)
        inputs = {"q": self.rand(1, 1, 8), "k": self.rand(1, 1, 8), "v": self.rand(1, 1, 8),
                  "ci": np.zeros((1, 1, 4), np.int32)}
        self.expect_unsupported(ContribCase([node], inputs, {}, ["out"]), "MultiHeadAttention",
                                "cache_indirection")

    # --- Attention -----------------------------------------------------------------------

    def test_attention_bidirectional_raw_mask(self):
        mask = np.ones((2, 5), np.int32)
        mask[1, 3:] = 0
        node = ms_node("Attention", ["x", "w", "b", "mask"], ["out"], num_heads=3)
        self.check(ContribCase([node], {"x": self.rand(2, 5, 12), "mask": mask},
                               {"w": self.rand(12, 36, scale=0.3), "b": self.rand(36)}, ["out"]))

    def test_attention_unidirectional_with_past_lengths_mask_and_present(self):
        node = ms_node("Attention", ["x", "w", "b", "mask", "past"], ["out", "present"],
                       num_heads=2, unidirectional=1)
        inputs = {"x": self.rand(2, 3, 8), "mask": np.array([6, 4], np.int32),
                  "past": self.rand(2, 2, 2, 3, 4)}
        self.check(ContribCase([node], inputs, {"w": self.rand(8, 24, scale=0.3),
                                                "b": self.rand(24)}, ["out", "present"]))

    def test_attention_qkv_hidden_sizes_and_left_padding(self):
        # ORT 1.30's CPU kernel crashes without a bias, though the schema makes it optional.
        node = ms_node("Attention", ["x", "w", "b", "mask"], ["out"], num_heads=2,
                       qkv_hidden_sizes=[8, 8, 6], scale=0.25)
        inputs = {"x": self.rand(2, 4, 10), "mask": np.array([4, 4, 1, 0], np.int32)}
        self.check(ContribCase([node], inputs, {"w": self.rand(10, 22, scale=0.3),
                                                "b": self.rand(22)}, ["out"]))

    def test_attention_3d_mask_with_attention_bias(self):
        mask = (self.rng.uniform(size=(2, 4, 4)) > 0.3).astype(np.int32)
        mask[:, :, 1] = 1
        node = ms_node("Attention", ["x", "w", "b", "mask", "", "ab"], ["out"], num_heads=2,
                       mask_filter_value=-30.0)
        inputs = {"x": self.rand(2, 4, 8), "mask": mask, "ab": self.rand(2, 1, 4, 4)}
        self.check(ContribCase([node], inputs, {"w": self.rand(8, 24, scale=0.3),
                                                "b": self.rand(24)}, ["out"]))

    def test_attention_do_rotary_is_unsupported(self):
        node = ms_node("Attention", ["x", "w", "b"], ["out"], num_heads=2, do_rotary=1)
        case = ContribCase([node], {"x": self.rand(1, 2, 8)},
                           {"w": self.rand(8, 24), "b": self.rand(24)}, ["out"])
        self.expect_unsupported(case, "Attention", "do_rotary=1")

    # --- a decoder layer as onnxruntime-genai exports it ---------------------------------

    def nbits_weight(self, prefix, k, n, block=32):
        """Initializers of a 4-bit MatMulNBits weight [k -> n] with packed zero points."""
        blocks = k // block
        q = self.rng.integers(0, 16, size=(n, k), dtype=np.uint8)
        zp = self.rng.integers(4, 12, size=(n, blocks), dtype=np.uint8)
        return {prefix + "_B": pack_rows(q, 4).reshape(n, blocks, block // 2),
                prefix + "_s": self.rng.uniform(0.005, 0.02, n * blocks).astype(np.float32),
                prefix + "_zp": pack_rows(zp, 4).reshape(-1)}

    def test_genai_style_decoder_layer_decode_step(self):
        d, n, nkv, h, past, inter = 64, 4, 2, 16, 6, 96
        inits = {"ln1": self.rand(d) + 1, "ln2": self.rand(d) + 1, "total": np.array(7, np.int32)}
        cos, sin = self.caches(32, h)
        inits.update(cos=cos, sin=sin)
        for name, k, nn in (("qkv", d, (n + 2 * nkv) * h), ("o", n * h, d), ("up", d, inter),
                            ("down", inter, d)):
            inits.update(self.nbits_weight(name, k, nn))

        def nbits(name, x, k, nn):
            return ms_node("MatMulNBits", [x, name + "_B", name + "_s", name + "_zp"], [name],
                           K=k, N=nn, bits=4, block_size=32)
        nodes = [
            # ORT registers SimplifiedLayerNormalization in the default domain.
            helper.make_node("SimplifiedLayerNormalization", ["x", "ln1"], ["h1"], epsilon=1e-6),
            nbits("qkv", "h1", d, (n + 2 * nkv) * h),
            ms_node("GroupQueryAttention", ["qkv", "", "", "pk", "pv", "seqlens", "total", "cos",
                                            "sin"], ["attn", "present_k", "present_v"],
                    num_heads=n, kv_num_heads=nkv, do_rotary=1),
            nbits("o", "attn", n * h, d),
            ms_node("SkipSimplifiedLayerNormalization", ["o", "x", "ln2"],
                    ["h2", "", "", "resid"], epsilon=1e-6),
            nbits("up", "h2", d, inter),
            ms_node("QuickGelu", ["up"], ["act"], alpha=1.702),
            nbits("down", "act", inter, d),
            helper.make_node("Add", ["down", "resid"], ["y"])]
        inputs = {"x": self.rand(2, 1, d), "pk": self.rand(2, nkv, past, h),
                  "pv": self.rand(2, nkv, past, h), "seqlens": np.array([6, 4], np.int32)}
        # A ragged batch (batch 1 has 5 of 7 positions); present_k/v are not compared.
        self.check(ContribCase(nodes, inputs, inits, ["y"], (1e-4, 1e-4)))


if __name__ == "__main__":
    unittest.main()

