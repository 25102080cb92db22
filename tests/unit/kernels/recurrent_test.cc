#include <gtest/gtest.h>

#include <cmath>

#include "node_runner.h"

namespace wnn::kernels {
namespace {

using testing::expect_near_all;
using testing::NodeRunner;
using testing::pattern;

struct RecurrentCase {
  const char* kind;
  const char* direction;
  const char* layout;
  std::vector<double> x, w, r, b, rb, h0, c0, out_h, out_c, seq;
};
#include "recurrent_fixtures.inc"

// gru and lstm against torch.nn.GRU / torch.nn.LSTM (see gen_recurrent_fixtures.py): every
// direction, both layouts of each, with and without initial states, returning the sequence.
TEST(Recurrent, SequencesMatchTorchInEveryDirectionAndLayout) {
  for (const RecurrentCase& c : kRecurrentCases) {
    SCOPED_TRACE(std::string(c.kind) + " " + c.direction + " " + c.layout);
    const bool lstm = std::string(c.kind) == "lstm";
    const int64_t nd = std::string(c.direction) == "both" ? 2 : 1;
    const int64_t gates = lstm ? 4 : 3;
    NodeRunner run;
    const OperandId x = run.input("x", {kSteps, kBatch, kInput}, c.x);
    const OperandId w = run.input("w", {nd, gates * kHidden, kInput}, c.w);
    const OperandId r = run.input("r", {nd, gates * kHidden, kHidden}, c.r);
    std::vector<std::pair<std::string, RawValue>> named = {
        {"bias", run.input("b", {nd, gates * kHidden}, c.b)},
        {"recurrentBias", run.input("rb", {nd, gates * kHidden}, c.rb)},
        {"returnSequence", true},
        {"direction", c.direction},
        {"layout", c.layout}};
    if (!c.h0.empty()) {
      named.push_back({"initialHiddenState", run.input("h0", {nd, kBatch, kHidden}, c.h0)});
    }
    if (!c.c0.empty()) {
      named.push_back({"initialCellState", run.input("c0", {nd, kBatch, kHidden}, c.c0)});
    }
    const auto result = run.run(recurrent, lstm ? OpKind::kLstm : OpKind::kGru,
                                {x, w, r, int64_t(kSteps), int64_t(kHidden)}, named);
    ASSERT_EQ(result.values.size(), lstm ? 3u : 2u);
    expect_near_all(result.values[0], c.out_h, 1e-5, "hidden");
    if (lstm) expect_near_all(result.values[1], c.out_c, 1e-5, "cell");
    expect_near_all(result.values.back(), c.seq, 1e-5, "sequence");
    EXPECT_EQ(result.shapes.back(), (Shape{kSteps, nd, kBatch, kHidden}));
  }
}

double act(const std::string& name, double v) {
  if (name == "relu") return std::max(v, 0.0);
  if (name == "sigmoid") return 1 / (1 + std::exp(-v));
  return std::tanh(v);
}

// Row `row` of a [rows, cols] matrix times vector v.
double row_dot(const std::vector<double>& m, int64_t row, int64_t cols, const double* v) {
  double s = 0;
  for (int64_t k = 0; k < cols; ++k) s += m[size_t(row * cols + k)] * v[k];
  return s;
}

// gruCell with resetAfter = false (reset applied to the hidden state before the recurrent
// product), layout rzn and activations [relu, sigmoid], against the spec's equations.
TEST(Recurrent, GruCellResetBeforeWithNonDefaultActivations) {
  const int64_t B = 2, I = 3, H = 3;
  const auto xv = pattern(B * I, 1), wv = pattern(3 * H * I, 2), rv = pattern(3 * H * H, 3);
  const auto hv = pattern(B * H, 4), bv = pattern(3 * H, 5);
  NodeRunner run;
  const auto result =
      run.run(recurrent, OpKind::kGruCell,
              {run.input("x", {B, I}, xv), run.input("w", {3 * H, I}, wv),
               run.input("r", {3 * H, H}, rv), run.input("h", {B, H}, hv), int64_t(H)},
              {{"bias", run.input("b", {3 * H}, bv)},
               {"resetAfter", false},
               {"layout", "rzn"},
               {"activations", RawValue::List{RawValue::Name{"relu"}, RawValue::Name{"sigmoid"}}}});
  std::vector<double> expected;
  for (int64_t b = 0; b < B; ++b) {
    const double* x = &xv[size_t(b * I)];
    const double* h = &hv[size_t(b * H)];
    std::vector<double> r(H), z(H), rh(H);
    for (int64_t j = 0; j < H; ++j) {  // rzn: r rows first, then z, then n
      r[j] = act("relu", row_dot(wv, j, I, x) + bv[j] + row_dot(rv, j, H, h));
      z[j] = act("relu", row_dot(wv, H + j, I, x) + bv[H + j] + row_dot(rv, H + j, H, h));
      rh[j] = r[j] * h[j];
    }
    for (int64_t j = 0; j < H; ++j) {
      const double n = act("sigmoid", row_dot(wv, 2 * H + j, I, x) + bv[2 * H + j] +
                                          row_dot(rv, 2 * H + j, H, rh.data()));
      expected.push_back(z[j] * h[j] + (1 - z[j]) * n);
    }
  }
  expect_near_all(result.values[0], expected, 1e-6);
}

// lstmCell with peepholes (packed i, o, f; each reading the incoming cell state), layout iofg
// and activations [tanh, relu, sigmoid] instead of the default [sigmoid, tanh, tanh].
TEST(Recurrent, LstmCellWithPeepholesAndNonDefaultActivations) {
  const int64_t B = 3, I = 2, H = 2;
  const auto xv = pattern(B * I, 11), wv = pattern(4 * H * I, 12), rv = pattern(4 * H * H, 13);
  const auto hv = pattern(B * H, 14), cv = pattern(B * H, 15), rbv = pattern(4 * H, 16);
  const auto pv = pattern(3 * H, 17);
  NodeRunner run;
  const auto result = run.run(
      recurrent, OpKind::kLstmCell,
      {run.input("x", {B, I}, xv), run.input("w", {4 * H, I}, wv), run.input("r", {4 * H, H}, rv),
       run.input("h", {B, H}, hv), run.input("c", {B, H}, cv), int64_t(H)},
      {{"recurrentBias", run.input("rb", {4 * H}, rbv)},
       {"peepholeWeight", run.input("p", {3 * H}, pv)},
       {"activations", RawValue::List{RawValue::Name{"tanh"}, RawValue::Name{"relu"},
                                      RawValue::Name{"sigmoid"}}}});
  std::vector<double> eh, ec;
  for (int64_t b = 0; b < B; ++b) {
    const double* x = &xv[size_t(b * I)];
    const double* h = &hv[size_t(b * H)];
    for (int64_t j = 0; j < H; ++j) {
      const double c = cv[size_t(b * H + j)];
      auto gate = [&](int block) {  // iofg: i=0, o=1, f=2, g=3
        return row_dot(wv, block * H + j, I, x) + row_dot(rv, block * H + j, H, h) +
               rbv[size_t(block * H + j)];
      };
      const double i = act("tanh", gate(0) + pv[size_t(j)] * c);
      const double o = act("tanh", gate(1) + pv[size_t(H + j)] * c);
      const double f = act("tanh", gate(2) + pv[size_t(2 * H + j)] * c);
      const double g = act("relu", gate(3));
      const double ct = f * c + i * g;
      ec.push_back(ct);
      eh.push_back(o * act("sigmoid", ct));
    }
  }
  expect_near_all(result.values[0], eh, 1e-6, "hidden");
  expect_near_all(result.values[1], ec, 1e-6, "cell");
}

// The float32 sequence path (recurrent_float32.cc: batched input projections, products sixteen
// weight rows at a time, vectorized activations) against the cell kernels stepped by hand (the
// double-precision decomposition), with the options the torch fixtures cannot produce.
std::vector<double> slice(const std::vector<double>& v, int64_t offset, int64_t n) {
  return {v.begin() + offset, v.begin() + offset + n};
}

std::vector<double> scaled(std::vector<double> v, double factor) {
  for (double& x : v) x *= factor;
  return v;
}

struct SequenceCase {
  const char* name;
  bool lstm;
  const char* direction;
  const char* layout;
  std::vector<const char*> activations;  // empty: the default
  bool reset_after, with_bias, with_recurrent_bias, with_initial_state, with_peephole;
  int64_t steps, batch, input_size, hidden;
};

void expect_sequence_matches_stepped_cells(const SequenceCase& k) {
  SCOPED_TRACE(k.name);
  const int64_t T = k.steps, B = k.batch, I = k.input_size, H = k.hidden;
  const int64_t G = k.lstm ? 4 : 3, nd = std::string(k.direction) == "both" ? 2 : 1;
  // Weights scaled so that pre-activations stay in the range where the gates are not saturated
  // (pattern() is up to +-2, and the products sum over up to 37 terms).
  const double w_scale = 0.6 / std::sqrt(double(std::max(I, H)));
  const auto xv = pattern(T * B * I, 21), wv = scaled(pattern(nd * G * H * I, 22), w_scale);
  const auto rv = scaled(pattern(nd * G * H * H, 23), w_scale);
  const auto bv = scaled(pattern(nd * G * H, 24), 0.5), rbv = scaled(pattern(nd * G * H, 25), 0.5);
  const auto hv = scaled(pattern(nd * B * H, 26), 0.5), cv = pattern(nd * B * H, 27);
  const auto pv = scaled(pattern(nd * 3 * H, 28), 0.5);
  RawValue::List acts;
  for (const char* a : k.activations) acts.push_back(RawValue::Name{a});
  NodeRunner run;
  std::vector<std::pair<std::string, RawValue>> named = {
      {"returnSequence", true}, {"direction", k.direction}, {"layout", k.layout}};
  if (!acts.empty()) named.push_back({"activations", acts});
  if (k.with_bias) named.push_back({"bias", run.input("b", {nd, G * H}, bv)});
  if (k.with_recurrent_bias) named.push_back({"recurrentBias", run.input("rb", {nd, G * H}, rbv)});
  if (k.with_initial_state) {
    named.push_back({"initialHiddenState", run.input("h0", {nd, B, H}, hv)});
    if (k.lstm) named.push_back({"initialCellState", run.input("c0", {nd, B, H}, cv)});
  }
  if (k.with_peephole) named.push_back({"peepholeWeight", run.input("p", {nd, 3 * H}, pv)});
  if (!k.lstm) named.push_back({"resetAfter", k.reset_after});
  const auto seq = run.run(recurrent, k.lstm ? OpKind::kLstm : OpKind::kGru,
                           {run.input("x", {T, B, I}, xv), run.input("w", {nd, G * H, I}, wv),
                            run.input("r", {nd, G * H, H}, rv), T, H},
                           named);
  ASSERT_EQ(seq.values.size(), k.lstm ? 3u : 2u);
  for (int64_t dir = 0; dir < nd; ++dir) {
    std::vector<double> h(size_t(B * H), 0.0), c(h);
    if (k.with_initial_state) {
      h = slice(hv, dir * B * H, B * H);
      c = slice(cv, dir * B * H, B * H);
    }
    const bool backward = dir == 1 || std::string(k.direction) == "backward";
    for (int64_t step = 0; step < T; ++step) {
      const int64_t t = backward ? T - 1 - step : step;
      NodeRunner cell;
      std::vector<RawValue> pos = {
          cell.input("x", {B, I}, slice(xv, t * B * I, B * I)),
          cell.input("w", {G * H, I}, slice(wv, dir * G * H * I, G * H * I)),
          cell.input("r", {G * H, H}, slice(rv, dir * G * H * H, G * H * H)),
          cell.input("h", {B, H}, h)};
      std::vector<std::pair<std::string, RawValue>> opts = {{"layout", k.layout}};
      if (!acts.empty()) opts.push_back({"activations", acts});
      if (k.with_bias)
        opts.push_back({"bias", cell.input("b", {G * H}, slice(bv, dir * G * H, G * H))});
      if (k.with_recurrent_bias) {
        opts.push_back(
            {"recurrentBias", cell.input("rb", {G * H}, slice(rbv, dir * G * H, G * H))});
      }
      if (k.lstm) {
        pos.push_back(cell.input("c", {B, H}, c));
        if (k.with_peephole) {
          opts.push_back(
              {"peepholeWeight", cell.input("p", {3 * H}, slice(pv, dir * 3 * H, 3 * H))});
        }
      } else {
        opts.push_back({"resetAfter", k.reset_after});
      }
      pos.push_back(H);
      const auto out =
          cell.run(recurrent, k.lstm ? OpKind::kLstmCell : OpKind::kGruCell, pos, opts);
      h = out.values[0];
      if (k.lstm) c = out.values[1];
      expect_near_all(slice(seq.values.back(), (t * nd + dir) * B * H, B * H), h, 1e-5, "sequence");
    }
    expect_near_all(slice(seq.values[0], dir * B * H, B * H), h, 1e-5, "hidden");
    if (k.lstm) expect_near_all(slice(seq.values[1], dir * B * H, B * H), c, 1e-5, "cell");
  }
}

// Small odd sizes (every vector a partial one) and sizes past one vector with a tail
// (hidden 21 = 16 + 5, input 37 = 2 * 16 + 5), so both the whole-vector loops and the tails run.
TEST(Recurrent, Float32SequencesMatchSteppedCellsWithNonDefaultOptions) {
  const std::vector<const char*> defaults;
  const SequenceCase cases[] = {
      {"gru both rzn resetAfter false [relu, sigmoid]",
       false,
       "both",
       "rzn",
       {"relu", "sigmoid"},
       false,
       true,
       true,
       true,
       false,
       3,
       3,
       5,
       4},
      {"lstm backward iofg peephole [tanh, relu, sigmoid]",
       true,
       "backward",
       "iofg",
       {"tanh", "relu", "sigmoid"},
       false,
       true,
       true,
       true,
       true,
       3,
       3,
       5,
       4},
      {"gru both zrn resetAfter true [tanh, relu], wide",
       false,
       "both",
       "zrn",
       {"tanh", "relu"},
       true,
       true,
       true,
       true,
       false,
       4,
       2,
       37,
       21},
      {"gru forward rzn resetAfter false, no biases or state, wide", false, "forward", "rzn",
       defaults, false, false, false, false, false, 5, 1, 37, 21},
      {"gru backward zrn resetAfter true, recurrent bias only, wide", false, "backward", "zrn",
       defaults, true, false, true, false, false, 3, 2, 16, 32},
      {"lstm both ifgo peephole, wide", true, "both", "ifgo", defaults, false, true, true, true,
       true, 4, 2, 37, 21},
      {"lstm forward iofg [relu, sigmoid, tanh], bias only, no state, wide",
       true,
       "forward",
       "iofg",
       {"relu", "sigmoid", "tanh"},
       false,
       true,
       false,
       false,
       false,
       3,
       3,
       37,
       21},
      {"lstm backward ifgo peephole without biases, hidden 32",
       true,
       "backward",
       "ifgo",
       {"sigmoid", "tanh", "relu"},
       false,
       false,
       false,
       true,
       true,
       4,
       1,
       17,
       32},
  };
  for (const SequenceCase& k : cases) expect_sequence_matches_stepped_cells(k);
}

// gru without returnSequence has exactly one output; zero steps of state are the default.
TEST(Recurrent, GruWithoutSequenceReturnsOnlyHidden) {
  NodeRunner run;
  const auto result =
      run.run(recurrent, OpKind::kGru,
              {run.input("x", {2, 1, 2}, {1, -1, 0.5, 2}), run.input("w", {1, 3, 2}, pattern(6)),
               run.input("r", {1, 3, 1}, pattern(3, 9)), int64_t(2), int64_t(1)});
  ASSERT_EQ(result.values.size(), 1u);
  EXPECT_EQ(result.shapes[0], (Shape{1, 1, 1}));
}

}  // namespace
}  // namespace wnn::kernels
