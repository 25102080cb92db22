// Reference kernels: pure functions over tensor views, one file per operator family.
// Constant folding, import-time constant evaluation and the runtime all call these.
// They are straightforward loops, written to be obviously correct; speed comes from delegates.
// One exception: conv2d with a long 1-D filter runs an FFT convolution (conv_fft.h), faster
// than any delegate's direct kernel, so the delegates leave those convs here.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wnn/core/graph.h"
#include "wnn/core/tensor.h"

namespace wnn::kernels {

// What one kernel call sees: the node's attributes, a view per operand it reads (in
// Attributes::operands() order) and a pre-shaped view per output.
class KernelArgs {
 public:
  KernelArgs(const Attributes& attrs, std::span<const ConstTensorView> inputs,
             std::span<const TensorView> outputs)
      : attrs_(attrs), inputs_(inputs), outputs_(outputs) {}

  const Attributes& attrs() const { return attrs_; }
  // The operand given for parameter `name` (positional or option). Throws if absent.
  const ConstTensorView& input(std::string_view name) const;
  // nullptr when an optional operand option was not given.
  const ConstTensorView* optional_input(std::string_view name) const;
  // The operands of an operand-list parameter (concat's `inputs`).
  std::span<const ConstTensorView> input_list(std::string_view name) const;
  const TensorView& output(size_t i = 0) const { return outputs_[i]; }
  size_t num_outputs() const { return outputs_.size(); }

 private:
  // Position in inputs_ of the first operand of parameter `name` and how many it holds.
  std::pair<size_t, size_t> locate(std::string_view name) const;
  const Attributes& attrs_;
  std::span<const ConstTensorView> inputs_;
  std::span<const TensorView> outputs_;
};

using KernelFn = void (*)(const KernelArgs&);

// Why the reference kernel of `node` is faster than any delegate's (conv2d with a long 1-D
// filter runs the FFT convolution, conv_fft.h), or nullopt. Every delegate declines such a node
// (supports_from_table), and the session does not warn that it stayed here.
std::optional<std::string> faster_on_reference(const Graph& graph, const Node& node);

// The reference kernel of an operator. Every OpKind has one.
KernelFn kernel_for(OpKind op);

// Runs one node of `graph` on the given views (a convenience over kernel_for).
void run_node(const Node& node, std::span<const ConstTensorView> inputs,
              std::span<const TensorView> outputs);

// Family entry points, one per kernels/<family>.cc; kernel_for dispatches to them.
void elementwise(const KernelArgs& a);    // binary, comparison, logical, unary, cast, where
void activation(const KernelArgs& a);     // clamp ... tanh, prelu, softmax
void conv(const KernelArgs& a);           // conv2d, convTranspose2d
void pool(const KernelArgs& a);           // averagePool2d, l2Pool2d, maxPool2d, resample2d
void normalization(const KernelArgs& a);  // batch, instance, layer
void reduce(const KernelArgs& a);         // reduce*, argMin/argMax, cumulativeSum
void matmul(const KernelArgs& a);         // gemm, matmul
void movement(const KernelArgs& a);       // concat ... triangular
void gather(const KernelArgs& a);         // gather*, scatter*
void quantize(const KernelArgs& a);       // quantizeLinear, dequantizeLinear
void recurrent(const KernelArgs& a);      // gru, gruCell, lstm, lstmCell

}  // namespace wnn::kernels
