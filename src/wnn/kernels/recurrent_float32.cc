// gru and lstm over float32 operands, in float32: the double-precision decomposition in
// recurrent.cc spent 98% of an LSTM/GRU model's time in scalar dot products (docs/benchmarks.md).
// Here the input projections of every step are one matrix product per direction before the
// recurrence, and each step adds the hidden-state product with the weights transposed, so the
// inner loops run over contiguous gate columns and vectorize. The gate equations are the same as
// recurrent.cc's (the spec's decomposition); only the rounding differs (float accumulation).
#include "wnn/kernels/recurrent_float32.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "wnn/core/error.h"
#include "wnn/kernels/recurrent_activation.h"

namespace wnn::kernels {

namespace {

using Activation = RecurrentActivation;
constexpr auto parse_activation = parse_recurrent_activation;

// out[i, 0..n) += a[i, 0..k) x bt[0..k, 0..n) for i < m; bt and out have row strides ldb, ldo.
// Columns go in blocks of kColumns held in a local accumulator across the whole k loop (in
// registers once unrolled), so each product element is loaded and stored once instead of k
// times; the inner loop runs over contiguous columns of bt, with no reassociation, so it
// vectorizes without fast-math. Clones pick AVX-512/AVX2 at load time, and O3 because -O2's
// very cheap vectorizer cost model leaves these loops scalar.
constexpr int64_t kColumns = 64;

__attribute__((target_clones("avx512f", "avx2", "default"), optimize("O3"))) void multiply_add(
    const float* a, int64_t m, int64_t k, const float* bt, int64_t ldb, float* out, int64_t ldo,
    int64_t n) {
  for (int64_t i = 0; i < m; ++i) {
    float* row = out + i * ldo;
    const float* ai = a + i * k;
    for (int64_t j0 = 0; j0 < n; j0 += kColumns) {
      float acc[kColumns];
      const int64_t jn = std::min(kColumns, n - j0);
      for (int64_t j = 0; j < jn; ++j) acc[j] = row[j0 + j];
      if (jn == kColumns) {
        for (int64_t p = 0; p < k; ++p) {
          const float av = ai[p];
          const float* b = bt + p * ldb + j0;
          for (int64_t j = 0; j < kColumns; ++j) acc[j] += av * b[j];
        }
      } else {
        for (int64_t p = 0; p < k; ++p) {
          const float av = ai[p];
          const float* b = bt + p * ldb + j0;
          for (int64_t j = 0; j < jn; ++j) acc[j] += av * b[j];
        }
      }
      for (int64_t j = 0; j < jn; ++j) row[j0 + j] = acc[j];
    }
  }
}

// [rows, cols] row-major -> [cols, rows].
std::vector<float> transposed(const float* w, int64_t rows, int64_t cols) {
  std::vector<float> t(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) t[size_t(c * rows + r)] = w[r * cols + c];
  }
  return t;
}

const float* optional_data(const ConstTensorView* t, int64_t offset) {
  return t == nullptr ? nullptr : t->as<float>() + offset;
}

// Gate row blocks in the packed weights, and what the cell needs from the attributes.
struct Config {
  bool lstm;
  int64_t gates;
  // lstm: i, o, f, g; gru: z, r, n (n is always block 2).
  int i = 0, o = 0, f = 0, g = 0, z = 0, r = 0;
  bool reset_after = false;
  Activation act[3] = {Activation::kSigmoid, Activation::kTanh, Activation::kTanh};
};

Config make_config(const Attributes& a, bool lstm) {
  Config c{lstm, lstm ? 4 : 3};
  const StringList acts = a.get_strings("activations");
  for (size_t k = 0; k < acts.size() && k < 3; ++k) c.act[k] = parse_activation(acts[k]);
  if (lstm) {
    const bool iofg = a.get_enum("layout") == "iofg";
    c.i = 0;
    c.o = iofg ? 1 : 3;
    c.f = iofg ? 2 : 1;
    c.g = iofg ? 3 : 2;
  } else {
    const bool zrn = a.get_enum("layout") == "zrn";
    c.z = zrn ? 0 : 1;
    c.r = zrn ? 1 : 0;
    c.reset_after = a.get_bool("resetAfter");
  }
  return c;
}

// One direction's operands, already offset to that direction.
struct Direction {
  const float* weight;            // [gates * H, I]
  const float* recurrent_weight;  // [gates * H, H]
  const float* bias;              // [gates * H] or null
  const float* recurrent_bias;    // [gates * H] or null
  const float* peephole;          // lstm: [3 * H] (i, o, f) or null
};

}  // namespace

bool recurrent_float32(const KernelArgs& args, bool is_lstm) {
  const ConstTensorView& input = args.input("input");
  if (input.dtype != DataType::kFloat32) return false;
  const Attributes& a = args.attrs();
  const Config cfg = make_config(a, is_lstm);
  const int64_t steps = input.shape[0], batch = input.shape[1], in_size = input.shape[2];
  const int64_t H = a.get_int("hiddenSize");
  const int64_t G = cfg.gates, rows = G * H, state = batch * H;
  const std::string& direction = a.get_enum("direction");
  const int64_t directions = direction == "both" ? 2 : 1;
  const bool return_sequence = a.get_bool("returnSequence");

  const float* x = input.as<float>();
  const float* w = args.input("weight").as<float>();
  const float* rw = args.input("recurrentWeight").as<float>();
  const ConstTensorView* bias = args.optional_input("bias");
  const ConstTensorView* rbias = args.optional_input("recurrentBias");
  const ConstTensorView* peephole = is_lstm ? args.optional_input("peepholeWeight") : nullptr;
  const ConstTensorView* h0 = args.optional_input("initialHiddenState");
  const ConstTensorView* c0 = is_lstm ? args.optional_input("initialCellState") : nullptr;

  size_t out_index = 0;
  float* hidden_out = args.output(out_index++).as<float>();
  float* cell_out = is_lstm ? args.output(out_index++).as<float>() : nullptr;
  float* sequence_out = return_sequence ? args.output(out_index).as<float>() : nullptr;

  // Per-step scratch: input projections of all steps, the hidden product, and the states.
  const auto floats = [](int64_t n) { return std::vector<float>(static_cast<size_t>(n)); };
  std::vector<float> xproj = floats(steps * batch * rows), hproj = floats(batch * rows);
  std::vector<float> h = floats(state), c = floats(is_lstm ? state : 0), z = floats(state);
  std::vector<float> n = floats(state), r_times_h = floats(state), nproj = floats(state);
  for (int64_t dir = 0; dir < directions; ++dir) {
    const Direction d{w + dir * rows * in_size, rw + dir * rows * H,
                      optional_data(bias, dir * rows), optional_data(rbias, dir * rows),
                      optional_data(peephole, dir * 3 * H)};
    // Biases that are plain additions of a gate's pre-activation go into the projection
    // rows; GRU's recurrent bias of the new gate stays inside r * (...) when resetAfter.
    for (int64_t tb = 0; tb < steps * batch; ++tb) {
      float* row = xproj.data() + tb * rows;
      for (int64_t j = 0; j < rows; ++j) {
        float v = d.bias != nullptr ? d.bias[j] : 0.0f;
        const bool rb_outside = cfg.lstm || !cfg.reset_after || j < 2 * H;
        if (d.recurrent_bias != nullptr && rb_outside) v += d.recurrent_bias[j];
        row[j] = v;
      }
    }
    const std::vector<float> wt = transposed(d.weight, rows, in_size);
    const std::vector<float> rt = transposed(d.recurrent_weight, rows, H);
    multiply_add(x, steps * batch, in_size, wt.data(), rows, xproj.data(), rows, rows);

    if (h0 != nullptr) {
      std::copy_n(h0->as<float>() + dir * state, state, h.begin());
    } else {
      std::fill(h.begin(), h.end(), 0.0f);
    }
    if (is_lstm) {
      if (c0 != nullptr) {
        std::copy_n(c0->as<float>() + dir * state, state, c.begin());
      } else {
        std::fill(c.begin(), c.end(), 0.0f);
      }
    }
    const bool backward = dir == 1 || direction == "backward";
    for (int64_t step = 0; step < steps; ++step) {
      const int64_t t = backward ? steps - step - 1 : step;
      const float* xp = xproj.data() + t * batch * rows;
      std::fill(hproj.begin(), hproj.end(), 0.0f);
      if (is_lstm || cfg.reset_after) {
        multiply_add(h.data(), batch, H, rt.data(), rows, hproj.data(), rows, rows);
      } else {
        // The new gate multiplies (r * h), so only z and r come from h here.
        multiply_add(h.data(), batch, H, rt.data(), rows, hproj.data(), rows, 2 * H);
      }
      for (int64_t b = 0; b < batch; ++b) {
        const float* xb = xp + b * rows;
        const float* hb = hproj.data() + b * rows;
        float* hs = h.data() + b * H;
        if (is_lstm) {
          float* cs = c.data() + b * H;
          const auto pre = [&](int gate, int64_t j) { return xb[gate * H + j] + hb[gate * H + j]; };
          const auto peep = [&](int block, int64_t j, float cell) {
            return d.peephole == nullptr ? 0.0f : d.peephole[block * H + j] * cell;
          };
          for (int64_t j = 0; j < H; ++j) {
            const float cell = cs[j];
            const float ig = apply(cfg.act[0], pre(cfg.i, j) + peep(0, j, cell));
            const float fg = apply(cfg.act[0], pre(cfg.f, j) + peep(2, j, cell));
            const float gg = apply(cfg.act[1], pre(cfg.g, j));
            const float og = apply(cfg.act[0], pre(cfg.o, j) + peep(1, j, cell));
            const float ct = fg * cell + ig * gg;
            cs[j] = ct;
            hs[j] = og * apply(cfg.act[2], ct);
          }
        } else {
          float* zs = z.data() + b * H;
          float* rr = hproj.data() + b * rows;
          for (int64_t j = 0; j < H; ++j) {
            zs[j] = apply(cfg.act[0], xb[cfg.z * H + j] + hb[cfg.z * H + j]);
            rr[cfg.r * H + j] = apply(cfg.act[0], xb[cfg.r * H + j] + hb[cfg.r * H + j]);
          }
        }
      }
      if (!is_lstm) {
        // The new gate, then h = z * h + (1 - z) * n.
        if (cfg.reset_after) {
          for (int64_t b = 0; b < batch; ++b) {
            const float* xb = xp + b * rows;
            const float* hb = hproj.data() + b * rows;
            for (int64_t j = 0; j < H; ++j) {
              const float rbn = d.recurrent_bias != nullptr ? d.recurrent_bias[2 * H + j] : 0.0f;
              n[size_t(b * H + j)] =
                  apply(cfg.act[1], xb[2 * H + j] + hb[cfg.r * H + j] * (hb[2 * H + j] + rbn));
            }
          }
        } else {
          std::fill(nproj.begin(), nproj.end(), 0.0f);
          for (int64_t b = 0; b < batch; ++b) {
            for (int64_t j = 0; j < H; ++j) {
              r_times_h[size_t(b * H + j)] =
                  hproj[size_t(b * rows + cfg.r * H + j)] * h[size_t(b * H + j)];
            }
          }
          multiply_add(r_times_h.data(), batch, H, rt.data() + 2 * H, rows, nproj.data(), H, H);
          for (int64_t b = 0; b < batch; ++b) {
            for (int64_t j = 0; j < H; ++j) {
              n[size_t(b * H + j)] =
                  apply(cfg.act[1], xp[b * rows + 2 * H + j] + nproj[size_t(b * H + j)]);
            }
          }
        }
        for (int64_t i = 0; i < state; ++i) {
          h[size_t(i)] = z[size_t(i)] * h[size_t(i)] + (1 - z[size_t(i)]) * n[size_t(i)];
        }
      }
      if (sequence_out != nullptr) {
        std::copy(h.begin(), h.end(), sequence_out + (t * directions + dir) * state);
      }
    }
    std::copy(h.begin(), h.end(), hidden_out + dir * state);
    if (is_lstm) std::copy(c.begin(), c.end(), cell_out + dir * state);
  }
  return true;
}

}  // namespace wnn::kernels
