// One profiled run of a test graph, shared by the delegate tests that check both the values and
// which steps ran: the first output as doubles (float32 and int32 are exact there) and each
// profile step as "label [kernel]".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "wnn/runtime/session.h"

namespace wnn::runtime::testing {

struct ProfiledRun {
  std::vector<double> y;
  std::vector<std::string> steps;  // "label [kernel]", in run order

  int count_containing(std::string_view what) const {
    int n = 0;
    for (const auto& s : steps) n += s.find(what) != std::string::npos;
    return n;
  }
  std::string joined() const {
    std::string s;
    for (const auto& l : steps) s += l + "; ";
    return s;
  }
};

// Runs `g` on `backend` with `threads`, feeding those of `feeds` the graph has as inputs.
inline ProfiledRun run_profiled(const std::shared_ptr<const Graph>& g,
                                const std::vector<NamedView>& feeds, const std::string& backend,
                                int threads) {
  Session s(g, {backend, threads, true, false});
  s.set_profiling(true);
  std::vector<NamedView> in;
  for (const InputInfo& i : g->inputs()) {
    for (const NamedView& f : feeds) {
      if (g->name_of(i.id) == f.name) in.push_back(f);
    }
  }
  const auto out = s.run(in);
  ProfiledRun r;
  const ConstTensorView v = out[0].tensor.view();
  const int64_t n = out[0].tensor.size();
  if (v.dtype == DataType::kInt32) {
    r.y.assign(v.as<int32_t>(), v.as<int32_t>() + n);
  } else {
    r.y.assign(v.as<float>(), v.as<float>() + n);
  }
  for (const auto& row : s.profile()) r.steps.push_back(row.label + " [" + row.kernel + "]");
  return r;
}

}  // namespace wnn::runtime::testing
