#include "wnn/onnx/unsupported.h"

#include <fmt/format.h>

#include <deque>
#include <string>

#include "wnn/onnx/registry.h"
#include "wnn/onnx/tensor_data.h"

namespace wnn::onnx {

namespace {
constexpr std::string_view kStrings = "strings", kSeq = "sequences", kOpt = "optional",
                           kFlow = kControlFlowCategory, kDyn = "data-dependent output shape",
                           kRand = kRandomnessCategory, kTrain = "training";
}  // namespace

std::span<const Inexpressible> inexpressible_ops() {
  static const Inexpressible table[] = {
      {"StringNormalizer", kStrings, "operates on string tensors"},
      {"StringConcat", kStrings, "operates on string tensors"},
      {"StringSplit", kStrings, "operates on string tensors"},
      {"RegexFullMatch", kStrings, "operates on string tensors"},
      {"TfIdfVectorizer", kStrings, "string/ngram vectorizer"},
      {"LabelEncoder", kStrings, "maps strings"},
      {"SequenceAt", kSeq, "WebNN has no sequence type"},
      {"SequenceConstruct", kSeq, "WebNN has no sequence type"},
      {"SequenceEmpty", kSeq, "WebNN has no sequence type"},
      {"SequenceErase", kSeq, "WebNN has no sequence type"},
      {"SequenceInsert", kSeq, "WebNN has no sequence type"},
      {"SequenceLength", kSeq, "WebNN has no sequence type"},
      {"SequenceMap", kSeq, "WebNN has no sequence type"},
      {"SplitToSequence", kSeq, "WebNN has no sequence type"},
      {"ConcatFromSequence", kSeq, "WebNN has no sequence type"},
      {"Optional", kOpt, "WebNN has no optional type"},
      {"OptionalGetElement", kOpt, "WebNN has no optional type"},
      {"OptionalHasElement", kOpt, "WebNN has no optional type"},
      {"If", kFlow, "a WebNN graph has no branches (only a constant condition could be inlined)"},
      {"Loop", kFlow, "a WebNN graph has no loops"},
      {"Scan", kFlow, "a WebNN graph has no loops"},
      {"NonZero", kDyn, "the output size depends on the values"},
      {"Unique", kDyn, "the output size depends on the values"},
      {"Compress", kDyn, "the output size depends on the condition values"},
      {"NonMaxSuppression", kDyn, "the output size depends on the values"},
      {"RandomNormal", kRand, "impure: each run draws new values"},
      {"RandomNormalLike", kRand, "impure: each run draws new values"},
      {"RandomUniform", kRand, "impure: each run draws new values"},
      {"RandomUniformLike", kRand, "impure: each run draws new values"},
      {"Bernoulli", kRand, "impure: each run draws new values"},
      {"Multinomial", kRand, "impure: each run draws new values"},
      {"Adagrad", kTrain, "an optimizer update (ai.onnx.preview.training)"},
      {"Adam", kTrain, "an optimizer update (ai.onnx.preview.training)"},
      {"Momentum", kTrain, "an optimizer update (ai.onnx.preview.training)"},
      {"Gradient", kTrain, "a gradient computation (ai.onnx.preview.training)"},
  };
  return table;
}

std::span<const InexpressibleType> inexpressible_io_types() {
  static const InexpressibleType table[] = {
      {int32_t(OnnxType::kInt16), "data type int16 has no WebNN equivalent"},
      {int32_t(OnnxType::kUint16), "data type uint16 has no WebNN equivalent"},
      {int32_t(OnnxType::kBfloat16), "data type bfloat16 has no WebNN equivalent"},
  };
  return table;
}

const InexpressibleType* find_inexpressible_io_type(int32_t onnx_type) {
  for (const auto& e : inexpressible_io_types()) {
    if (e.onnx_type == onnx_type) return &e;
  }
  return nullptr;
}

const Inexpressible* find_inexpressible(std::string_view op_type) {
  for (const auto& e : inexpressible_ops()) {
    if (e.op_type == op_type) return &e;
  }
  return nullptr;
}

namespace ops {
void register_inexpressible(std::vector<Converter>& t) {
  // The notes must outlive the table: keep them in a stable container.
  static std::deque<std::string> notes;
  for (const auto& e : inexpressible_ops()) {
    if (e.op_type == "If") {
      // The importer inlines an If whose condition is known and selects between both branches
      // when it is not (import.cc); this entry is what remains: a malformed If.
      t.push_back({"", "If", 1, kMaxOpset,
                   [](ConvertContext& c) {
                     c.inexpressible(std::string(kFlow),
                                     "the condition is only known at run time: {}; pin the "
                                     "input(s) that decide it with --pin-input",
                                     "a WebNN graph has no branches");
                   },
                   ConvertKind::kFolded, false,
                   "a constant condition (after --pin-input and folding) inlines the chosen "
                   "branch; a run-time one computes both and selects each output with where, "
                   "when both are pure, loop-free and agree in dtype and broadcastable shape"});
      continue;
    }
    notes.push_back(fmt::format("{}: {}", e.category, e.why));
    t.push_back(
        {"", e.op_type, 1, kMaxOpset, nullptr, ConvertKind::kUnsupported, false, notes.back()});
  }
}
}  // namespace ops

}  // namespace wnn::onnx
