// gemm and matmul. Products accumulate in double, one output row at a time with the inner loop
// over contiguous columns of B, then round once on store.
#include <algorithm>

#include "wnn/core/error.h"
#include "wnn/kernels/float_values.h"
#include "wnn/kernels/kernel.h"

namespace wnn::kernels {

namespace {

// out[m, n] = sum_k A[m, k] * B[k, n] for row-major views of A (lda/stride pair per index).
struct MatrixRef {
  const double* data;
  int64_t row_stride, col_stride;
  double at(int64_t r, int64_t c) const { return data[r * row_stride + c * col_stride]; }
};

void multiply(MatrixRef a, MatrixRef b, int64_t m, int64_t k, int64_t n, double* out) {
  std::fill(out, out + m * n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    double* row = out + i * n;
    for (int64_t p = 0; p < k; ++p) {
      const double av = a.at(i, p);
      const double* brow = b.data + p * b.row_stride;
      if (b.col_stride == 1) {
        for (int64_t j = 0; j < n; ++j) row[j] += av * brow[j];
      } else {
        for (int64_t j = 0; j < n; ++j) row[j] += av * brow[j * b.col_stride];
      }
    }
  }
}

void gemm(const KernelArgs& args) {
  const Attributes& attrs = args.attrs();
  const ConstTensorView& a = args.input("a");
  const ConstTensorView& b = args.input("b");
  const bool ta = attrs.get_bool("aTranspose");
  const bool tb = attrs.get_bool("bTranspose");
  const double alpha = attrs.get_float("alpha");
  const double beta = attrs.get_float("beta");
  const int64_t m = ta ? a.shape[1] : a.shape[0];
  const int64_t k = ta ? a.shape[0] : a.shape[1];
  const int64_t n = tb ? b.shape[0] : b.shape[1];
  const std::vector<double> av = read_values<double>(a);
  const std::vector<double> bv = read_values<double>(b);
  const MatrixRef ar = ta ? MatrixRef{av.data(), 1, m} : MatrixRef{av.data(), k, 1};
  const MatrixRef br = tb ? MatrixRef{bv.data(), 1, k} : MatrixRef{bv.data(), n, 1};
  std::vector<double> y(size_t(m * n));
  multiply(ar, br, m, k, n, y.data());
  for (double& v : y) v *= alpha;
  if (const ConstTensorView* c = args.optional_input("c")) {
    const std::vector<double> cv = read_values<double>(*c);
    const Shape mn = {m, n};
    const std::vector<int64_t> cs = broadcast_strides(c->shape, mn);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        y[size_t(i * n + j)] += beta * cv[size_t(i * cs[0] + j * cs[1])];
      }
    }
  }
  write_values<double>(args.output(), y);
}

void matmul_batched(const KernelArgs& args) {
  const ConstTensorView& a = args.input("a");
  const ConstTensorView& b = args.input("b");
  const TensorView& out = args.output();
  const size_t rank = out.shape.size();
  const int64_t m = a.shape[a.shape.size() - 2];
  const int64_t k = a.shape.back();
  const int64_t n = b.shape.back();
  const std::vector<double> av = read_values<double>(a);
  const std::vector<double> bv = read_values<double>(b);
  // Batch offsets: broadcast each operand's batch dims (in whole matrices) to the output's.
  const Shape batch(out.shape.begin(), out.shape.end() - 2);
  const Shape a_batch(a.shape.begin(), a.shape.end() - 2);
  const Shape b_batch(b.shape.begin(), b.shape.end() - 2);
  const std::vector<int64_t> as = broadcast_strides(a_batch, batch);
  const std::vector<int64_t> bs = broadcast_strides(b_batch, batch);
  const int64_t batches = element_count(batch);
  std::vector<double> y(size_t(batches * m * n));
  std::vector<int64_t> idx(rank - 2, 0);
  for (int64_t t = 0; t < batches; ++t) {
    int64_t ao = 0, bo = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      ao += idx[d] * as[d];
      bo += idx[d] * bs[d];
    }
    multiply({av.data() + ao * m * k, k, 1}, {bv.data() + bo * k * n, n, 1}, m, k, n,
             y.data() + t * m * n);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < batch[d]) break;
      idx[d] = 0;
    }
  }
  write_values<double>(out, y);
}

}  // namespace

void matmul(const KernelArgs& a) {
  switch (a.attrs().op()) {
    case OpKind::kGemm:
      return gemm(a);
    case OpKind::kMatmul:
      return matmul_batched(a);
    default:
      check_internal(false, "matmul kernel got '{}'", a.attrs().schema().name);
  }
}

}  // namespace wnn::kernels
