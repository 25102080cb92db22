// Buffers computed from another buffer once per process: the uint4 weights unpacked from a
// mapped file, a delegate's packed copy of a constant. Two graphs over one weights file (a
// decoder's prefill and decode phases) or two sessions over one graph then hold one copy, not
// one each (issue 19: the weights must not double with the sessions).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "wnn/core/tensor.h"

namespace wnn {

// The buffer `make()` computes from `source`, computed once while any caller holds its result:
// a later call with the same source bytes (same address and size) and the same `kind` returns
// the same memory. The result keeps `source` alive, so its address cannot be reused by other
// bytes while the entry is live. `make` must depend only on the source bytes and `kind`.
// Thread-safe.
Buffer derived_buffer(const Buffer& source, std::string_view kind,
                      const std::function<Buffer()>& make);

// The source a live derived_buffer(source, kind, ...) result was computed from, when `derived`
// is one (the same memory); nullopt otherwise.
std::optional<Buffer> derived_source(const Buffer& derived, std::string_view kind);

// The kind format/ unpacks packed 4-bit weights under (one byte per value from the file's two
// per byte, element 0 in the low nibble): the packed delegate finds the file's bytes by it.
std::string unpacked4_kind(bool is_signed, size_t elements);

}  // namespace wnn
