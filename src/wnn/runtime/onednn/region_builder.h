// Building one oneDNN region: each node's define function creates its primitive and asks the
// builder for its operands in the layout the primitive prefers. The builder keeps activations
// in the layout their producer chose, inserting a reorder only where a consumer needs another
// one (region boundaries are plain row-major), and reorders constants once, at compile time.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "wnn/passes/activation_chains.h"
#include "wnn/runtime/delegate.h"
#include "wnn/runtime/onednn/channel_scale.h"
#include "wnn/runtime/onednn/integer_conv.h"
#include "wnn/runtime/onednn/layout_plan.h"

namespace wnn::runtime::onednn {

// A strided window over an operand's row-major bytes, standing for another operand that is a
// transpose, reshape or slice of it, times a constant scale (a division by sqrt(d) before an
// attention matmul). Consumers that read strided memory (matmul) use it with no copy; any
// other consumer gets it materialised, once, by a reorder (views.cc).
struct StridedView {
  dnnl::memory
      base;  // memory of the operand it windows, row-major or strided (maybe bound at run time)
  dnnl::memory::dims dims, strides;
  int64_t offset = 0;  // in elements
  float scale = 1;
  dnnl::memory::desc desc() const;
};

// The written-out activations (passes/activation_chains.h) whose nodes are all in a region,
// keyed by their first node: each runs as one eltwise kernel or post-op.
using ActivationChains = std::map<uint32_t, passes::ActivationChain>;
// The same for written-out RMS normalizations (one step of wnn's own, normalization.cc).
using RmsNormChains = std::map<uint32_t, passes::RmsNormChain>;

// Per producer node index: the chain of node indices that may run as its post-ops.
using EpilogueCandidates = std::unordered_map<uint32_t, std::vector<uint32_t>>;

// One primitive execution with its arguments, or (when `function` is set) a loop of wnn's own
// over region memories (the int32 recombination of an int8 conv), which reads their handles
// when it runs.
struct Step {
  dnnl::primitive prim;
  std::unordered_map<int, dnnl::memory> args;
  RegionStepInfo info;  // for profiling
  int threads = 1;      // OpenMP team size it was created for and runs with (kernel_threads.h)
  std::function<void()> function;
};

class RegionBuilder {
 public:
  // Kernels run on up to `threads` threads; small ones on the calling thread alone.
  RegionBuilder(const Graph& graph, const Region& region, dnnl::engine engine, int threads);
  ~RegionBuilder();

  const Graph& graph() const { return graph_; }
  const dnnl::engine& engine() const { return engine_; }
  // The region's planned conv activation layout (layout_plan.h).
  ConvLayout conv_layout() const { return conv_layout_; }

  // The row-major desc of an operand as WebNN lays it out (rank 0 read as [1]).
  dnnl::memory::desc plain_desc(OperandId id) const;
  // The desc `id` is held in inside the region so far.
  dnnl::memory::desc held_desc(OperandId id);
  // held_desc(id) when its elements fill its bytes exactly, in some order (row-major,
  // channels-last, or blocked with no padding), for kernels that do not care about the order
  // (elementwise passes, a reduction over every axis); else the row-major desc.
  dnnl::memory::desc dense_desc(OperandId id);
  // `id` in layout `want` (same logical dims), reordering when it is held otherwise.
  dnnl::memory get(OperandId id, const dnnl::memory::desc& want);
  // The row-major bytes of `id` read through another desc of the same size (a transposed or
  // grouped view of a weight, an NHWC tensor seen with NCHW logical dims).
  dnnl::memory view(OperandId id, const dnnl::memory::desc& as);
  // Reorders `m` to `want`: now if `at_compile_time` (constant data), else as a run step.
  dnnl::memory convert(const dnnl::memory& m, const dnnl::memory::desc& want, bool at_compile_time);
  bool is_constant(OperandId id) const;
  // Region-owned memory for `d`, with slack past its end: oneDNN 2.6's reduction kernels store
  // whole vectors past the end of a small destination (found by valgrind on a [6,1,1,1]
  // reduceL2), which corrupts the heap when the memory is exactly sized.
  dnnl::memory allocate(const dnnl::memory::desc& d);
  // Memory over the same bytes as `m` read through `as` (bound at run time when `m` is).
  dnnl::memory alias(const dnnl::memory& m, const dnnl::memory::desc& as);
  // Whether `m` is a region input or output, whose handle is bound on every run.
  bool is_external(const dnnl::memory& m) const;
  // Memory for result `id` in layout `d`; the region's outputs are reordered to plain at the end.
  dnnl::memory define_output(OperandId id, const dnnl::memory::desc& d);
  // Whether the kernel of node `producer` may write over the memory `id` is held in: nothing
  // after it reads those bytes (through `id` or any operand sharing them, a pending view
  // included) except `last_reader`, the node it fuses that reads `id` last, and the bytes are
  // neither a constant, a region input or output, nor read by `producer` itself.
  bool overwritable(OperandId id, uint32_t producer, uint32_t last_reader) const;
  // Result `id` written over `m`'s bytes (overwritable() said so), read through desc `d`.
  dnnl::memory define_output_over(OperandId id, const dnnl::memory& m, const dnnl::memory::desc& d);
  // `label` names the step in profiles; empty means the node's op and the nodes fused into it.
  void add_step(dnnl::primitive p, std::unordered_map<int, dnnl::memory> args,
                std::string label = {});
  // Refuses the node being defined (a SlowNode with `reason`): the partition gives it to
  // another delegate or to wnn's kernels.
  void refuse(std::string reason);
  // A step of wnn's own code, named `label` with kernel name `kernel` in profiles.
  void add_function_step(std::function<void()> f, std::string label, std::string kernel);

  // Strided views (views.cc): `id` now stands for `v`; a row-major view becomes a plain alias.
  void set_view(OperandId id, StridedView v);
  // `id` as a strided view: its recorded one, else (with `held_strides`) the memory it is held
  // in when that is strided and unblocked (NHWC), else its row-major memory.
  StridedView strided(OperandId id, bool held_strides = false);
  // strided(id) for a primitive that reads the view's memory directly (matmul): oneDNN 2.6's
  // matmul kernels ignore a desc's offset0 (reorders honour it), so a window that starts inside
  // its buffer gets a handle at its first element, or is materialised first when the buffer is
  // a region input or output (bound per run).
  StridedView strided_from_start(OperandId id);
  // `id`'s row-major memory as a view (a pending view is materialised first).
  StridedView row_major(OperandId id);
  // The view's memory: its base's bytes read through its desc (the scale is the reader's).
  dnnl::memory memory_of(const StridedView& v) { return alias(v.base, v.desc()); }
  // The region's nodes reading `id` (and whether it is a region output).
  std::vector<uint32_t> readers(OperandId id) const;
  bool is_region_output(OperandId id) const;
  // Whether strided(id) needs no layout conversion (a view, or held row-major).
  bool readable_strided(OperandId id) const;

  std::unique_ptr<CompiledRegion> finish();

  // Fusion (epilogue.h): the nodes that may run as post-ops of `producer`, and the nodes
  // already fused into a primitive (the region compiler skips them).
  const std::vector<uint32_t>& epilogue_candidates(const Node& producer) const;
  const EpilogueCandidates& epilogue_plan() const { return epilogues_; }
  // The activation chain whose first node is `node`, or null.
  const passes::ActivationChain* activation_at(uint32_t node) const;
  const passes::RmsNormChain* rms_norm_at(uint32_t node) const;
  void mark_fused(uint32_t node) { fused_[node] = true; }
  void unmark_fused(uint32_t node) { fused_[node] = false; }
  // The node whose define step is running: steps added now are attributed to it, and its
  // primitives are created for the thread count its work is worth (oneDNN's convolutions and
  // matmuls fix their thread split when created).
  void begin_node(uint32_t node);
  bool fused(uint32_t node) const { return fused_[node]; }
  // The per-channel scale folded into 1x1 conv `conv`'s filter (channel_scale.h), or null.
  const ChannelScale* channel_scale(uint32_t conv) const;
  // The int8 form conv2d `conv` runs as (integer_conv.h), or null.
  const IntegerConv* integer_conv(uint32_t conv) const;
  // The node to define at `node`'s place: an int8 matmul with its dequantization folded is
  // defined at the dequantization's last node (IntegerConv::Dequantize); else `node`.
  uint32_t defined_at(uint32_t node) const;

 private:
  dnnl::memory held(OperandId id);
  dnnl::memory external(OperandId id, const dnnl::memory::desc& d);
  // Copies (and scales) `v` into `dst` as a run step; returns `dst`.
  dnnl::memory materialize(const StridedView& v, const dnnl::memory& dst);
  const Graph& graph_;
  const Region& region_;
  dnnl::engine engine_;
  dnnl::stream compile_stream_;
  std::map<uint32_t, dnnl::memory> held_;  // current memory per operand
  std::map<uint32_t, StridedView> views_;  // operands not materialised yet
  // The copies get() made of an operand in other layouts, reused by its later readers in the
  // same layout (an operand's value never changes once produced).
  std::map<uint32_t, std::vector<dnnl::memory>> converted_;
  std::vector<std::pair<uint32_t, dnnl::memory>> externals_;  // bound to run data
  std::vector<Step> steps_;
  std::vector<SlowNode> slow_;  // nodes with a step on a reference implementation
  std::vector<Buffer> owned_;
  ActivationChains activations_;
  RmsNormChains rms_norms_;
  EpilogueCandidates epilogues_;
  std::vector<bool> fused_;
  ChannelScales channel_scales_;
  IntegerConvPlan integer_convs_;
  std::unordered_map<uint32_t, size_t> position_;  // node index -> its place in the region
  int64_t current_node_ = -1;
  ConvLayout conv_layout_;
  int threads_;
  int node_threads_;    // the thread count of the node being defined
  int caller_threads_;  // the compiling thread's OpenMP setting, restored at the end
};

// The per-node define step, and the table of lowerings keyed by OpKind.
using DefineFn = void (*)(RegionBuilder&, const Node&);
using Table = LoweringTable<DefineFn>;
const Table& table();

// Family registration, one per runtime/onednn/<family>.cc.
void register_conv(Table& t);
void register_matmul(Table& t);
void register_pool(Table& t);
void register_elementwise(Table& t);
void register_movement(Table& t);
void register_normalization(Table& t);
void register_reduce(Table& t);
void register_reduce_matmul(Table& t);  // after reduce: it wraps reduceSum and reduceMean
void register_views(Table& t);          // after movement and elementwise: it wraps their entries
void register_cast(Table& t);
// RMS normalization chain `r` as one step of wnn's own over x's row-major memory; marks its
// nodes fused.
void define_rms_norm(RegionBuilder& b, const passes::RmsNormChain& r);

// Shared support checks.
Support require_f32(const Graph& g, const Node& n);
// Whether oneDNN's implementation name `impl` ("ref:any", "gemm:ref", "jit:avx512_core") is
// one of its reference (unoptimized) implementations, many times slower than its jit kernels.
bool reference_impl(std::string_view impl);
// reference_impl() of the implementation oneDNN picked for `pd`: callers fall back to another
// layout or lowering, and a step still on one makes its node a SlowNode.
bool reference_kernel(const dnnl::primitive_desc_base& pd);

}  // namespace wnn::runtime::onednn
