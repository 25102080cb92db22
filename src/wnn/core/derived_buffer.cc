#include "wnn/core/derived_buffer.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

namespace wnn {

namespace {

struct Derived {
  Buffer source;  // kept alive: its address identifies the entry
  Buffer value;
};

using Key = std::tuple<const std::byte*, size_t, std::string>;

std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}

std::map<Key, std::weak_ptr<const Derived>>& cache() {
  static std::map<Key, std::weak_ptr<const Derived>> c;
  return c;
}

}  // namespace

Buffer derived_buffer(const Buffer& source, std::string_view kind,
                      const std::function<Buffer()>& make) {
  const Key key{source.data(), source.size(), std::string(kind)};
  std::lock_guard<std::mutex> lock(cache_mutex());
  auto& entries = cache();
  if (auto it = entries.find(key); it != entries.end()) {
    if (auto live = it->second.lock())
      return Buffer::view(live, live->value.data(), live->value.size());
    entries.erase(it);
  }
  // Expired entries of other keys go when their address is asked again; drop them now and then
  // so the map stays the size of what is live.
  if (entries.size() > 64) {
    for (auto it = entries.begin(); it != entries.end();) {
      it = it->second.expired() ? entries.erase(it) : std::next(it);
    }
  }
  auto d = std::make_shared<Derived>(Derived{source, make()});
  entries[key] = d;
  const std::shared_ptr<const Derived> held = d;
  return Buffer::view(held, held->value.data(), held->value.size());
}

std::optional<Buffer> derived_source(const Buffer& derived, std::string_view kind) {
  std::lock_guard<std::mutex> lock(cache_mutex());
  for (const auto& [key, entry] : cache()) {
    if (std::get<2>(key) != kind) continue;
    const auto live = entry.lock();
    if (live && live->value.data() == derived.data() && live->value.size() == derived.size()) {
      return live->source;
    }
  }
  return std::nullopt;
}

std::string unpacked4_kind(bool is_signed, size_t elements) {
  return (is_signed ? "unpack4 int4 " : "unpack4 uint4 ") + std::to_string(elements);
}

}  // namespace wnn
