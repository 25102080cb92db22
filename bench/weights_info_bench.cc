// Opens a ~4 GB Safetensors file and walks its tensors, reporting wall time and peak RSS.
// The file is sparse (header written, data made by ftruncate), so the benchmark measures header
// validation and mapping, not disk speed: opening must never read or copy the tensor data.
// Usage: weights_info_bench PATH [TENSORS] [ELEMENTS_PER_TENSOR]

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "wnn/core/error.h"
#include "wnn/format/weights.h"

namespace {

void make_sparse_file(const std::string& path, int tensors, uint64_t elements) {
  std::string header = "{\"__metadata__\":{\"producer\":\"weights_info_bench\"}";
  uint64_t offset = 0;
  for (int i = 0; i < tensors; ++i) {
    header += fmt::format(
        ",\"layers.{}.mlp.weight\":{{\"dtype\":\"F32\",\"shape\":[{}],\"data_offsets\":[{},{}]}}",
        i, elements, offset, offset + 4 * elements);
    offset += 4 * elements;
  }
  header += '}';
  header.append((64 - (8 + header.size()) % 64) % 64, ' ');
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  wnn::check(fd >= 0, "cannot create {}", path);
  uint64_t n = header.size();
  bool ok = ::write(fd, &n, 8) == 8 &&
            ::write(fd, header.data(), header.size()) == ssize_t(header.size()) &&
            ::ftruncate(fd, off_t(8 + header.size() + offset)) == 0;
  ::close(fd);
  wnn::check(ok, "cannot write {}", path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PATH [TENSORS] [ELEMENTS_PER_TENSOR]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const int tensors = argc > 2 ? std::stoi(argv[2]) : 4096;
  const uint64_t elements = argc > 3 ? std::stoull(argv[3]) : 262144;  // 4096 x 1 MiB = 4 GiB
  try {
    make_sparse_file(path, tensors, elements);
    const auto start = std::chrono::steady_clock::now();
    auto reader = wnn::format::SafetensorsReader::open(path);
    uint64_t bytes = 0, count = 0;
    for (const wnn::format::StoredTensor* t : reader->tensors()) {
      bytes += t->bytes.size();
      ++count;
    }
    // One zero-copy load, as binding a constant would do.
    const wnn::Buffer b =
        reader->load("layers.0.mlp.weight", {wnn::DataType::kFloat32, {int64_t(elements)}});
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    std::printf(
        "tensors %llu, data %.2f GiB, open+iterate %.1f ms, peak RSS %.1f MiB%s\n",
        (unsigned long long)count, double(bytes) / (1 << 30), seconds * 1e3,
        double(usage.ru_maxrss) / 1024,
        b.data() == reader->find("layers.0.mlp.weight")->bytes.data() ? ", zero-copy" : ", COPIED");
  } catch (const wnn::Error& e) {
    std::fprintf(stderr, "weights_info_bench: %s\n", e.what());
    ::unlink(path.c_str());
    return 2;
  }
  ::unlink(path.c_str());
  return 0;
}
