// gru and lstm over float32 operands, in float32: the double-precision decomposition in
// recurrent.cc is the general path; this one is the fast path for the common dtype. Nothing is
// prepared or allocated per run (a per-thread scratch buffer that only grows): every product (the
// input projections of all steps up front, then the hidden-state product of each step) reads the
// weights in their given row-major layout, sixteen weight rows at a time against one input row,
// with one vector accumulator per row and the sixteen sums folded into one vector by a shuffle tree
// (no transposed copy of the weights, no horizontal sum per row). Gate pre-activations live in
// scratch blocks padded to whole vectors and ordered so the gates sharing an activation are
// contiguous (lstm i, f, o, g; gru z, r, n), and each activation runs over a whole block
// (vector_math.h, a few ulp from std::exp/tanh). The gate equations are recurrent.cc's (the
// spec's decomposition); only the rounding differs (float accumulation, summation order).
#include "wnn/kernels/recurrent_float32.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "wnn/core/error.h"
#include "wnn/kernels/recurrent_activation.h"
#include "wnn/kernels/simd_float32.h"

namespace wnn::kernels {

namespace {

using simd::F32x16;
using simd::I32x16;
using simd::kLanes;
using Activation = RecurrentActivation;
constexpr auto parse_activation = parse_recurrent_activation;

int64_t round_up_to_lanes(int64_t n) { return (n + kLanes - 1) / kLanes * kLanes; }

// Pairwise sums of lanes: lane j of the result adds lanes lo[j] and hi[j] of the 32 lanes of
// (a, b). kFold<S> halves the partial sums per row, going from 2S to S lanes per row.
template <int S>
WNN_SIMD_INLINE F32x16 fold(F32x16 a, F32x16 b) {
  if constexpr (S == 8) {
    return __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23) +
           __builtin_shufflevector(a, b, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30,
                                   31);
  } else if constexpr (S == 4) {
    return __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27) +
           __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30,
                                   31);
  } else if constexpr (S == 2) {
    return __builtin_shufflevector(a, b, 0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29) +
           __builtin_shufflevector(a, b, 2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30,
                                   31);
  } else {
    return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28,
                                   30) +
           __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  }
}

// Lane r = dot(w + r * k, x, k) for r < rows <= 16 (rows past `rows` repeat row 0, so every
// lane is finite for finite inputs and no load leaves the weights).
WNN_SIMD_INLINE F32x16 dot_rows16(const float* w, int64_t rows, const float* x, int64_t k) {
  const float* row[kLanes];
  for (int r = 0; r < kLanes; ++r) row[r] = w + (r < rows ? r : 0) * k;
  F32x16 acc[kLanes] = {};
  int64_t p = 0;
  for (; p + kLanes <= k; p += kLanes) {
    const F32x16 xv = simd::load(x + p);
#pragma GCC unroll 16
    for (int r = 0; r < kLanes; ++r) acc[r] += simd::load(row[r] + p) * xv;
  }
  if (p < k) {
    const F32x16 xv = simd::load_partial(x + p, k - p);
#pragma GCC unroll 16
    for (int r = 0; r < kLanes; ++r) acc[r] += simd::load_partial(row[r] + p, k - p) * xv;
  }
  F32x16 s8[8], s4[4], s2[2];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) s8[i] = fold<8>(acc[2 * i], acc[2 * i + 1]);
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) s4[i] = fold<4>(s8[2 * i], s8[2 * i + 1]);
  s2[0] = fold<2>(s4[0], s4[1]);
  s2[1] = fold<2>(s4[2], s4[3]);
  return fold<1>(s2[0], s2[1]);
}

// Gate blocks in scratch: slot s of a row holds the weights' gate block slot_gate[s], padded
// to hp floats. The lstm slots are i, f, o, g; the gru slots z, r, n.
struct Layout {
  int64_t hidden, hp, slots;
  int slot_gate[4];
};

// out[i * ldo + s * hp + j] = dot(weight row (slot_gate[s] * hidden + j), x + i * ldx) for
// slots [s0, s1), j < hidden, i < nx; the weight rows are k long. Lanes past hidden get
// finite filler.
WNN_SIMD_INLINE void project(const Layout& l, int s0, int s1, const float* weight, int64_t k,
                             const float* x, int64_t ldx, int64_t nx, float* out, int64_t ldo) {
  for (int s = s0; s < s1; ++s) {
    for (int64_t j = 0; j < l.hidden; j += kLanes) {
      const float* w = weight + (l.slot_gate[s] * l.hidden + j) * k;
      const int64_t rows = std::min<int64_t>(kLanes, l.hidden - j);
      for (int64_t i = 0; i < nx; ++i) {
        simd::store(out + i * ldo + s * l.hp + j, dot_rows16(w, rows, x + i * ldx, k));
      }
    }
  }
}

// dst[0, n) = src[0, n) scattered into slots of hp floats (gate order by slot), zero padding.
void gather_slots(const Layout& l, const float* src, float* dst) {
  std::fill(dst, dst + l.slots * l.hp, 0.0f);
  if (src == nullptr) return;
  for (int s = 0; s < l.slots; ++s) {
    std::copy_n(src + l.slot_gate[s] * l.hidden, l.hidden, dst + s * l.hp);
  }
}

struct Config {
  bool lstm;
  Layout layout;
  bool reset_after = false;
  Activation act[3] = {Activation::kSigmoid, Activation::kTanh, Activation::kTanh};
};

Config make_config(const Attributes& a, bool lstm, int64_t hidden) {
  Config c{lstm, {hidden, round_up_to_lanes(hidden), lstm ? 4 : 3, {}}};
  const StringList acts = a.get_strings("activations");
  for (size_t k = 0; k < acts.size() && k < 3; ++k) c.act[k] = parse_activation(acts[k]);
  int* slot = c.layout.slot_gate;
  if (lstm) {
    const bool iofg = a.get_enum("layout") == "iofg";  // else ifgo
    slot[0] = 0;                                       // i
    slot[1] = iofg ? 2 : 1;                            // f
    slot[2] = iofg ? 1 : 3;                            // o
    slot[3] = iofg ? 3 : 2;                            // g
  } else {
    const bool zrn = a.get_enum("layout") == "zrn";  // else rzn
    slot[0] = zrn ? 0 : 1;                           // z
    slot[1] = zrn ? 1 : 0;                           // r
    slot[2] = 2;                                     // n
    c.reset_after = a.get_bool("resetAfter");
  }
  return c;
}

// One direction's operands (already offset to it) and the scratch it runs in.
struct DirectionRun {
  const Config* cfg;
  int64_t steps, batch, input_size;
  bool backward;
  const float* x;                 // [steps, batch, input_size]
  const float* weight;            // [gates * H, input_size]
  const float* recurrent_weight;  // [gates * H, H]
  const float* bias;              // [gates * H] or null
  const float* recurrent_bias;    // [gates * H] or null
  const float* peephole;          // lstm: [3 * H] (i, o, f) or null
  const float* h0;                // [batch, H] or null
  const float* c0;                // lstm: [batch, H] or null
  float* sequence;                // [steps, directions, batch, H] at this direction, or null
  int64_t sequence_step_stride;   // directions * batch * H
  float* hidden_out;              // [batch, H]
  float* cell_out;                // lstm: [batch, H]
  float* scratch;                 // scratch_floats() floats
};

// Scratch of one direction: projections of all steps, the step's hidden product, biases and
// peepholes by slot, hidden and cell state, and one block for the cell activation / r * h.
int64_t scratch_floats(const Config& cfg, int64_t steps, int64_t batch) {
  const int64_t row = cfg.layout.slots * cfg.layout.hp;
  return steps * batch * row + batch * row + 4 * row + 2 * batch * cfg.layout.hp +
         batch * cfg.layout.hp;
}

WNN_SIMD_CLONES void run_direction(const DirectionRun& d) {
  const Config& cfg = *d.cfg;
  const Layout& l = cfg.layout;
  const int64_t H = l.hidden, hp = l.hp, row = l.slots * hp, steps = d.steps, B = d.batch;
  float* xproj = d.scratch;                // [steps * batch, row]
  float* hproj = xproj + steps * B * row;  // [batch, row]
  float* input_bias = hproj + B * row;     // [row]
  float* hidden_bias = input_bias + row;   // [row]: rb of the gru's new gate with resetAfter
  float* peephole = hidden_bias + row;     // [row]: lstm i, f, o slots
  float* recurrent_bias = peephole + row;  // [row]
  float* h = recurrent_bias + row;         // [batch, hp]
  float* c = h + B * hp;                   // [batch, hp]
  float* tmp = c + B * hp;                 // [batch, hp]

  // Biases that are plain additions to a pre-activation go into the input projections; the
  // gru's recurrent bias of the new gate stays inside r * (...) when resetAfter.
  gather_slots(l, d.bias, input_bias);
  gather_slots(l, d.recurrent_bias, recurrent_bias);
  std::fill(hidden_bias, hidden_bias + row, 0.0f);
  if (!cfg.lstm && cfg.reset_after) {
    std::copy_n(recurrent_bias + 2 * hp, hp, hidden_bias + 2 * hp);
    std::fill(recurrent_bias + 2 * hp, recurrent_bias + 3 * hp, 0.0f);
  }
  std::fill(peephole, peephole + row, 0.0f);
  if (d.peephole != nullptr) {  // packed i, o, f
    std::copy_n(d.peephole, H, peephole);
    std::copy_n(d.peephole + 2 * H, H, peephole + hp);
    std::copy_n(d.peephole + H, H, peephole + 2 * hp);
  }
  project(l, 0, l.slots, d.weight, d.input_size, d.x, d.input_size, steps * B, xproj, row);
  for (int64_t i = 0; i < steps * B; ++i) {
    float* p = xproj + i * row;
    for (int64_t j = 0; j < row; j += kLanes) {
      simd::store(p + j,
                  simd::load(p + j) + simd::load(input_bias + j) + simd::load(recurrent_bias + j));
    }
  }
  std::fill(h, h + 3 * B * hp, 0.0f);
  for (int64_t b = 0; b < B; ++b) {
    if (d.h0 != nullptr) std::copy_n(d.h0 + b * H, H, h + b * hp);
    if (d.c0 != nullptr) std::copy_n(d.c0 + b * H, H, c + b * hp);
  }

  for (int64_t step = 0; step < steps; ++step) {
    const int64_t t = d.backward ? steps - step - 1 : step;
    const float* xp = xproj + t * B * row;
    // The gru without resetAfter multiplies (r * h) into the new gate: only z and r here.
    const int hidden_slots = cfg.lstm || cfg.reset_after ? l.slots : 2;
    project(l, 0, hidden_slots, d.recurrent_weight, H, h, hp, B, hproj, row);
    for (int64_t b = 0; b < B; ++b) {
      float* g = hproj + b * row;
      const float* xb = xp + b * row;
      float* hb = h + b * hp;
      float* tb = tmp + b * hp;
      if (cfg.lstm) {
        float* cb = c + b * hp;
        for (int64_t j = 0; j < 3 * hp; j += kLanes) {  // i, f, o with peepholes
          const F32x16 cell = simd::load(cb + j % hp);
          simd::store(g + j,
                      simd::load(g + j) + simd::load(xb + j) + simd::load(peephole + j) * cell);
        }
        for (int64_t j = 3 * hp; j < 4 * hp; j += kLanes) {
          simd::store(g + j, simd::load(g + j) + simd::load(xb + j));
        }
        apply_in_place(cfg.act[0], g, 3 * hp);
        apply_in_place(cfg.act[1], g + 3 * hp, hp);
        for (int64_t j = 0; j < hp; j += kLanes) {
          const F32x16 ct = simd::load(g + hp + j) * simd::load(cb + j) +
                            simd::load(g + j) * simd::load(g + 3 * hp + j);
          simd::store(cb + j, ct);
          simd::store(tb + j, ct);
        }
        apply_in_place(cfg.act[2], tb, hp);
        for (int64_t j = 0; j < hp; j += kLanes) {
          simd::store(hb + j, simd::load(g + 2 * hp + j) * simd::load(tb + j));
        }
      } else {
        for (int64_t j = 0; j < 2 * hp; j += kLanes) {
          simd::store(g + j, simd::load(g + j) + simd::load(xb + j));
        }
        apply_in_place(cfg.act[0], g, 2 * hp);
        if (cfg.reset_after) {
          for (int64_t j = 0; j < hp; j += kLanes) {
            const F32x16 n = simd::load(g + 2 * hp + j) + simd::load(hidden_bias + 2 * hp + j);
            simd::store(g + 2 * hp + j, simd::load(xb + 2 * hp + j) + simd::load(g + hp + j) * n);
          }
        } else {
          for (int64_t j = 0; j < hp; j += kLanes) {
            simd::store(tb + j, simd::load(g + hp + j) * simd::load(hb + j));
          }
        }
      }
    }
    if (!cfg.lstm) {
      if (!cfg.reset_after) {
        project(l, 2, 3, d.recurrent_weight, H, tmp, hp, B, hproj, row);
        for (int64_t b = 0; b < B; ++b) {
          float* g = hproj + b * row + 2 * hp;
          const float* xb = xp + b * row + 2 * hp;
          for (int64_t j = 0; j < hp; j += kLanes) {
            simd::store(g + j, simd::load(g + j) + simd::load(xb + j));
          }
        }
      }
      for (int64_t b = 0; b < B; ++b) {
        float* g = hproj + b * row;
        float* hb = h + b * hp;
        apply_in_place(cfg.act[1], g + 2 * hp, hp);
        for (int64_t j = 0; j < hp; j += kLanes) {  // h = z * h + (1 - z) * n
          const F32x16 z = simd::load(g + j);
          simd::store(hb + j, z * simd::load(hb + j) + (1.0f - z) * simd::load(g + 2 * hp + j));
        }
      }
    }
    if (d.sequence != nullptr) {
      for (int64_t b = 0; b < B; ++b) {
        std::copy_n(h + b * hp, H, d.sequence + t * d.sequence_step_stride + b * H);
      }
    }
  }
  for (int64_t b = 0; b < B; ++b) {
    std::copy_n(h + b * hp, H, d.hidden_out + b * H);
    if (cfg.lstm) std::copy_n(c + b * hp, H, d.cell_out + b * H);
  }
}

const float* optional_data(const ConstTensorView* t, int64_t offset) {
  return t == nullptr ? nullptr : t->as<float>() + offset;
}

}  // namespace

bool recurrent_float32(const KernelArgs& args, bool is_lstm) {
  const ConstTensorView& input = args.input("input");
  if (input.dtype != DataType::kFloat32) return false;
  const Attributes& a = args.attrs();
  const int64_t steps = input.shape[0], batch = input.shape[1], in_size = input.shape[2];
  const int64_t H = a.get_int("hiddenSize");
  const Config cfg = make_config(a, is_lstm, H);
  const int64_t rows = cfg.layout.slots * H, state = batch * H;
  const std::string& direction = a.get_enum("direction");
  const int64_t directions = direction == "both" ? 2 : 1;

  const ConstTensorView* bias = args.optional_input("bias");
  const ConstTensorView* rbias = args.optional_input("recurrentBias");
  const ConstTensorView* peephole = is_lstm ? args.optional_input("peepholeWeight") : nullptr;
  const ConstTensorView* h0 = args.optional_input("initialHiddenState");
  const ConstTensorView* c0 = is_lstm ? args.optional_input("initialCellState") : nullptr;
  size_t out_index = 0;
  float* hidden_out = args.output(out_index++).as<float>();
  float* cell_out = is_lstm ? args.output(out_index++).as<float>() : nullptr;
  float* sequence_out = a.get_bool("returnSequence") ? args.output(out_index).as<float>() : nullptr;

  // Per-thread scratch that only grows, so runs after the first allocate nothing.
  thread_local std::vector<float> scratch;
  const size_t scratch_size = static_cast<size_t>(scratch_floats(cfg, steps, batch));
  if (scratch.size() < scratch_size) scratch.resize(scratch_size);
  std::fill_n(scratch.begin(), scratch_size, 0.0f);
  for (int64_t dir = 0; dir < directions; ++dir) {
    run_direction({&cfg, steps, batch, in_size, dir == 1 || direction == "backward",
                   input.as<float>(), args.input("weight").as<float>() + dir * rows * in_size,
                   args.input("recurrentWeight").as<float>() + dir * rows * H,
                   optional_data(bias, dir * rows), optional_data(rbias, dir * rows),
                   optional_data(peephole, dir * 3 * H), optional_data(h0, dir * state),
                   optional_data(c0, dir * state),
                   sequence_out == nullptr ? nullptr : sequence_out + dir * state,
                   directions * state, hidden_out + dir * state,
                   is_lstm ? cell_out + dir * state : nullptr, scratch.data()});
  }
  return true;
}

}  // namespace wnn::kernels
