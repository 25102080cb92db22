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

// The float32 sequence path (recurrent_float32.cc: batched input projections, transposed
// weights) against the cell kernels stepped by hand (the double-precision decomposition), with
// the options the torch fixtures cannot produce: gru with resetAfter false, rzn and
// [relu, sigmoid] over both directions; lstm with peepholes, iofg and [tanh, relu, sigmoid]
// running backward. Steps and batch are odd so no loop runs a whole number of vectors.
std::vector<double> slice(const std::vector<double>& v, int64_t offset, int64_t n) {
  return {v.begin() + offset, v.begin() + offset + n};
}

TEST(Recurrent, Float32SequencesMatchSteppedCellsWithNonDefaultOptions) {
  const int64_t T = 3, B = 3, I = 5, H = 4;
  for (const bool lstm : {false, true}) {
    SCOPED_TRACE(lstm ? "lstm" : "gru");
    const int64_t G = lstm ? 4 : 3, nd = lstm ? 1 : 2;
    const auto xv = pattern(T * B * I, 21), wv = pattern(nd * G * H * I, 22);
    const auto rv = pattern(nd * G * H * H, 23), bv = pattern(nd * G * H, 24);
    const auto rbv = pattern(nd * G * H, 25), hv = pattern(nd * B * H, 26);
    const auto cv = pattern(nd * B * H, 27), pv = pattern(nd * 3 * H, 28);
    const RawValue::List acts =
        lstm ? RawValue::List{RawValue::Name{"tanh"}, RawValue::Name{"relu"},
                              RawValue::Name{"sigmoid"}}
             : RawValue::List{RawValue::Name{"relu"}, RawValue::Name{"sigmoid"}};
    NodeRunner run;
    std::vector<std::pair<std::string, RawValue>> named = {
        {"bias", run.input("b", {nd, G * H}, bv)},
        {"recurrentBias", run.input("rb", {nd, G * H}, rbv)},
        {"initialHiddenState", run.input("h0", {nd, B, H}, hv)},
        {"returnSequence", true},
        {"direction", lstm ? "backward" : "both"},
        {"layout", lstm ? "iofg" : "rzn"},
        {"activations", acts}};
    if (lstm) {
      named.push_back({"initialCellState", run.input("c0", {nd, B, H}, cv)});
      named.push_back({"peepholeWeight", run.input("p", {nd, 3 * H}, pv)});
    } else {
      named.push_back({"resetAfter", false});
    }
    const auto seq = run.run(recurrent, lstm ? OpKind::kLstm : OpKind::kGru,
                             {run.input("x", {T, B, I}, xv), run.input("w", {nd, G * H, I}, wv),
                              run.input("r", {nd, G * H, H}, rv), T, H},
                             named);
    for (int64_t dir = 0; dir < nd; ++dir) {
      std::vector<double> h = slice(hv, dir * B * H, B * H), c = slice(cv, dir * B * H, B * H);
      const bool backward = lstm || dir == 1;
      for (int64_t step = 0; step < T; ++step) {
        const int64_t t = backward ? T - 1 - step : step;
        NodeRunner cell;
        std::vector<RawValue> pos = {
            cell.input("x", {B, I}, slice(xv, t * B * I, B * I)),
            cell.input("w", {G * H, I}, slice(wv, dir * G * H * I, G * H * I)),
            cell.input("r", {G * H, H}, slice(rv, dir * G * H * H, G * H * H)),
            cell.input("h", {B, H}, h)};
        std::vector<std::pair<std::string, RawValue>> opts = {
            {"bias", cell.input("b", {G * H}, slice(bv, dir * G * H, G * H))},
            {"recurrentBias", cell.input("rb", {G * H}, slice(rbv, dir * G * H, G * H))},
            {"layout", lstm ? "iofg" : "rzn"},
            {"activations", acts}};
        if (lstm) {
          pos.push_back(cell.input("c", {B, H}, c));
          opts.push_back(
              {"peepholeWeight", cell.input("p", {3 * H}, slice(pv, dir * 3 * H, 3 * H))});
        } else {
          opts.push_back({"resetAfter", false});
        }
        pos.push_back(H);
        const auto out =
            cell.run(recurrent, lstm ? OpKind::kLstmCell : OpKind::kGruCell, pos, opts);
        h = out.values[0];
        if (lstm) c = out.values[1];
        expect_near_all(slice(seq.values.back(), (t * nd + dir) * B * H, B * H), h, 1e-5,
                        "sequence");
      }
      expect_near_all(slice(seq.values[0], dir * B * H, B * H), h, 1e-5, "hidden");
      if (lstm) expect_near_all(slice(seq.values[1], dir * B * H, B * H), c, 1e-5, "cell");
    }
  }
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
