// The pthreadpool C API on the OpenMP team (openmp_pthreadpool.h says why). All of it lives in
// this one translation unit: shared_pool() (thread_pool.cc) calls pthreadpool_create, which pulls
// this archive member, and with it every pthreadpool_* definition, into any executable that links
// XNNPACK through wnn_runtime; the linker then exports them because libXNNPACK.so.0 imports them.
//
// The contract kept (pthreadpool's, which XNNPACK relies on): every index, or every tile with
// start and size min(tile, range - start), is visited exactly once, in row-major linear order
// split across the team, and the call returns when all are done; a null pool, a pool of one
// thread or a single item runs inline on the caller.
//
// Concurrent calls from several application threads need no mutex here: a call's state lives
// on its caller's stack, and OpenMP gives each application thread that opens a parallel region
// a team of its own (libgomp keeps a worker pool per master thread), so two calls never share
// workers or a task slot. pthreadpool needs its mutex only because its one set of workers and
// its one task slot are shared by every caller; a mutex here would only serialise XNNPACK
// regions that oneDNN's regions beside them already run concurrently.
#include "wnn/runtime/xnnpack/openmp_pthreadpool.h"

#include <omp.h>
#include <pthreadpool.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <new>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

struct pthreadpool {
  size_t threads;
};

namespace wnn::runtime::xnnpack {
namespace {

std::atomic<uint64_t> calls{0};

// FTZ (flush results to zero) and DAZ (treat denormal inputs as zero) for the duration of a
// call on the thread that runs its tasks, as PTHREADPOOL_FLAG_DISABLE_DENORMALS asks; the
// thread's previous MXCSR comes back afterwards.
class DenormalsOff {
 public:
  explicit DenormalsOff(uint32_t flags) {
#if defined(__SSE__)
    active_ = (flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) != 0;
    if (active_) {
      saved_ = _mm_getcsr();
      _mm_setcsr(saved_ | kFlushToZero | kDenormalsAreZero);
    }
#else
    (void)flags;
#endif
  }
  ~DenormalsOff() {
#if defined(__SSE__)
    if (active_) _mm_setcsr(saved_);
#endif
  }
  DenormalsOff(const DenormalsOff&) = delete;
  DenormalsOff& operator=(const DenormalsOff&) = delete;

 private:
#if defined(__SSE__)
  static constexpr unsigned kFlushToZero = 0x8000;
  static constexpr unsigned kDenormalsAreZero = 0x0040;
  bool active_ = false;
  unsigned saved_ = 0;
#endif
};

// An N-dimensional range cut into tiles (tile 1 on an untiled dimension).
template <size_t N>
struct TileSpace {
  std::array<size_t, N> range{}, tile{}, tiles{};
  size_t total = 1;  // number of tiles; 0 when any range is empty

  TileSpace(const std::array<size_t, N>& r, const std::array<size_t, N>& t) : range(r), tile(t) {
    for (size_t d = 0; d < N; ++d) {
      tile[d] = std::max<size_t>(tile[d], 1);
      tiles[d] = range[d] / tile[d] + (range[d] % tile[d] != 0);
      total *= tiles[d];
    }
  }
  size_t size(size_t d, size_t start) const { return std::min(tile[d], range[d] - start); }
};

// Calls visit(start, size) for the tiles at linear positions [begin, end) in row-major order:
// one division per dimension to find the first, then an odometer (no division per tile, since
// XNNPACK's tasks are small).
template <size_t N, class Visit>
void visit_tiles(const TileSpace<N>& s, size_t begin, size_t end, const Visit& visit) {
  if (begin >= end) return;
  std::array<size_t, N> start{}, size{};
  size_t rest = begin;
  for (size_t d = N; d-- > 0;) {
    start[d] = rest % s.tiles[d] * s.tile[d];
    rest /= s.tiles[d];
    size[d] = s.size(d, start[d]);
  }
  for (size_t k = begin;;) {
    visit(start, size);
    if (++k == end) return;
    for (size_t d = N; d-- > 0;) {
      start[d] += s.tile[d];
      if (start[d] < s.range[d]) {
        size[d] = s.size(d, start[d]);
        break;
      }
      start[d] = 0;
      size[d] = s.size(d, 0);
    }
  }
}

size_t pool_threads(const pthreadpool* pool) { return pool == nullptr ? 1 : pool->threads; }

template <size_t N, class Visit>
void parallelize(const pthreadpool* pool, const TileSpace<N>& s, uint32_t flags,
                 const Visit& visit) {
  calls.fetch_add(1, std::memory_order_relaxed);
  // PTHREADPOOL_FLAG_YIELD_WORKERS asks pthreadpool's own workers to sleep rather than spin
  // after this call; here the workers are libgomp's, whose waiting is chosen once per process
  // (runtime/thread_waiting.h), so the flag has nothing to act on and is ignored.
  const size_t threads = std::min(pool_threads(pool), s.total);
  if (threads <= 1) {
    const DenormalsOff denormals(flags);
    visit_tiles(s, 0, s.total, visit);
    return;
  }
#pragma omp parallel num_threads(int(threads))
  {
    const DenormalsOff denormals(flags);
    // The team may be smaller than asked (nested regions, thread limits): split by its real
    // size so every tile is still visited once. Contiguous equal shares (measured against
    // dynamic chunks in docs/benchmarks.md, "One thread pool").
    const size_t n = size_t(omp_get_num_threads()), t = size_t(omp_get_thread_num());
    const size_t share = s.total / n, extra = s.total % n;
    const size_t begin = t * share + std::min(t, extra);
    visit_tiles(s, begin, begin + share + (t < extra), visit);
  }
}

using A1 = std::array<size_t, 1>;
using A2 = std::array<size_t, 2>;
using A3 = std::array<size_t, 3>;
using A4 = std::array<size_t, 4>;
using A5 = std::array<size_t, 5>;
using A6 = std::array<size_t, 6>;

}  // namespace

uint64_t openmp_pthreadpool_calls() { return calls.load(std::memory_order_relaxed); }

}  // namespace wnn::runtime::xnnpack

using wnn::runtime::xnnpack::A1;
using wnn::runtime::xnnpack::A2;
using wnn::runtime::xnnpack::A3;
using wnn::runtime::xnnpack::A4;
using wnn::runtime::xnnpack::A5;
using wnn::runtime::xnnpack::A6;
using wnn::runtime::xnnpack::parallelize;
using wnn::runtime::xnnpack::TileSpace;

extern "C" {

pthreadpool_t pthreadpool_create(size_t threads_count) {
  if (threads_count == 0) {
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    threads_count = cpus > 0 ? size_t(cpus) : 1;
  }
  return new (std::nothrow) pthreadpool{threads_count};
}

size_t pthreadpool_get_threads_count(pthreadpool_t pool) {
  return wnn::runtime::xnnpack::pool_threads(pool);
}

void pthreadpool_destroy(pthreadpool_t pool) { delete pool; }

void pthreadpool_parallelize_1d(pthreadpool_t pool, pthreadpool_task_1d_t f, void* c, size_t r,
                                uint32_t flags) {
  parallelize(pool, TileSpace<1>({r}, {1}), flags, [&](const A1& s, const A1&) { f(c, s[0]); });
}

void pthreadpool_parallelize_1d_with_uarch(pthreadpool_t pool, pthreadpool_task_1d_with_id_t f,
                                           void* c, uint32_t default_uarch, uint32_t, size_t r,
                                           uint32_t flags) {
  // Without cpuinfo pthreadpool itself passes the default microarchitecture's index.
  parallelize(pool, TileSpace<1>({r}, {1}), flags,
              [&](const A1& s, const A1&) { f(c, default_uarch, s[0]); });
}

void pthreadpool_parallelize_1d_tile_1d(pthreadpool_t pool, pthreadpool_task_1d_tile_1d_t f,
                                        void* c, size_t r, size_t t, uint32_t flags) {
  parallelize(pool, TileSpace<1>({r}, {t}), flags,
              [&](const A1& s, const A1& z) { f(c, s[0], z[0]); });
}

void pthreadpool_parallelize_2d(pthreadpool_t pool, pthreadpool_task_2d_t f, void* c, size_t ri,
                                size_t rj, uint32_t flags) {
  parallelize(pool, TileSpace<2>({ri, rj}, {1, 1}), flags,
              [&](const A2& s, const A2&) { f(c, s[0], s[1]); });
}

void pthreadpool_parallelize_2d_tile_1d(pthreadpool_t pool, pthreadpool_task_2d_tile_1d_t f,
                                        void* c, size_t ri, size_t rj, size_t tj, uint32_t flags) {
  parallelize(pool, TileSpace<2>({ri, rj}, {1, tj}), flags,
              [&](const A2& s, const A2& z) { f(c, s[0], s[1], z[1]); });
}

void pthreadpool_parallelize_2d_tile_2d(pthreadpool_t pool, pthreadpool_task_2d_tile_2d_t f,
                                        void* c, size_t ri, size_t rj, size_t ti, size_t tj,
                                        uint32_t flags) {
  parallelize(pool, TileSpace<2>({ri, rj}, {ti, tj}), flags,
              [&](const A2& s, const A2& z) { f(c, s[0], s[1], z[0], z[1]); });
}

void pthreadpool_parallelize_2d_tile_2d_with_uarch(pthreadpool_t pool,
                                                   pthreadpool_task_2d_tile_2d_with_id_t f, void* c,
                                                   uint32_t default_uarch, uint32_t, size_t ri,
                                                   size_t rj, size_t ti, size_t tj,
                                                   uint32_t flags) {
  parallelize(pool, TileSpace<2>({ri, rj}, {ti, tj}), flags,
              [&](const A2& s, const A2& z) { f(c, default_uarch, s[0], s[1], z[0], z[1]); });
}

void pthreadpool_parallelize_3d(pthreadpool_t pool, pthreadpool_task_3d_t f, void* c, size_t ri,
                                size_t rj, size_t rk, uint32_t flags) {
  parallelize(pool, TileSpace<3>({ri, rj, rk}, {1, 1, 1}), flags,
              [&](const A3& s, const A3&) { f(c, s[0], s[1], s[2]); });
}

void pthreadpool_parallelize_3d_tile_1d(pthreadpool_t pool, pthreadpool_task_3d_tile_1d_t f,
                                        void* c, size_t ri, size_t rj, size_t rk, size_t tk,
                                        uint32_t flags) {
  parallelize(pool, TileSpace<3>({ri, rj, rk}, {1, 1, tk}), flags,
              [&](const A3& s, const A3& z) { f(c, s[0], s[1], s[2], z[2]); });
}

void pthreadpool_parallelize_3d_tile_2d(pthreadpool_t pool, pthreadpool_task_3d_tile_2d_t f,
                                        void* c, size_t ri, size_t rj, size_t rk, size_t tj,
                                        size_t tk, uint32_t flags) {
  parallelize(pool, TileSpace<3>({ri, rj, rk}, {1, tj, tk}), flags,
              [&](const A3& s, const A3& z) { f(c, s[0], s[1], s[2], z[1], z[2]); });
}

void pthreadpool_parallelize_3d_tile_2d_with_uarch(pthreadpool_t pool,
                                                   pthreadpool_task_3d_tile_2d_with_id_t f, void* c,
                                                   uint32_t default_uarch, uint32_t, size_t ri,
                                                   size_t rj, size_t rk, size_t tj, size_t tk,
                                                   uint32_t flags) {
  parallelize(pool, TileSpace<3>({ri, rj, rk}, {1, tj, tk}), flags,
              [&](const A3& s, const A3& z) { f(c, default_uarch, s[0], s[1], s[2], z[1], z[2]); });
}

void pthreadpool_parallelize_4d(pthreadpool_t pool, pthreadpool_task_4d_t f, void* c, size_t ri,
                                size_t rj, size_t rk, size_t rl, uint32_t flags) {
  parallelize(pool, TileSpace<4>({ri, rj, rk, rl}, {1, 1, 1, 1}), flags,
              [&](const A4& s, const A4&) { f(c, s[0], s[1], s[2], s[3]); });
}

void pthreadpool_parallelize_4d_tile_1d(pthreadpool_t pool, pthreadpool_task_4d_tile_1d_t f,
                                        void* c, size_t ri, size_t rj, size_t rk, size_t rl,
                                        size_t tl, uint32_t flags) {
  parallelize(pool, TileSpace<4>({ri, rj, rk, rl}, {1, 1, 1, tl}), flags,
              [&](const A4& s, const A4& z) { f(c, s[0], s[1], s[2], s[3], z[3]); });
}

void pthreadpool_parallelize_4d_tile_2d(pthreadpool_t pool, pthreadpool_task_4d_tile_2d_t f,
                                        void* c, size_t ri, size_t rj, size_t rk, size_t rl,
                                        size_t tk, size_t tl, uint32_t flags) {
  parallelize(pool, TileSpace<4>({ri, rj, rk, rl}, {1, 1, tk, tl}), flags,
              [&](const A4& s, const A4& z) { f(c, s[0], s[1], s[2], s[3], z[2], z[3]); });
}

void pthreadpool_parallelize_4d_tile_2d_with_uarch(pthreadpool_t pool,
                                                   pthreadpool_task_4d_tile_2d_with_id_t f, void* c,
                                                   uint32_t default_uarch, uint32_t, size_t ri,
                                                   size_t rj, size_t rk, size_t rl, size_t tk,
                                                   size_t tl, uint32_t flags) {
  parallelize(
      pool, TileSpace<4>({ri, rj, rk, rl}, {1, 1, tk, tl}), flags,
      [&](const A4& s, const A4& z) { f(c, default_uarch, s[0], s[1], s[2], s[3], z[2], z[3]); });
}

void pthreadpool_parallelize_5d(pthreadpool_t pool, pthreadpool_task_5d_t f, void* c, size_t ri,
                                size_t rj, size_t rk, size_t rl, size_t rm, uint32_t flags) {
  parallelize(pool, TileSpace<5>({ri, rj, rk, rl, rm}, {1, 1, 1, 1, 1}), flags,
              [&](const A5& s, const A5&) { f(c, s[0], s[1], s[2], s[3], s[4]); });
}

void pthreadpool_parallelize_5d_tile_1d(pthreadpool_t pool, pthreadpool_task_5d_tile_1d_t f,
                                        void* c, size_t ri, size_t rj, size_t rk, size_t rl,
                                        size_t rm, size_t tm, uint32_t flags) {
  parallelize(pool, TileSpace<5>({ri, rj, rk, rl, rm}, {1, 1, 1, 1, tm}), flags,
              [&](const A5& s, const A5& z) { f(c, s[0], s[1], s[2], s[3], s[4], z[4]); });
}

void pthreadpool_parallelize_5d_tile_2d(pthreadpool_t pool, pthreadpool_task_5d_tile_2d_t f,
                                        void* c, size_t ri, size_t rj, size_t rk, size_t rl,
                                        size_t rm, size_t tl, size_t tm, uint32_t flags) {
  parallelize(pool, TileSpace<5>({ri, rj, rk, rl, rm}, {1, 1, 1, tl, tm}), flags,
              [&](const A5& s, const A5& z) { f(c, s[0], s[1], s[2], s[3], s[4], z[3], z[4]); });
}

void pthreadpool_parallelize_6d(pthreadpool_t pool, pthreadpool_task_6d_t f, void* c, size_t ri,
                                size_t rj, size_t rk, size_t rl, size_t rm, size_t rn,
                                uint32_t flags) {
  parallelize(pool, TileSpace<6>({ri, rj, rk, rl, rm, rn}, {1, 1, 1, 1, 1, 1}), flags,
              [&](const A6& s, const A6&) { f(c, s[0], s[1], s[2], s[3], s[4], s[5]); });
}

void pthreadpool_parallelize_6d_tile_1d(pthreadpool_t pool, pthreadpool_task_6d_tile_1d_t f,
                                        void* c, size_t ri, size_t rj, size_t rk, size_t rl,
                                        size_t rm, size_t rn, size_t tn, uint32_t flags) {
  parallelize(pool, TileSpace<6>({ri, rj, rk, rl, rm, rn}, {1, 1, 1, 1, 1, tn}), flags,
              [&](const A6& s, const A6& z) { f(c, s[0], s[1], s[2], s[3], s[4], s[5], z[5]); });
}

void pthreadpool_parallelize_6d_tile_2d(pthreadpool_t pool, pthreadpool_task_6d_tile_2d_t f,
                                        void* c, size_t ri, size_t rj, size_t rk, size_t rl,
                                        size_t rm, size_t rn, size_t tm, size_t tn,
                                        uint32_t flags) {
  parallelize(
      pool, TileSpace<6>({ri, rj, rk, rl, rm, rn}, {1, 1, 1, 1, tm, tn}), flags,
      [&](const A6& s, const A6& z) { f(c, s[0], s[1], s[2], s[3], s[4], s[5], z[4], z[5]); });
}

// The legacy API (pre-2020 users such as NNPACK): no flags, tiles on every dimension.

void pthreadpool_compute_1d(pthreadpool_t pool, pthreadpool_function_1d_t f, void* c, size_t r) {
  parallelize(pool, TileSpace<1>({r}, {1}), 0, [&](const A1& s, const A1&) { f(c, s[0]); });
}

void pthreadpool_compute_1d_tiled(pthreadpool_t pool, pthreadpool_function_1d_tiled_t f, void* c,
                                  size_t r, size_t t) {
  parallelize(pool, TileSpace<1>({r}, {t}), 0, [&](const A1& s, const A1& z) { f(c, s[0], z[0]); });
}

void pthreadpool_compute_2d(pthreadpool_t pool, pthreadpool_function_2d_t f, void* c, size_t ri,
                            size_t rj) {
  parallelize(pool, TileSpace<2>({ri, rj}, {1, 1}), 0,
              [&](const A2& s, const A2&) { f(c, s[0], s[1]); });
}

void pthreadpool_compute_2d_tiled(pthreadpool_t pool, pthreadpool_function_2d_tiled_t f, void* c,
                                  size_t ri, size_t rj, size_t ti, size_t tj) {
  parallelize(pool, TileSpace<2>({ri, rj}, {ti, tj}), 0,
              [&](const A2& s, const A2& z) { f(c, s[0], s[1], z[0], z[1]); });
}

void pthreadpool_compute_3d_tiled(pthreadpool_t pool, pthreadpool_function_3d_tiled_t f, void* c,
                                  size_t ri, size_t rj, size_t rk, size_t ti, size_t tj,
                                  size_t tk) {
  parallelize(pool, TileSpace<3>({ri, rj, rk}, {ti, tj, tk}), 0,
              [&](const A3& s, const A3& z) { f(c, s[0], s[1], s[2], z[0], z[1], z[2]); });
}

void pthreadpool_compute_4d_tiled(pthreadpool_t pool, pthreadpool_function_4d_tiled_t f, void* c,
                                  size_t ri, size_t rj, size_t rk, size_t rl, size_t ti, size_t tj,
                                  size_t tk, size_t tl) {
  parallelize(
      pool, TileSpace<4>({ri, rj, rk, rl}, {ti, tj, tk, tl}), 0,
      [&](const A4& s, const A4& z) { f(c, s[0], s[1], s[2], s[3], z[0], z[1], z[2], z[3]); });
}

}  // extern "C"
