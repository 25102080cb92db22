// Test support: runs a graph on oneDNN and on the reference kernels and compares every output,
// and lists the kernels a oneDNN session profiles (to check fusion and layout decisions).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "wnn/runtime/session.h"

namespace wnn::runtime::testing {

inline std::vector<float> values(const NamedTensor& t) {
  const float* p = t.tensor.view().as<float>();
  return {p, p + t.tensor.size()};
}

// Runs `g` on the reference kernels and on oneDNN (1 and 2 threads) and compares every output.
inline void expect_same_as_reference(const std::shared_ptr<const Graph>& g,
                                     const std::vector<NamedView>& in) {
  const auto want = Session(g, {"ref", 1}).run(in);
  for (int threads : {1, 2}) {
    const Session s(g, {"onednn", threads, true, false});
    const auto got = s.run(in);
    ASSERT_EQ(got.size(), want.size());
    for (size_t o = 0; o < got.size(); ++o) {
      const auto a = values(got[o]), r = values(want[o]);
      ASSERT_EQ(a.size(), r.size());
      for (size_t i = 0; i < a.size(); ++i) {
        ASSERT_NEAR(a[i], r[i], 1e-4 + 1e-4 * std::abs(r[i])) << "output " << o << " at " << i;
      }
    }
  }
}

// The labels of the profiled kernels, e.g. "conv2d+add+relu 'y'".
inline std::vector<std::string> kernel_labels(const std::shared_ptr<const Graph>& g,
                                              const std::vector<NamedView>& in) {
  Session s(g, {"onednn", 1, true, false});
  s.set_profiling(true);
  s.run(in);
  std::vector<std::string> labels;
  for (const auto& row : s.profile()) {
    EXPECT_EQ(row.runs, 1) << row.label;
    labels.push_back(row.label);
  }
  return labels;
}

inline bool has_label(const std::vector<std::string>& labels, std::string_view prefix) {
  for (const auto& l : labels) {
    if (l.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// How many kernel labels start with `prefix`.
inline size_t count_prefix(const std::vector<std::string>& labels, std::string_view prefix) {
  size_t n = 0;
  for (const auto& l : labels) n += l.rfind(prefix, 0) == 0;
  return n;
}

// No layout conversion runs from kernel `first` up to kernel `last` (kernels run in order).
inline void expect_no_reorders_between(const std::vector<std::string>& labels,
                                       std::string_view first, std::string_view last) {
  const auto from = std::find(labels.begin(), labels.end(), first);
  const auto to = std::find(labels.begin(), labels.end(), last);
  ASSERT_TRUE(from < to && to != labels.end()) << ::testing::PrintToString(labels);
  for (auto it = from; it != to; ++it) {
    EXPECT_EQ(it->rfind("reorder", 0), std::string::npos) << ::testing::PrintToString(labels);
  }
}

}  // namespace wnn::runtime::testing
