// gru, gruCell, lstm and lstmCell, following the WebNN spec's decompositions: gate rows are
// sliced from the packed weights by layout, the sequence operators run the cell once per step
// and direction (backward reads the input from the last step), and the returned sequence holds
// each step's hidden state at the index of the input step it consumed. Everything is computed
// in double and rounded once on store.
#include <array>
#include <cmath>
#include <optional>
#include <string>

#include "wnn/core/error.h"
#include "wnn/kernels/float_values.h"
#include "wnn/kernels/kernel.h"
#include "wnn/kernels/recurrent_activation.h"
#include "wnn/kernels/recurrent_float32.h"

namespace wnn::kernels {

namespace {

using Activation = RecurrentActivation;
constexpr auto parse_activation = parse_recurrent_activation;

double dot(const double* a, const double* b, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

// One direction's weights: rows of gates * hidden, each `input_size` (or `hidden`) long.
// Absent biases are null.
struct CellWeights {
  const double* weight;
  const double* recurrent_weight;
  const double* bias;
  const double* recurrent_bias;
  const double* peephole;  // lstm only: [i, o, f] * hidden
};

struct CellShape {
  int64_t batch, input_size, hidden;
};

// ---- GRU ----

struct GruConfig {
  int z, r;  // gate row blocks; the new gate (n) is always block 2
  bool reset_after;
  std::array<Activation, 2> act;
};

GruConfig gru_config(const Attributes& a) {
  const bool zrn = a.get_enum("layout") == "zrn";
  const StringList acts = a.get_strings("activations");
  return {zrn ? 0 : 1,
          zrn ? 1 : 0,
          a.get_bool("resetAfter"),
          {parse_activation(acts[0]), parse_activation(acts[1])}};
}

// h_out = gruCell(x, h) for every batch row.
void gru_step(const GruConfig& cfg, const CellShape& s, const CellWeights& w, const double* x,
              const double* h, double* h_out) {
  const int64_t H = s.hidden, I = s.input_size;
  const auto bias = [&](const double* b, int gate, int64_t j) {
    return b == nullptr ? 0.0 : b[gate * H + j];
  };
  std::vector<double> z(static_cast<size_t>(H)), r(z), rh(z);
  for (int64_t b = 0; b < s.batch; ++b) {
    const double* xb = x + b * I;
    const double* hb = h + b * H;
    for (int64_t j = 0; j < H; ++j) {
      for (int gate : {cfg.z, cfg.r}) {
        const double v = dot(xb, w.weight + (gate * H + j) * I, I) + bias(w.bias, gate, j) +
                         dot(hb, w.recurrent_weight + (gate * H + j) * H, H) +
                         bias(w.recurrent_bias, gate, j);
        (gate == cfg.z ? z : r)[size_t(j)] = apply(cfg.act[0], v);
      }
    }
    for (int64_t j = 0; j < H; ++j) rh[size_t(j)] = r[size_t(j)] * hb[j];
    for (int64_t j = 0; j < H; ++j) {
      const double* wn = w.weight + (2 * H + j) * I;
      const double* rn = w.recurrent_weight + (2 * H + j) * H;
      const double xn = dot(xb, wn, I) + bias(w.bias, 2, j);
      const double rbn = bias(w.recurrent_bias, 2, j);
      const double pre = cfg.reset_after ? xn + r[size_t(j)] * (dot(hb, rn, H) + rbn)
                                         : xn + dot(rh.data(), rn, H) + rbn;
      const double n = apply(cfg.act[1], pre);
      const double zj = z[size_t(j)];
      h_out[b * H + j] = zj * hb[j] + (1 - zj) * n;
    }
  }
}

// ---- LSTM ----

struct LstmConfig {
  int i, o, f, g;  // gate row blocks
  std::array<Activation, 3> act;
};

LstmConfig lstm_config(const Attributes& a) {
  const bool iofg = a.get_enum("layout") == "iofg";
  const StringList acts = a.get_strings("activations");
  const std::array<Activation, 3> act = {parse_activation(acts[0]), parse_activation(acts[1]),
                                         parse_activation(acts[2])};
  return iofg ? LstmConfig{0, 1, 2, 3, act} : LstmConfig{0, 3, 1, 2, act};
}

// (h_out, c_out) = lstmCell(x, h, c) for every batch row. Like the spec's decomposition, every
// peephole (the output gate's too) reads the incoming cell state.
void lstm_step(const LstmConfig& cfg, const CellShape& s, const CellWeights& w, const double* x,
               const double* h, const double* c, double* h_out, double* c_out) {
  const int64_t H = s.hidden, I = s.input_size;
  const auto pre = [&](const double* xb, const double* hb, int gate, int64_t j) {
    double v = dot(xb, w.weight + (gate * H + j) * I, I) +
               dot(hb, w.recurrent_weight + (gate * H + j) * H, H);
    if (w.bias != nullptr) v += w.bias[gate * H + j];
    if (w.recurrent_bias != nullptr) v += w.recurrent_bias[gate * H + j];
    return v;
  };
  const auto peep = [&](int block, int64_t j, double cell) {
    return w.peephole == nullptr ? 0.0 : w.peephole[block * H + j] * cell;
  };
  for (int64_t b = 0; b < s.batch; ++b) {
    const double* xb = x + b * I;
    const double* hb = h + b * H;
    for (int64_t j = 0; j < H; ++j) {
      const double cell = c[b * H + j];
      const double ig = apply(cfg.act[0], pre(xb, hb, cfg.i, j) + peep(0, j, cell));
      const double fg = apply(cfg.act[0], pre(xb, hb, cfg.f, j) + peep(2, j, cell));
      const double gg = apply(cfg.act[1], pre(xb, hb, cfg.g, j));
      const double og = apply(cfg.act[0], pre(xb, hb, cfg.o, j) + peep(1, j, cell));
      const double ct = fg * cell + ig * gg;
      c_out[b * H + j] = ct;
      h_out[b * H + j] = og * apply(cfg.act[2], ct);
    }
  }
}

// ---- operators ----

const double* optional_data(const std::vector<double>& v, int64_t offset) {
  return v.empty() ? nullptr : v.data() + offset;
}

void gru_cell(const KernelArgs& args) {
  const GruConfig cfg = gru_config(args.attrs());
  const ConstTensorView& input = args.input("input");
  const CellShape s{input.shape[0], input.shape[1], args.attrs().get_int("hiddenSize")};
  const auto x = read_values<double>(input);
  const auto w = read_values<double>(args.input("weight"));
  const auto r = read_values<double>(args.input("recurrentWeight"));
  const auto h = read_values<double>(args.input("hiddenState"));
  const auto b = read_optional_values<double>(args.optional_input("bias"));
  const auto rb = read_optional_values<double>(args.optional_input("recurrentBias"));
  std::vector<double> out(size_t(s.batch * s.hidden));
  gru_step(cfg, s, {w.data(), r.data(), optional_data(b, 0), optional_data(rb, 0), nullptr},
           x.data(), h.data(), out.data());
  write_values<double>(args.output(0), out);
}

void lstm_cell(const KernelArgs& args) {
  const LstmConfig cfg = lstm_config(args.attrs());
  const ConstTensorView& input = args.input("input");
  const CellShape s{input.shape[0], input.shape[1], args.attrs().get_int("hiddenSize")};
  const auto x = read_values<double>(input);
  const auto w = read_values<double>(args.input("weight"));
  const auto r = read_values<double>(args.input("recurrentWeight"));
  const auto h = read_values<double>(args.input("hiddenState"));
  const auto c = read_values<double>(args.input("cellState"));
  const auto b = read_optional_values<double>(args.optional_input("bias"));
  const auto rb = read_optional_values<double>(args.optional_input("recurrentBias"));
  const auto p = read_optional_values<double>(args.optional_input("peepholeWeight"));
  std::vector<double> h_out(size_t(s.batch * s.hidden)), c_out(h_out.size());
  lstm_step(cfg, s,
            {w.data(), r.data(), optional_data(b, 0), optional_data(rb, 0), optional_data(p, 0)},
            x.data(), h.data(), c.data(), h_out.data(), c_out.data());
  write_values<double>(args.output(0), h_out);
  write_values<double>(args.output(1), c_out);
}

// Runs a gru or lstm over the sequence; the LSTM also carries a cell state.
void recurrent_sequence(const KernelArgs& args, bool is_lstm) {
  const Attributes& a = args.attrs();
  const ConstTensorView& input = args.input("input");
  const int64_t steps = input.shape[0];
  const CellShape s{input.shape[1], input.shape[2], a.get_int("hiddenSize")};
  const int64_t gates = is_lstm ? 4 : 3;
  const std::string& direction = a.get_enum("direction");
  const int64_t directions = direction == "both" ? 2 : 1;
  const auto x = read_values<double>(input);
  const auto w = read_values<double>(args.input("weight"));
  const auto r = read_values<double>(args.input("recurrentWeight"));
  const auto b = read_optional_values<double>(args.optional_input("bias"));
  const auto rb = read_optional_values<double>(args.optional_input("recurrentBias"));
  const auto p = is_lstm ? read_optional_values<double>(args.optional_input("peepholeWeight"))
                         : std::vector<double>{};
  const int64_t state_size = s.batch * s.hidden;
  std::vector<double> hidden =
      read_optional_values<double>(args.optional_input("initialHiddenState"));
  if (hidden.empty()) hidden.assign(size_t(directions * state_size), 0.0);
  std::vector<double> cell;
  if (is_lstm) {
    cell = read_optional_values<double>(args.optional_input("initialCellState"));
    if (cell.empty()) cell.assign(size_t(directions * state_size), 0.0);
  }
  const bool return_sequence = a.get_bool("returnSequence");
  std::vector<double> sequence(return_sequence ? size_t(steps * directions * state_size) : 0);

  const int64_t rows = gates * s.hidden;
  const std::optional<LstmConfig> lstm_cfg = is_lstm ? std::optional(lstm_config(a)) : std::nullopt;
  const std::optional<GruConfig> gru_cfg = is_lstm ? std::nullopt : std::optional(gru_config(a));
  std::vector<double> next_h(static_cast<size_t>(state_size)), next_c(next_h);
  for (int64_t dir = 0; dir < directions; ++dir) {
    const CellWeights cw{w.data() + dir * rows * s.input_size, r.data() + dir * rows * s.hidden,
                         optional_data(b, dir * rows), optional_data(rb, dir * rows),
                         optional_data(p, dir * 3 * s.hidden)};
    double* h = hidden.data() + dir * state_size;
    double* c = is_lstm ? cell.data() + dir * state_size : nullptr;
    const bool backward = dir == 1 || direction == "backward";
    for (int64_t step = 0; step < steps; ++step) {
      const int64_t t = backward ? steps - step - 1 : step;
      const double* xt = x.data() + t * s.batch * s.input_size;
      if (is_lstm) {
        lstm_step(*lstm_cfg, s, cw, xt, h, c, next_h.data(), next_c.data());
        std::copy(next_c.begin(), next_c.end(), c);
      } else {
        gru_step(*gru_cfg, s, cw, xt, h, next_h.data());
      }
      std::copy(next_h.begin(), next_h.end(), h);
      if (return_sequence) {
        std::copy(next_h.begin(), next_h.end(),
                  sequence.begin() + (t * directions + dir) * state_size);
      }
    }
  }
  size_t out = 0;
  write_values<double>(args.output(out++), hidden);
  if (is_lstm) write_values<double>(args.output(out++), cell);
  if (return_sequence) write_values<double>(args.output(out), sequence);
}

}  // namespace

void recurrent(const KernelArgs& a) {
  switch (a.attrs().op()) {
    case OpKind::kGru:
      if (recurrent_float32(a, false)) return;
      return recurrent_sequence(a, false);
    case OpKind::kGruCell:
      return gru_cell(a);
    case OpKind::kLstm:
      if (recurrent_float32(a, true)) return;
      return recurrent_sequence(a, true);
    case OpKind::kLstmCell:
      return lstm_cell(a);
    default:
      check_internal(false, "recurrent kernel got '{}'", a.attrs().schema().name);
  }
}

}  // namespace wnn::kernels
