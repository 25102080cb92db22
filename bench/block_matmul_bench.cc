// The packed MatMulNBits kernel (kernels/block_quantized_matmul) on the matmuls of one decode
// step of the transformer zoo's benchmark decoder (8 layers, hidden 1024, 16 query and 4
// key/value heads, intermediate 2816, vocab 32000): qkv, o, gate, up and down per layer, then
// the tied lm_head. Prints the step's matmul time and the bytes of weights and scales it reads
// per second, for each arithmetic and each vector ISA the CPU runs. The whole decode step against
// ONNX Runtime is bench/transformer_decode_ort.py; this isolates the kernel. Usage:
// block_matmul_bench [M] [THREADS] [REPEATS] [BITS] [BLOCK]

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "wnn/kernels/block_quantized_matmul.h"

namespace {

using wnn::kernels::ActivationArithmetic;
using wnn::kernels::BlockMatmulIsa;
using wnn::kernels::BlockQuantizedMatrix;

struct Weight {
  std::vector<uint8_t> data;
  std::vector<float> scales;
  BlockQuantizedMatrix m;
};

Weight make_weight(int64_t n, int64_t k, int bits, int64_t block, std::mt19937& rng) {
  Weight w;
  w.m.n = n;
  w.m.k = k;
  w.m.block = block;
  w.m.blocks = (k + block - 1) / block;
  w.m.bits = bits;
  w.m.default_zero = bits == 4 ? 8 : 128;
  w.data.resize(size_t(n * w.m.row_bytes()));
  for (auto& b : w.data) b = uint8_t(rng());
  w.scales.resize(size_t(n * w.m.blocks));
  std::uniform_real_distribution<float> s(0.001f, 0.02f);
  for (auto& x : w.scales) x = s(rng);
  w.m.data = w.data.data();
  w.m.scales = w.scales.data();
  return w;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t m = argc > 1 ? std::stoll(argv[1]) : 1;
  const int threads = argc > 2 ? std::stoi(argv[2]) : 2;
  const int repeats = argc > 3 ? std::stoi(argv[3]) : 50;
  const int bits = argc > 4 ? std::stoi(argv[4]) : 4;
  const int64_t block = argc > 5 ? std::stoll(argv[5]) : 32;
  std::mt19937 rng(7);
  std::vector<Weight> weights;
  for (int layer = 0; layer < 8; ++layer) {
    for (auto [n, k] : {std::pair<int64_t, int64_t>{1536, 1024},
                        {1024, 1024},
                        {2816, 1024},
                        {2816, 1024},
                        {1024, 2816}}) {
      weights.push_back(make_weight(n, k, bits, block, rng));
    }
  }
  weights.push_back(make_weight(32000, 1024, bits, block, rng));
  double bytes = 0;
  int64_t max_n = 0, max_k = 0;
  for (const Weight& w : weights) {
    bytes += double(w.data.size() + w.scales.size() * sizeof(float));
    max_n = std::max(max_n, w.m.n);
    max_k = std::max(max_k, w.m.k);
  }
  std::vector<float> a(size_t(m * max_k)), y(size_t(m * max_n));
  std::normal_distribution<float> g(0.0f, 1.0f);
  for (auto& x : a) x = g(rng);
  std::printf(
      "M %lld, %d threads, bits %d, block %lld: %zu matmuls, %.1f MB of weights and "
      "scales per step\n",
      (long long)m, threads, bits, (long long)block, weights.size(), bytes / 1e6);
  for (auto arithmetic : {ActivationArithmetic::kInt8PerBlock, ActivationArithmetic::kFloat32}) {
    for (auto isa : {BlockMatmulIsa::kAvx512, BlockMatmulIsa::kAvx2}) {
      if (!wnn::kernels::block_matmul_isa_supported(isa)) continue;
      std::vector<double> ms;
      for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        for (const Weight& w : weights) {
          wnn::kernels::block_quantized_matmul(a.data(), m, w.m, nullptr, y.data(), arithmetic,
                                               threads, isa);
        }
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
      }
      std::sort(ms.begin(), ms.end());
      const double med = ms[ms.size() / 2];
      std::printf("  %-6s %-12s median %7.3f ms  min %7.3f ms  %6.1f GB/s\n",
                  arithmetic == ActivationArithmetic::kInt8PerBlock ? "int8" : "float",
                  std::string(wnn::kernels::isa_name(isa)).c_str(), med, ms.front(),
                  bytes / (med * 1e6));
    }
  }
  return 0;
}
