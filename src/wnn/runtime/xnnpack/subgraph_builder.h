// Building one XNNPACK subgraph for a region. XNNPACK convolves and pools NHWC only, so each
// 4-D value of a region is held either as WebNN lays it out or, when it meets an NCHW conv2d
// or pool, channels-last ("permuted"). The layout is planned once per region (elementwise ops
// share their operands' layout) and transposes happen only at region boundaries; constants are
// repacked once, at compile time.
#pragma once

#include <xnnpack.h>

#include <map>
#include <memory>
#include <set>
#include <vector>

#include "wnn/runtime/delegate.h"
#include "wnn/runtime/xnnpack/qdq.h"

namespace wnn::runtime::xnnpack {

class SubgraphBuilder {
 public:
  SubgraphBuilder(const Graph& graph, const Region& region);
  ~SubgraphBuilder();

  const Graph& graph() const { return graph_; }
  xnn_subgraph_t subgraph() const { return subgraph_; }
  // Whether `id` is held channels-last in this region (decided by plan_layouts).
  bool permuted(OperandId id) const;
  // The XNNPACK value of `id` as the region holds it.
  uint32_t value(OperandId id);
  // A static value holding `data` (owned by the region) with `dims`.
  uint32_t static_value(std::vector<float> data, std::vector<size_t> dims);
  // Keeps `data` alive as long as the compiled region; returns its stable address.
  template <typename T>
  const T* keep(std::vector<T> data) {
    auto p = std::make_shared<std::vector<T>>(std::move(data));
    owned_.push_back(p);
    return p->data();
  }
  // The float data of a static operand: a constant, or one dequantized from a constant
  // (computed once with the reference kernel).
  const std::vector<float>& static_floats(OperandId id);
  // A new static value of the static operand `id` as the region holds it.
  uint32_t new_static(OperandId id);
  bool is_region_output(OperandId id) const;
  // The QDQ pattern a conv2d/gemm/matmul node of this region is the middle of, or null.
  const QdqMatch* qdq(uint32_t node) const;
  // Nodes whose work a quantized node does (the Q after it, DQs only it reads): not defined.
  bool absorbed(uint32_t node) const { return absorbed_.count(node) > 0; }
  // The dims of `id` as held (permuted to channels-last when it is).
  std::vector<size_t> held_dims(OperandId id) const;
  // An intermediate value of a multi-node lowering.
  uint32_t temporary(const std::vector<size_t>& dims);
  // Defines the value of node output `id`.
  uint32_t output(OperandId id);

  std::unique_ptr<CompiledRegion> finish(int threads);

 private:
  void plan_layouts();
  void plan_qdq();
  // Defines a tensor value of `id`'s dtype (fp32, or qint8 with the value's params).
  uint32_t define_value(OperandId id, const void* data, uint32_t external, uint32_t flags);
  const Graph& graph_;
  const Region& region_;
  xnn_subgraph_t subgraph_ = nullptr;
  std::map<uint32_t, uint32_t> values_;  // operand index -> value id
  std::map<uint32_t, bool> permuted_;
  struct Boundary {
    uint32_t operand, value;
    bool input, permuted;
  };
  std::vector<Boundary> boundaries_;
  std::vector<std::shared_ptr<void>> owned_;
  std::map<uint32_t, std::vector<float>> static_floats_;
  std::map<uint32_t, QdqMatch> qdq_;
  std::set<uint32_t> absorbed_;
  uint32_t next_external_ = 0;
};

using DefineFn = void (*)(SubgraphBuilder&, const Node&);
using Table = LoweringTable<DefineFn>;
const Table& table();

void register_conv(Table& t);
void register_matmul(Table& t);
void register_elementwise(Table& t);
void register_quantize(Table& t);
// The quantized lowerings of a matched QDQ pattern (conv.cc, matmul.cc).
void define_qdq_conv(SubgraphBuilder& b, const Node& n, const QdqMatch& m);
void define_qdq_fc(SubgraphBuilder& b, const Node& n, const QdqMatch& m);

// Throws naming the XNNPACK call and status.
void check_xnn(xnn_status status, const char* what);
Support require_f32_rank(const Graph& g, const Node& n);
// require_f32_rank's rank and emptiness checks without the dtype one.
Support require_rank(const Graph& g, const Node& n);
// How an op constrains the layout of its 4-D operands: NCHW spatial ops want channels-last,
// NHWC ones and layout-sensitive ops (softmax, reshape, fully connected) want them as-is,
// elementwise ops follow their operands.
enum class LayoutRule { kChannelsLast, kAsIs, kFollow };
LayoutRule layout_rule(const Node& n);

}  // namespace wnn::runtime::xnnpack
