// com.microsoft quantized matrix products and tables: MatMulNBits (block-quantized 4/8-bit weights
// kept packed as uint4/uint8 constants behind a blocked dequantizeLinear), MatMulIntegerToFloat and
// DynamicQuantizeMatMul (exact integer products, integer_product.h, rescaled in float32), and
// GatherBlockQuantized (the embedding table of the same quantizer).
#include <limits>

#include "wnn/onnx/ops/dynamic_quantize.h"
#include "wnn/onnx/ops/integer_product.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

int64_t required_int(ConvertContext& c, std::string_view name) {
  auto v = c.attr_int(name);
  check(v.has_value(), "{} needs the attribute '{}'", c.node().op_type, name);
  return *v;
}

// Element e of row-packed `bits`-wide values (4: low nibble first; 8: one per byte).
uint8_t packed_element(const uint8_t* row, int64_t e, int64_t bits) {
  if (bits == 8) return row[e];
  const uint8_t byte = row[e / 2];
  return e % 2 == 0 ? (byte & 0x0F) : (byte >> 4);
}

// The MatMulNBits weight B [N, blocks, blob] as a uint4/uint8 tensor [N, K_padded] in B's own
// order: in memory int4 is one element per byte, and the weights writer packs it again into
// exactly B's bytes (low nibble first).
Tensor unpack_weight(const Tensor& b, int64_t n, int64_t k_padded, int64_t bits) {
  Tensor w = Tensor::zeros(bits == 4 ? DataType::kUint4 : DataType::kUint8, {n, k_padded});
  const auto* src = b.view().as<uint8_t>();
  auto* dst = w.mutable_view().as<uint8_t>();
  for (int64_t e = 0; e < n * k_padded; ++e) dst[e] = packed_element(src, e, bits);
  return w;
}

// accuracy_level 4 as ONNX Runtime's CPU kernel computes it, written out in WebNN ops: each row
// of A [M, K] is quantized per block of K (the weight's block size; the last block padded with
// zeros) to int8, symmetric, scale max|a| / 127 (FLT_MIN for an all-zero block, whose values
// quantize to 0 whatever it is), rounded half to even, and multiplied as its dequantized
// values. The products of int8 values and 4- or 8-bit weights are exact in float32 block by
// block, so any runtime computing this form reproduces ORT to float32 rounding of the sums;
// wnn's runtime runs the whole pattern as integer dot products (runtime/packed_matmul).
OperandId block_quantized_activation(ConvertContext& c, OperandId a, int64_t m, int64_t k,
                                     int64_t block) {
  const int64_t blocks = (k + block - 1) / block, k_padded = blocks * block;
  OperandId x = a;
  if (k_padded != k) {
    x = c.op(K::kPad, {x, RawValue(IntList{0, 0}), RawValue(IntList{0, k_padded - k})});
  }
  x = c.reshape(x, {m, blocks, block});
  OperandId amax =
      c.op(K::kReduceMax, {c.op(K::kAbs, {x})}, {{"axes", IntList{2}}, {"keepDimensions", true}});
  OperandId scale = c.op(K::kDiv, {amax, c.constant(DataType::kFloat32, {127.0})});
  scale =
      c.op(K::kMax,
           {scale, c.constant(DataType::kFloat32, {double(std::numeric_limits<float>::min())})});
  OperandId zero =
      c.op(K::kExpand, {c.constant(DataType::kInt8, {0.0}), RawValue(Shape{m, blocks, 1})});
  OperandId q = c.op(K::kQuantizeLinear, {x, scale, zero});
  OperandId y = c.reshape(c.op(K::kDequantizeLinear, {q, scale, zero}), {m, k_padded});
  if (k_padded != k) y = c.op(K::kSlice, {y, RawValue(IntList{0, 0}), RawValue(IntList{m, k})});
  return y;
}

void matmul_nbits(ConvertContext& c) {
  const int64_t k = required_int(c, "K"), n = required_int(c, "N");
  const int64_t block = required_int(c, "block_size"), bits = c.attr_int("bits", 4);
  if (bits != 4 && bits != 8) c.unsupported("bits={} (4 and 8 convert)", bits);
  // 0 and 1 multiply in float32; 4 quantizes A to int8 first (block_quantized_activation).
  const int64_t level = c.attr_int("accuracy_level", 0);
  if (level != 0 && level != 1 && level != 4) {
    c.unsupported("accuracy_level={} (0, 1 and 4 convert: float32, and int8 activations)", level);
  }
  if (auto pre = c.attr_int("weight_prepacked"); pre && *pre != 0) {
    c.unsupported("weight_prepacked={} (an execution-provider layout)", *pre);
  }
  check(k > 0 && n > 0 && block >= 16 && (block & (block - 1)) == 0,
        "MatMulNBits: K={}, N={}, block_size={} (a power of two >= 16) are invalid", k, n, block);
  const int64_t blocks = (k + block - 1) / block, k_padded = blocks * block;
  const Tensor* b = c.known(1);
  if (!b) c.unsupported("B (input 1) must be a constant: its packing is undone at import");
  check(b->dtype == DataType::kUint8 && b->size() == n * blocks * block * bits / 8,
        "MatMulNBits B has dtype {} and {} elements, expected uint8 [N={}, {}, {}]",
        dtype_name(b->dtype), b->size(), n, blocks, block * bits / 8);
  check(c.shape(2) == Shape{n * blocks} || c.shape(2) == Shape{n, blocks},
        "MatMulNBits scales have shape {}, expected [{}] or [{}, {}]", shape_to_string(c.shape(2)),
        n * blocks, n, blocks);
  if (const Tensor* g = c.known(4); c.has_input(4)) {
    if (!g) c.unsupported("g_idx computed at run time");
    // Measured: ORT 1.30's CPU kernel then dequantizes with the default zero point, ignoring
    // the given ones, so neither reading is a safe conversion.
    if (c.has_input(3) && c.dtype(3) == DataType::kUint8) {
      c.unsupported("g_idx together with packed uint8 zero_points");
    }
    check(g->size() == k, "MatMulNBits g_idx has {} elements, expected K={}", g->size(), k);
    for (int64_t i = 0; i < k; ++i) {
      if (element_as_int64(g->view(), i) != i / block) {
        c.unsupported("g_idx that reorders the K rows (act-order) at row {}", i);
      }
    }
  }
  const DataType qt = bits == 4 ? DataType::kUint4 : DataType::kUint8;
  OperandId q = c.constant(unpack_weight(*b, n, k_padded, bits));
  OperandId scale = c.reshape(c.in(2), {n, blocks});
  OperandId w;  // the dequantized weight [N, K_padded]
  if (c.has_input(3) && is_float(c.dtype(3))) {
    // Float zero points: (q - zp) * s = dequantize(q, s, 0) - zp * s, per block.
    OperandId zero = c.op(K::kExpand, {c.constant(qt, {0.0}), RawValue(Shape{n, blocks})});
    OperandId zs = c.op(K::kMul, {c.reshape(c.in(3), {n, blocks}), scale});
    w = c.reshape(c.op(K::kDequantizeLinear, {q, scale, zero}), {n, blocks, block});
    w = c.reshape(c.op(K::kSub, {w, c.reshape(zs, {n, blocks, 1})}), {n, k_padded});
  } else if (c.has_input(3)) {
    const Tensor* z = c.known(3);
    if (!z) c.unsupported("packed zero_points computed at run time");
    const int64_t row_bytes = (blocks * bits + 7) / 8;
    check(z->dtype == DataType::kUint8 && z->size() == n * row_bytes,
          "MatMulNBits zero_points have dtype {} and {} elements, expected uint8 [{}, {}]",
          dtype_name(z->dtype), z->size(), n, row_bytes);
    Tensor zp = Tensor::zeros(qt, {n, blocks});
    auto* zd = zp.mutable_view().as<uint8_t>();
    for (int64_t row = 0; row < n; ++row) {
      const uint8_t* packed = z->view().as<uint8_t>() + row * row_bytes;
      for (int64_t j = 0; j < blocks; ++j) zd[row * blocks + j] = packed_element(packed, j, bits);
    }
    w = c.op(K::kDequantizeLinear, {q, scale, c.constant(zp)});
  } else {
    // The default zero point 2^(bits-1), expanded at run time rather than stored per block.
    OperandId mid = c.constant(qt, {double(1 << (bits - 1))});
    w = c.op(K::kDequantizeLinear, {q, scale, c.op(K::kExpand, {mid, RawValue(Shape{n, blocks})})});
  }
  if (k_padded != k) w = c.op(K::kSlice, {w, RawValue(IntList{0, 0}), RawValue(IntList{n, k})});
  const Shape as = c.shape(0);
  check(!as.empty() && as.back() == k,
        "MatMulNBits A has shape {}, its last dimension must be K={}", shape_to_string(as), k);
  // A as [M, K] times w^T through gemm's bTranspose: no transposed copy of the weight.
  const int64_t m = element_count(as) / k;
  std::vector<std::pair<std::string, RawValue>> named = {{"bTranspose", true}};
  if (c.has_input(5)) named.emplace_back("c", c.in(5));
  OperandId a = c.reshape(c.in(0), {m, k});
  if (level == 4) a = block_quantized_activation(c, a, m, k, block);
  OperandId y = c.op(K::kGemm, {a, w}, std::move(named));
  Shape ys = as;
  ys.back() = n;
  c.set(0, c.reshape(y, ys, c.out_name(0)));
}

// A per-tensor quantization parameter (scalar or one element) as a scalar operand.
OperandId scalar_param(ConvertContext& c, size_t i, std::string_view what) {
  const Shape s = c.shape(i);
  if (element_count(s) != 1) {
    c.unsupported("{} of shape {}: only a per-tensor (one element) value converts", what,
                  shape_to_string(s));
  }
  return s.empty() ? c.in(i) : c.reshape(c.in(i), {});
}

// The exact int32 (A - a_zero) @ (B - b_zero) rounded once to float32, times a_scale * b_scale
// (one float32 product, as ORT's output processor scales by it), plus the bias.
OperandId scaled_product(ConvertContext& c, IntegerInput a, std::optional<OperandId> a_scale,
                         size_t b_scale, size_t b_zero, size_t bias) {
  if (c.dtype(b_scale) != DataType::kFloat32) {
    c.unsupported("{} with {} scales (float32 converts)", c.node().op_type,
                  dtype_name(c.dtype(b_scale)));
  }
  OperandId y = c.op(K::kCast, {exact_matmul_integer(c, a, {1, b_zero}), DataType::kFloat32});
  OperandId scale = c.in(b_scale);
  if (a_scale) scale = c.op(K::kMul, {*a_scale, scale});
  y = c.op(K::kMul, {y, scale});
  if (c.has_input(bias)) y = c.op(K::kAdd, {y, c.in(bias)});
  return y;
}

void check_matrix_operands(ConvertContext& c) {
  if (c.shape(0).size() < 2 || c.shape(1).size() < 2) {
    c.unsupported("A {} and B {} of rank below 2", shape_to_string(c.shape(0)),
                  shape_to_string(c.shape(1)));
  }
}

void matmul_integer_to_float(ConvertContext& c) {
  check_matrix_operands(c);
  if (c.has_input(4) && element_count(c.shape(4)) != 1) {
    c.unsupported("a_zero_point of shape {}: only a per-tensor (one element) value converts",
                  shape_to_string(c.shape(4)));
  }
  OperandId a_scale = scalar_param(c, 2, "a_scale");
  c.set(0, c.op(K::kIdentity, {scaled_product(c, {0, 4}, a_scale, 3, 5, 6)}, {}, c.out_name(0)));
}

// A is quantized to uint8 as DynamicQuantizeLinear does (dynamic_quantize.h).
void dynamic_quantize_matmul(ConvertContext& c) {
  check_matrix_operands(c);
  const DynamicQuantization q = dynamic_quantize_uint8(c, c.in(0));
  const IntegerInput a(IntegerInput::Computed{q.quantized, q.zero_point});
  c.set(0, c.op(K::kIdentity, {scaled_product(c, a, q.scale, 2, 3, 4)}, {}, c.out_name(0)));
}

// com.microsoft GatherBlockQuantized: rows of a block-quantized table (quantized along its last
// axis), gathered then dequantized, so only the gathered rows are ever float. The table is
// uint8 holding `bits`-wide values packed (the tied embedding reading lm_head's MatMulNBits
// weight, default zero point 2^(bits-1)), or int4/uint4 one value per element (default zero
// point 0); scales and zero points have the table's rank, one per block of a row.
void gather_block_quantized(ConvertContext& c) {
  if (c.attr_int("gather_axis", 0) != 0) c.unsupported("gather_axis other than 0");
  const Tensor* data = c.known(0);
  if (!data) c.unsupported("data (input 0) must be a constant");
  if (data->shape.size() != 2) c.unsupported("data of rank {} (2 converts)", data->shape.size());
  const int64_t q_axis = c.attr_int("quantize_axis", 1);
  if (q_axis != 1 && q_axis != -1)
    c.unsupported("quantize_axis={} (the last axis converts)", q_axis);
  const int64_t block = c.attr_int("block_size", 128), rows = data->shape[0];
  const bool packed = data->dtype == DataType::kUint8;
  const int64_t bits = packed ? c.attr_int("bits", 4) : 4;
  if (!packed && data->dtype != DataType::kInt4 && data->dtype != DataType::kUint4) {
    c.unsupported("data of type {} (uint8, int4 and uint4 convert)", dtype_name(data->dtype));
  }
  if (bits != 4 && bits != 8) c.unsupported("bits={} (4 and 8 convert)", bits);
  const int64_t width = packed ? data->shape[1] * 8 / bits : data->shape[1];
  check(block >= 16 && width % block == 0,
        "GatherBlockQuantized: block_size={} must be >= 16 and divide the row's {} values", block,
        width);
  const int64_t blocks = width / block;
  check(c.shape(2) == Shape{rows, blocks},
        "GatherBlockQuantized scales have shape {}, expected "
        "[{}, {}]",
        shape_to_string(c.shape(2)), rows, blocks);
  const DataType qt = packed ? (bits == 4 ? DataType::kUint4 : DataType::kUint8) : data->dtype;
  OperandId table = packed ? c.constant(unpack_weight(*data, rows, width, bits)) : c.in(0);
  OperandId indices = c.in(1);
  auto gathered = [&](OperandId t) {
    return c.op(K::kGather, {t, indices}, {{"axis", int64_t(0)}});
  };
  OperandId zero;
  if (c.has_input(3)) {
    if (c.dtype(3) != qt || c.shape(3) != Shape{rows, blocks}) {
      c.unsupported("zero_points of type {} and shape {}", dtype_name(c.dtype(3)),
                    shape_to_string(c.shape(3)));
    }
    zero = gathered(c.in(3));
  } else {
    Shape zs = c.shape(1);
    zs.push_back(blocks);
    zero = c.op(K::kExpand, {c.constant(qt, {packed ? double(1 << (bits - 1)) : 0.0}),
                             RawValue(std::move(zs))});
  }
  c.set(0,
        c.op(K::kDequantizeLinear, {gathered(table), gathered(c.in(2)), zero}, {}, c.out_name(0)));
}

}  // namespace

void register_quantized_matmul(std::vector<Converter>& t) {
  const auto X = ConvertKind::kDecomposed;
  t.push_back({kMsDomain, "MatMulNBits", 1, kMaxOpset, matmul_nbits, X, false,
               "bits 4/8 stay packed (uint4/uint8 + blocked dequantizeLinear); accuracy_level 4 "
               "as its int8 quantization of A written out"});
  t.push_back({kMsDomain, "GatherBlockQuantized", 1, kMaxOpset, gather_block_quantized, X, false,
               "constant table: gathered, then dequantized"});
  t.push_back({kMsDomain, "MatMulIntegerToFloat", 1, kMaxOpset, matmul_integer_to_float, X, false,
               "per-tensor A parameters"});
  t.push_back({kMsDomain, "DynamicQuantizeMatMul", 1, kMaxOpset, dynamic_quantize_matmul, X});
}

}  // namespace wnn::onnx::ops
