// y = a @ dequantize(w)^T for a weight quantized per block of K to 4 or 8 bits (ONNX's
// MatMulNBits), read packed: no float copy of the weight is ever made. Two arithmetics:
// float32 (accuracy_level 0) and ONNX Runtime's accuracy_level 4, where each row of a is first
// quantized per block to int8 (symmetric, scale max|a| / 127, round half to even) and the
// block products are exact integer dot products. A scalar reference defines both; the AVX-512
// kernels (VNNI vpdpbusd for the int8 path) are picked at run time and checked against it.
#pragma once

#include <cstdint>
#include <string_view>

namespace wnn::kernels {

// The weight [n, k] as blocks of `block` elements along k (k padded to blocks * block).
struct BlockQuantizedMatrix {
  int64_t n = 0, k = 0, block = 0, blocks = 0;
  int bits = 4;
  // [n, blocks * block * bits / 8]: rows packed, 4-bit element 2i in the low nibble of byte i
  // and 2i + 1 in the high one (ONNX's MatMulNBits B, and the .safetensors packed uint4).
  const uint8_t* data = nullptr;
  const float* scales = nullptr;         // [n, blocks]
  const uint8_t* zero_points = nullptr;  // [n, blocks], one per byte; nullptr: `default_zero`
  int default_zero = 8;
  int64_t padded_k() const { return blocks * block; }
  int64_t row_bytes() const { return padded_k() * bits / 8; }
};

enum class ActivationArithmetic {
  kFloat32,       // sum of a * (q - zero) * scale in float32
  kInt8PerBlock,  // accuracy_level 4: a quantized per block, exact int32 block products
};

// kAvx512: AVX-512 F/BW/DQ/VL with VNNI (vpdpbusd for the int8 path). kAvx2: AVX2 with FMA
// (the int8 products as vpmaddwd of sign- and zero-extended 16-bit lanes, exact). kScalar:
// the definition.
enum class BlockMatmulIsa { kScalar, kAvx2, kAvx512 };
// Whether this CPU runs `isa`, and the best implementation it runs.
bool block_matmul_isa_supported(BlockMatmulIsa isa);
BlockMatmulIsa best_block_matmul_isa();
std::string_view isa_name(BlockMatmulIsa isa);

// The int8 quantization of one block of activations, as the graph form of accuracy_level 4
// writes it (onnx/ops/quantized_matmul.cc): scale = max(max|x| / 127, FLT_MIN), q = x / scale
// rounded half to even. Returns the scale.
float quantize_activation_block(const float* x, int64_t count, int8_t* q);
// The same computed by `isa`'s implementation (kAvx512: count a multiple of 16), which the
// kernel uses on each row of A; the results are identical.
float quantize_activation_block(const float* x, int64_t count, int8_t* q, BlockMatmulIsa isa);

// y [m, n] = a [m, k] @ dequantize(w)^T + bias [n] (bias may be null). `threads` OpenMP
// threads split n.
void block_quantized_matmul(const float* a, int64_t m, const BlockQuantizedMatrix& w,
                            const float* bias, float* y, ActivationArithmetic arithmetic,
                            int threads, BlockMatmulIsa isa);

}  // namespace wnn::kernels
