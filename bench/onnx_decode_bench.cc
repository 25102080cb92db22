// Decode time and peak memory of wnn's ONNX reader against libprotobuf's generated classes
// (Debian's libonnx-dev), on one model. Run each decoder in its own process so peak RSS is
// its own: `onnx_decode_bench wnn MODEL` or `onnx_decode_bench protobuf MODEL`.
// bench/onnx_decode.sh runs both and prints the ratios.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "wnn/core/error.h"
#include "wnn/onnx/model.h"

#ifdef WNN_HAVE_ONNX_PROTO
#include <onnx/onnx_pb.h>
#endif

namespace {

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// RssAnon and RssFile from /proc/self/status, in MiB: private memory versus mapped file pages
// (page cache, shared and reclaimable). Peak RSS alone mixes the two.
struct Resident {
  double anon = 0, file = 0;
};
Resident resident_now() {
  Resident r;
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return r;
  char line[256];
  while (std::fgets(line, sizeof line, f) != nullptr) {
    long kib = 0;
    if (std::sscanf(line, "RssAnon: %ld kB", &kib) == 1) r.anon = double(kib) / 1024;
    if (std::sscanf(line, "RssFile: %ld kB", &kib) == 1) r.file = double(kib) / 1024;
  }
  std::fclose(f);
  return r;
}
Resident g_while_alive;  // measured while the decoded model is still alive

// Returns the initializer count and the sum of their raw_data sizes, so the work is not elided.
std::pair<size_t, size_t> decode_wnn(const char* path) {
  const auto m = wnn::onnx::load_model(path);
  size_t bytes = 0;
  for (const auto& t : m.graph.initializer) bytes += t.raw_data ? t.raw_data->size() : 0;
  g_while_alive = resident_now();
  return {m.graph.initializer.size(), bytes};
}

#ifdef WNN_HAVE_ONNX_PROTO
// The most favourable libprotobuf path: parse straight from a read-only mapping, no read copy.
std::pair<size_t, size_t> decode_protobuf(const char* path) {
  const int fd = open(path, O_RDONLY);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) throw wnn::Error(std::string(path) + ": cannot open");
  if (uint64_t(st.st_size) > uint64_t(INT32_MAX)) {
    close(fd);
    throw wnn::Error("libprotobuf's ParseFromArray takes an int size: cannot parse " +
                     std::to_string(st.st_size) + " bytes");
  }
  void* p = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  onnx::ModelProto m;
  const bool ok = m.ParseFromArray(p, int(st.st_size));
  g_while_alive = resident_now();
  munmap(p, size_t(st.st_size));
  if (!ok) throw wnn::Error(std::string(path) + ": libprotobuf failed to parse");
  size_t bytes = 0;
  for (const auto& t : m.graph().initializer()) bytes += t.raw_data().size();
  return {size_t(m.graph().initializer_size()), bytes};
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: onnx_decode_bench wnn|protobuf MODEL.onnx\n");
    return 2;
  }
  const std::string which = argv[1];
  try {
    const auto start = std::chrono::steady_clock::now();
    std::pair<size_t, size_t> r;
    if (which == "wnn") {
      r = decode_wnn(argv[2]);
#ifdef WNN_HAVE_ONNX_PROTO
    } else if (which == "protobuf") {
      r = decode_protobuf(argv[2]);
#endif
    } else {
      std::fprintf(stderr, "onnx_decode_bench: unknown decoder '%s'\n", which.c_str());
      return 2;
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf(
        "%s ms=%.2f peak_rss_mib=%.1f anon_mib=%.1f file_mib=%.1f initializers=%zu "
        "raw_bytes=%zu\n",
        which.c_str(), ms, double(peak_rss_kib()) / 1024, g_while_alive.anon, g_while_alive.file,
        r.first, r.second);
  } catch (const std::exception& e) {
    std::printf("%s error: %s\n", which.c_str(), e.what());
    return 1;
  }
  return 0;
}
