"""Every model the generator writes: tiny ones for unit tests, big ones for benchmarks."""

from .config import Decoder, Encoder, NBits, Variant

TINY = Decoder(layers=2, hidden=64, heads=4, kv_heads=2, intermediate=176, vocab=1000)
TINY_MHA = Decoder(layers=2, hidden=64, heads=4, kv_heads=4, intermediate=176, vocab=1000,
                   attention="mha")
TINY_TIED = Decoder(layers=2, hidden=64, heads=4, kv_heads=2, intermediate=176, vocab=1000,
                    tied=True)
# The benchmark decoder: 8 layers, hidden 1024, 16 query and 4 key/value heads, intermediate
# 2816, vocabulary 32000 (Llama's), tied embeddings.
BENCH = Decoder(layers=8, hidden=1024, heads=16, kv_heads=4, intermediate=2816, vocab=32000,
                context=2048, tied=True)
BERT_TINY = Encoder(layers=2, hidden=64, heads=4, intermediate=160, vocab=1000, positions=128)
# all-MiniLM-L6-v2's shape (transformers.js' feature-extraction default).
MINILM = Encoder(layers=6, hidden=384, heads=12, intermediate=1536, vocab=30522)


def _q(c, **nbits):
    from dataclasses import replace

    return replace(c, nbits=NBits(**nbits))


def _e(c, **changes):
    from dataclasses import replace

    return replace(c, **changes)


GENAI = "decoder-genai"
OPTIMUM = "decoder-optimum"
ENCODER = "encoder"

VARIANTS = [
    Variant("genai_tiny_fp32", GENAI, TINY, "tiny", "GQA with rotary inside, fp32 MatMul"),
    Variant("genai_tiny_fp32_interleaved", GENAI, _e(TINY, io_order="interleaved"), "tiny",
            "the inputs of builders before March 2026: key and value per layer, head_dim fixed"),
    Variant("genai_tiny_fp32_tied", GENAI, TINY_TIED, "tiny",
            "tied embeddings: Gather over Transpose(lm_head weight)"),
    Variant("genai_tiny_fp32_rotary_interleaved", GENAI, _e(TINY, rotary_interleaved=True),
            "tiny", "GQA rotating adjacent pairs (rotary_interleaved=1)"),
    Variant("genai_tiny_mha_fp32_partial_rotary", GENAI, _e(TINY_MHA, rotary_dim=8), "tiny",
            "RotaryEmbedding of half of each head (rotary_embedding_dim, phi's partial rotary)"),
    Variant("genai_tiny_mha_fp32_partial_interleaved", GENAI,
            _e(TINY_MHA, rotary_dim=8, rotary_interleaved=True), "tiny",
            "RotaryEmbedding of adjacent pairs in half of each head"),
    Variant("genai_tiny_mha_fp32", GENAI, TINY_MHA, "tiny",
            "RotaryEmbedding + MultiHeadAttention, 4D mask, position_ids input"),
    Variant("genai_tiny_int4_b32_acc4", GENAI, _q(TINY), "tiny",
            "the builder's CPU int4 default: symmetric, block 32, accuracy_level 4"),
    Variant("genai_tiny_int4_b32_acc4_interleaved", GENAI,
            _e(_q(TINY), io_order="interleaved"), "tiny",
            "the CPU int4 default with the pre-2026 interleaved inputs"),
    Variant("genai_tiny_int4_b32_acc0", GENAI, _q(TINY, accuracy_level=0), "tiny",
            "int4 symmetric block 32, accuracy_level 0"),
    Variant("genai_tiny_int4_b16_zp_acc0", GENAI,
            _q(TINY, block_size=16, symmetric=False, accuracy_level=0), "tiny",
            "int4 with zero points, block 16"),
    Variant("genai_tiny_int4_b64_zp_acc4", GENAI,
            _q(TINY, block_size=64, symmetric=False), "tiny", "int4 with zero points, block 64"),
    Variant("genai_tiny_int4_b128_acc0", GENAI, _q(TINY, block_size=128, accuracy_level=0), "tiny",
            "int4 block 128 (K = 64 pads a single block)"),
    Variant("genai_tiny_int8_b32_acc0", GENAI, _q(TINY, bits=8, accuracy_level=0), "tiny",
            "int8 symmetric block 32"),
    Variant("genai_tiny_int8_b32_zp_acc4", GENAI, _q(TINY, bits=8, symmetric=False), "tiny",
            "int8 with zero points, block 32, accuracy_level 4"),
    Variant("genai_tiny_int4_tied_acc0", GENAI, _q(TINY_TIED, accuracy_level=0), "tiny",
            "tied, int4: float embedding table plus lm_head's own packed copy"),
    Variant("genai_tiny_int4_tied_gbq_acc0", GENAI,
            _e(_q(TINY_TIED, accuracy_level=0), quantize_gather=True), "tiny",
            "tied, int4 with Gather quantized: GatherBlockQuantized over lm_head's packed weight"),
    Variant("genai_tiny_int4_gbq_acc4", GENAI, _e(_q(TINY), quantize_gather=True), "tiny",
            "int4 with Gather quantized: an int4 GatherBlockQuantized table, block 32"),
    Variant("genai_tiny_int4_gbq_zp_acc0", GENAI,
            _e(_q(TINY, block_size=16, symmetric=False, accuracy_level=0), quantize_gather=True),
            "tiny", "uint4 GatherBlockQuantized table with uint4 zero points, block 16"),
    Variant("genai_tiny_mha_int4_b32_zp_acc0", GENAI,
            _q(TINY_MHA, symmetric=False, accuracy_level=0), "tiny",
            "RotaryEmbedding + MultiHeadAttention with int4 weights"),
    Variant("optimum_tiny_fp32", OPTIMUM, TINY, "tiny",
            "optimum-style Llama with past: standard ops, opset 14"),
    Variant("bert_tiny_fp32", ENCODER, BERT_TINY, "tiny",
            "transformers.js BERT, opset 14 (LayerNorm decomposed)"),
    Variant("bert_tiny_fp32_opset17", ENCODER, _e(BERT_TINY, opset=17), "tiny",
            "transformers.js BERT, opset 17 LayerNormalization"),
    Variant("bert_tiny_int8", ENCODER, _e(BERT_TINY, quantized="int8"), "tiny",
            "quantize_dynamic, int8 weights (transformers.js' model_quantized.onnx)"),
    Variant("bert_tiny_uint8", ENCODER, _e(BERT_TINY, quantized="uint8"), "tiny",
            "quantize_dynamic, uint8 weights (transformers.js' model_uint8.onnx)"),
    Variant("genai_bench_int4", GENAI, _q(BENCH), "bench",
            "benchmark decoder, the builder's CPU int4 default", prefill=128, past=127),
    Variant("genai_bench_int4_gbq", GENAI, _e(_q(BENCH), quantize_gather=True), "bench",
            "benchmark decoder, int4 with the embedding shared through GatherBlockQuantized",
            prefill=128, past=127),
    Variant("genai_bench_int4_untied_gbq", GENAI, _e(_q(BENCH), tied=False, quantize_gather=True),
            "bench", "benchmark decoder untied, int4 everywhere: int4 GatherBlockQuantized table "
            "and lm_head MatMulNBits", prefill=128, past=127),
    Variant("genai_bench_fp32", GENAI, BENCH, "bench", "benchmark decoder, fp32",
            prefill=128, past=127),
    Variant("optimum_bench_fp32", OPTIMUM, _e(BENCH, tied=False), "bench",
            "benchmark decoder, optimum layout", prefill=128, past=127),
    Variant("minilm_fp32", ENCODER, MINILM, "bench", "all-MiniLM-L6-v2 sized BERT", prefill=128),
    Variant("minilm_int8", ENCODER, _e(MINILM, quantized="int8"), "bench",
            "all-MiniLM-L6-v2 sized BERT, quantize_dynamic int8", prefill=128),
]

BY_NAME = {v.name: v for v in VARIANTS}
