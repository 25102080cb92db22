// wnn's pthreadpool API on the OpenMP team (runtime/xnnpack/openmp_pthreadpool.h): every index
// and tile visited exactly once with pthreadpool's tile sizes, denormals flushed only when asked
// and MXCSR restored, one thread inline on the caller, and XNNPACK's own calls reaching it.
#include "wnn/runtime/xnnpack/openmp_pthreadpool.h"

#include <gtest/gtest.h>
#include <omp.h>
#include <pthreadpool.h>
#include <unistd.h>
#include <xmmintrin.h>

#include <atomic>
#include <cmath>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/runtime/session.h"
#include "wnn/runtime/xnnpack/thread_pool.h"

// The legacy pthreadpool_compute_* API is deprecated in the header; it is tested all the same.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace wnn::runtime {
namespace {

using Pool = std::unique_ptr<pthreadpool, decltype(&pthreadpool_destroy)>;

Pool make_pool(size_t threads) { return Pool(pthreadpool_create(threads), pthreadpool_destroy); }

// Counts how often each cell of an N-d range is covered by the tiles a parallelize call hands
// out, and flags any tile whose start is off the tile grid or whose size is not
// min(tile, range - start) (untiled dimensions have tile 1).
struct Recorder {
  std::vector<size_t> range, tile;
  std::vector<std::atomic<int>> hits;
  std::atomic<int> calls{0}, bad{0};
  std::atomic<uint32_t> uarch{~0u};
  std::mutex mutex;
  std::set<std::thread::id> threads;

  Recorder(std::vector<size_t> r, std::vector<size_t> t)
      : range(std::move(r)), tile(std::move(t)), hits(cells()) {}

  size_t cells() const {
    size_t n = 1;
    for (size_t r : range) n *= r;
    return n;
  }

  void visit(std::vector<size_t> start, std::vector<size_t> size) {
    ++calls;
    {
      std::lock_guard lock(mutex);
      threads.insert(std::this_thread::get_id());
    }
    for (size_t d = 0; d < range.size(); ++d) {
      const size_t want = start[d] < range[d] ? std::min(tile[d], range[d] - start[d]) : 0;
      if (start[d] % tile[d] != 0 || want == 0 || size[d] != want) {
        ++bad;
        return;
      }
    }
    // Every cell of the box [start, start + size).
    std::vector<size_t> at = start;
    for (;;) {
      size_t cell = 0;
      for (size_t d = 0; d < range.size(); ++d) cell = cell * range[d] + at[d];
      ++hits[cell];
      size_t d = range.size();
      while (d-- > 0) {
        if (++at[d] < start[d] + size[d]) break;
        at[d] = start[d];
      }
      if (d == size_t(-1)) return;
    }
  }

  // Each cell exactly once, in `tiles` calls, no malformed tile.
  void expect_exactly_once(int tiles, const std::string& what) {
    EXPECT_EQ(bad.load(), 0) << what;
    EXPECT_EQ(calls.load(), tiles) << what;
    for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].load(), 1) << what << " cell " << i;
  }
};

Recorder& rec(void* c) { return *static_cast<Recorder*>(c); }

// Runs `call` on a null pool and pools of 1, 2 and 3 threads, each with a fresh recorder.
template <class Call>
void on_every_pool(std::vector<size_t> range, std::vector<size_t> tile, int tiles,
                   const std::string& what, const Call& call) {
  for (size_t threads : {0, 1, 2, 3}) {
    Pool pool = threads == 0 ? Pool(nullptr, pthreadpool_destroy) : make_pool(threads);
    Recorder r(range, tile);
    call(pool.get(), r);
    r.expect_exactly_once(tiles, what + " on " + std::to_string(threads) + " threads");
  }
}

TEST(OpenmpPthreadpool, OneDimensionalCallsVisitEveryIndexAndTileOnce) {
  on_every_pool({7}, {1}, 7, "1d 7", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_1d(
        p, [](void* c, size_t i) { rec(c).visit({i}, {1}); }, &r, 7, 0);
  });
  on_every_pool({7}, {1}, 7, "1d_with_uarch 7", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_1d_with_uarch(
        p,
        [](void* c, uint32_t u, size_t i) {
          rec(c).uarch = u;
          rec(c).visit({i}, {1});
        },
        &r, 3, 5, 7, 0);
    EXPECT_EQ(r.uarch.load(), 3u);  // the default microarchitecture's index, as without cpuinfo
  });
  on_every_pool({7}, {3}, 3, "1d_tile_1d 7/3", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_1d_tile_1d(
        p, [](void* c, size_t i, size_t n) { rec(c).visit({i}, {n}); }, &r, 7, 3, 0);
  });
  // A tile larger than the range: one call of the whole range.
  on_every_pool({2}, {5}, 1, "1d_tile_1d 2/5", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_1d_tile_1d(
        p, [](void* c, size_t i, size_t n) { rec(c).visit({i}, {n}); }, &r, 2, 5, 0);
  });
}

TEST(OpenmpPthreadpool, TwoAndThreeDimensionalCallsVisitEveryIndexAndTileOnce) {
  on_every_pool({5, 4}, {1, 1}, 20, "2d 5x4", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_2d(
        p,
        [](void* c, size_t i, size_t j) {
          rec(c).visit({i, j}, {1, 1});
        },
        &r, 5, 4, 0);
  });
  on_every_pool({5, 7}, {1, 3}, 15, "2d_tile_1d 5x7/3", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_2d_tile_1d(
        p,
        [](void* c, size_t i, size_t j, size_t nj) {
          rec(c).visit({i, j}, {1, nj});
        },
        &r, 5, 7, 3, 0);
  });
  on_every_pool({5, 4}, {2, 3}, 6, "2d_tile_2d 5x4/2x3", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_2d_tile_2d(
        p,
        [](void* c, size_t i, size_t j, size_t ni, size_t nj) {
          rec(c).visit({i, j}, {ni, nj});
        },
        &r, 5, 4, 2, 3, 0);
  });
  on_every_pool({5, 4}, {2, 3}, 6, "2d_tile_2d_with_uarch", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_2d_tile_2d_with_uarch(
        p,
        [](void* c, uint32_t u, size_t i, size_t j, size_t ni, size_t nj) {
          rec(c).uarch = u;
          rec(c).visit({i, j}, {ni, nj});
        },
        &r, 0, 2, 5, 4, 2, 3, 0);
    EXPECT_EQ(r.uarch.load(), 0u);
  });
  on_every_pool({3, 2, 5}, {1, 1, 1}, 30, "3d 3x2x5", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_3d(
        p,
        [](void* c, size_t i, size_t j, size_t k) {
          rec(c).visit({i, j, k}, {1, 1, 1});
        },
        &r, 3, 2, 5, 0);
  });
  on_every_pool({3, 2, 7}, {1, 1, 4}, 12, "3d_tile_1d 3x2x7/4", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_3d_tile_1d(
        p,
        [](void* c, size_t i, size_t j, size_t k, size_t nk) {
          rec(c).visit({i, j, k}, {1, 1, nk});
        },
        &r, 3, 2, 7, 4, 0);
  });
  on_every_pool({3, 5, 4}, {1, 2, 3}, 18, "3d_tile_2d 3x5x4/2x3", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_3d_tile_2d(
        p,
        [](void* c, size_t i, size_t j, size_t k, size_t nj, size_t nk) {
          rec(c).visit({i, j, k}, {1, nj, nk});
        },
        &r, 3, 5, 4, 2, 3, 0);
  });
  on_every_pool({3, 5, 4}, {1, 2, 3}, 18, "3d_tile_2d_with_uarch",
                [](pthreadpool_t p, Recorder& r) {
                  pthreadpool_parallelize_3d_tile_2d_with_uarch(
                      p,
                      [](void* c, uint32_t u, size_t i, size_t j, size_t k, size_t nj, size_t nk) {
                        rec(c).uarch = u;
                        rec(c).visit({i, j, k}, {1, nj, nk});
                      },
                      &r, 1, 1, 3, 5, 4, 2, 3, 0);
                  EXPECT_EQ(r.uarch.load(), 1u);
                });
}

TEST(OpenmpPthreadpool, FourToSixDimensionalCallsVisitEveryIndexAndTileOnce) {
  on_every_pool({2, 3, 1, 5}, {1, 1, 1, 1}, 30, "4d", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_4d(
        p,
        [](void* c, size_t i, size_t j, size_t k, size_t l) {
          rec(c).visit({i, j, k, l}, {1, 1, 1, 1});
        },
        &r, 2, 3, 1, 5, 0);
  });
  on_every_pool({2, 3, 2, 5}, {1, 1, 1, 2}, 36, "4d_tile_1d", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_4d_tile_1d(
        p,
        [](void* c, size_t i, size_t j, size_t k, size_t l, size_t nl) {
          rec(c).visit({i, j, k, l}, {1, 1, 1, nl});
        },
        &r, 2, 3, 2, 5, 2, 0);
  });
  on_every_pool({2, 3, 5, 4}, {1, 1, 2, 3}, 36, "4d_tile_2d", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_4d_tile_2d(
        p,
        [](void* c, size_t i, size_t j, size_t k, size_t l, size_t nk, size_t nl) {
          rec(c).visit({i, j, k, l}, {1, 1, nk, nl});
        },
        &r, 2, 3, 5, 4, 2, 3, 0);
  });
  on_every_pool(
      {2, 3, 5, 4}, {1, 1, 2, 3}, 36, "4d_tile_2d_with_uarch", [](pthreadpool_t p, Recorder& r) {
        pthreadpool_parallelize_4d_tile_2d_with_uarch(
            p,
            [](void* c, uint32_t u, size_t i, size_t j, size_t k, size_t l, size_t nk, size_t nl) {
              rec(c).uarch = u;
              rec(c).visit({i, j, k, l}, {1, 1, nk, nl});
            },
            &r, 2, 4, 2, 3, 5, 4, 2, 3, 0);
        EXPECT_EQ(r.uarch.load(), 2u);
      });
  on_every_pool({2, 1, 3, 2, 3}, {1, 1, 1, 1, 1}, 36, "5d", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_5d(
        p,
        [](void* c, size_t i, size_t j, size_t k, size_t l, size_t m) {
          rec(c).visit({i, j, k, l, m}, {1, 1, 1, 1, 1});
        },
        &r, 2, 1, 3, 2, 3, 0);
  });
  on_every_pool({2, 2, 1, 3, 7}, {1, 1, 1, 1, 3}, 36, "5d_tile_1d",
                [](pthreadpool_t p, Recorder& r) {
                  pthreadpool_parallelize_5d_tile_1d(
                      p,
                      [](void* c, size_t i, size_t j, size_t k, size_t l, size_t m, size_t nm) {
                        rec(c).visit({i, j, k, l, m}, {1, 1, 1, 1, nm});
                      },
                      &r, 2, 2, 1, 3, 7, 3, 0);
                });
  on_every_pool(
      {2, 1, 2, 5, 4}, {1, 1, 1, 2, 3}, 24, "5d_tile_2d", [](pthreadpool_t p, Recorder& r) {
        pthreadpool_parallelize_5d_tile_2d(
            p,
            [](void* c, size_t i, size_t j, size_t k, size_t l, size_t m, size_t nl, size_t nm) {
              rec(c).visit({i, j, k, l, m}, {1, 1, 1, nl, nm});
            },
            &r, 2, 1, 2, 5, 4, 2, 3, 0);
      });
  on_every_pool({2, 1, 2, 3, 1, 2}, {1, 1, 1, 1, 1, 1}, 24, "6d", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_6d(
        p,
        [](void* c, size_t i, size_t j, size_t k, size_t l, size_t m, size_t n) {
          rec(c).visit({i, j, k, l, m, n}, {1, 1, 1, 1, 1, 1});
        },
        &r, 2, 1, 2, 3, 1, 2, 0);
  });
  on_every_pool(
      {2, 1, 2, 1, 3, 5}, {1, 1, 1, 1, 1, 2}, 36, "6d_tile_1d", [](pthreadpool_t p, Recorder& r) {
        pthreadpool_parallelize_6d_tile_1d(
            p,
            [](void* c, size_t i, size_t j, size_t k, size_t l, size_t m, size_t n, size_t nn) {
              rec(c).visit({i, j, k, l, m, n}, {1, 1, 1, 1, 1, nn});
            },
            &r, 2, 1, 2, 1, 3, 5, 2, 0);
      });
  on_every_pool({1, 2, 1, 2, 5, 4}, {1, 1, 1, 1, 2, 3}, 24, "6d_tile_2d",
                [](pthreadpool_t p, Recorder& r) {
                  pthreadpool_parallelize_6d_tile_2d(
                      p,
                      [](void* c, size_t i, size_t j, size_t k, size_t l, size_t m, size_t n,
                         size_t nm, size_t nn) {
                        rec(c).visit({i, j, k, l, m, n}, {1, 1, 1, 1, nm, nn});
                      },
                      &r, 1, 2, 1, 2, 5, 4, 2, 3, 0);
                });
}

TEST(OpenmpPthreadpool, LegacyComputeCallsTileEveryDimension) {
  on_every_pool({7}, {1}, 7, "compute_1d", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_compute_1d(
        p, [](void* c, size_t i) { rec(c).visit({i}, {1}); }, &r, 7);
  });
  on_every_pool({7}, {3}, 3, "compute_1d_tiled", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_compute_1d_tiled(
        p, [](void* c, size_t i, size_t n) { rec(c).visit({i}, {n}); }, &r, 7, 3);
  });
  on_every_pool({3, 5}, {1, 1}, 15, "compute_2d", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_compute_2d(
        p,
        [](void* c, size_t i, size_t j) {
          rec(c).visit({i, j}, {1, 1});
        },
        &r, 3, 5);
  });
  on_every_pool({5, 4}, {2, 3}, 6, "compute_2d_tiled", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_compute_2d_tiled(
        p,
        [](void* c, size_t i, size_t j, size_t ni, size_t nj) {
          rec(c).visit({i, j}, {ni, nj});
        },
        &r, 5, 4, 2, 3);
  });
  on_every_pool({5, 4, 3}, {2, 3, 2}, 12, "compute_3d_tiled", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_compute_3d_tiled(
        p,
        [](void* c, size_t i, size_t j, size_t k, size_t ni, size_t nj, size_t nk) {
          rec(c).visit({i, j, k}, {ni, nj, nk});
        },
        &r, 5, 4, 3, 2, 3, 2);
  });
  on_every_pool({3, 5, 4, 2}, {2, 2, 3, 1}, 24, "compute_4d_tiled",
                [](pthreadpool_t p, Recorder& r) {
                  pthreadpool_compute_4d_tiled(
                      p,
                      [](void* c, size_t i, size_t j, size_t k, size_t l, size_t ni, size_t nj,
                         size_t nk, size_t nl) {
                        rec(c).visit({i, j, k, l}, {ni, nj, nk, nl});
                      },
                      &r, 3, 5, 4, 2, 2, 2, 3, 1);
                });
}

TEST(OpenmpPthreadpool, EmptyRangeCallsNothing) {
  on_every_pool({0, 4}, {1, 3}, 0, "2d_tile_1d 0x4", [](pthreadpool_t p, Recorder& r) {
    pthreadpool_parallelize_2d_tile_1d(
        p,
        [](void* c, size_t i, size_t j, size_t nj) {
          rec(c).visit({i, j}, {1, nj});
        },
        &r, 0, 4, 3, 0);
  });
}

TEST(OpenmpPthreadpool, ThreadCountsFollowCreate) {
  EXPECT_EQ(pthreadpool_get_threads_count(nullptr), 1u);
  EXPECT_EQ(pthreadpool_get_threads_count(make_pool(3).get()), 3u);
  EXPECT_EQ(pthreadpool_get_threads_count(make_pool(0).get()),
            size_t(sysconf(_SC_NPROCESSORS_ONLN)));
}

// Two threads share a large range (the team really is used).
TEST(OpenmpPthreadpool, TwoThreadPoolSplitsWorkAcrossTheTeam) {
  Pool pool = make_pool(2);
  Recorder r({64}, {1});
  pthreadpool_parallelize_1d(
      pool.get(), [](void* c, size_t i) { rec(c).visit({i}, {1}); }, &r, 64, 0);
  r.expect_exactly_once(64, "1d 64");
  EXPECT_EQ(r.threads.size(), 2u);
}

struct InlineCheck {
  std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> elsewhere{0}, in_parallel{0}, calls{0};
};

TEST(OpenmpPthreadpool, OneThreadOrOneItemRunsInlineOnTheCaller) {
  const auto task = [](void* c, size_t) {
    auto& check = *static_cast<InlineCheck*>(c);
    ++check.calls;
    if (std::this_thread::get_id() != check.caller) ++check.elsewhere;
    if (omp_in_parallel()) ++check.in_parallel;
  };
  Pool one = make_pool(1), two = make_pool(2);
  for (auto [pool, range] : {std::pair{one.get(), size_t(9)}, std::pair{two.get(), size_t(1)},
                             std::pair{static_cast<pthreadpool*>(nullptr), size_t(5)}}) {
    InlineCheck check;
    pthreadpool_parallelize_1d(pool, task, &check, range, 0);
    EXPECT_EQ(check.calls.load(), int(range));
    EXPECT_EQ(check.elsewhere.load(), 0) << range;
    EXPECT_EQ(check.in_parallel.load(), 0) << range;
  }
}

constexpr unsigned kFtzDaz = 0x8040;  // MXCSR flush-to-zero and denormals-are-zero

// MXCSR without its sticky exception flags (bits 0-5), which any arithmetic on a denormal sets.
unsigned mxcsr_control() { return _mm_getcsr() & ~0x3Fu; }

struct DenormalCheck {
  std::atomic<int> flushed{0}, kept{0}, bits_set{0};
};

void check_denormals(void* c, size_t) {
  auto& check = *static_cast<DenormalCheck*>(c);
  volatile float denormal = 1e-39f;  // below FLT_MIN (1.18e-38)
  const float product = denormal * 1.5f;
  ++(product == 0.0f ? check.flushed : check.kept);
  if ((_mm_getcsr() & kFtzDaz) == kFtzDaz) ++check.bits_set;
}

TEST(OpenmpPthreadpool, DisableDenormalsFlushesInsideTasksAndRestoresMxcsr) {
  const unsigned before = mxcsr_control();
  ASSERT_EQ(before & kFtzDaz, 0u);
  for (size_t threads : {1, 2}) {
    Pool pool = make_pool(threads);
    DenormalCheck on;
    pthreadpool_parallelize_1d(pool.get(), check_denormals, &on, 16,
                               PTHREADPOOL_FLAG_DISABLE_DENORMALS);
    EXPECT_EQ(on.flushed.load(), 16) << threads;
    EXPECT_EQ(on.bits_set.load(), 16) << threads;
    EXPECT_EQ(mxcsr_control(), before) << threads;
    // The workers restored theirs too: a call without the flag keeps denormals everywhere.
    DenormalCheck off;
    pthreadpool_parallelize_1d(pool.get(), check_denormals, &off, 16, 0);
    EXPECT_EQ(off.kept.load(), 16) << threads;
    EXPECT_EQ(off.bits_set.load(), 0) << threads;
  }
  // A caller that already flushes keeps flushing after the call.
  _mm_setcsr(before | kFtzDaz);
  DenormalCheck again;
  pthreadpool_parallelize_1d(nullptr, check_denormals, &again, 3,
                             PTHREADPOOL_FLAG_DISABLE_DENORMALS);
  EXPECT_EQ(mxcsr_control(), before | kFtzDaz);
  _mm_setcsr(before);
  EXPECT_EQ(again.flushed.load(), 3);
}

// Several application threads on one pool at once: each call still visits its range once.
TEST(OpenmpPthreadpool, ConcurrentCallersOnOnePoolStayCorrect) {
  Pool pool = make_pool(2);
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&, t] {
      for (int rep = 0; rep < 50; ++rep) {
        const size_t rows = 3 + size_t(t), cols = 7;
        Recorder r({rows, cols}, {1, 2});
        pthreadpool_parallelize_2d_tile_1d(
            pool.get(),
            [](void* c, size_t i, size_t j, size_t nj) {
              rec(c).visit({i, j}, {1, nj});
            },
            &r, rows, cols, 2, 0);
        bool ok = r.bad == 0 && r.calls == int(rows * 4);
        for (auto& h : r.hits) ok = ok && h == 1;
        if (!ok) ++failures;
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(failures.load(), 0);
}

// XNNPACK's parallel loops reach wnn's definitions (libXNNPACK.so.0's imports are interposed
// by the executable's): the counter grows when an XNNPACK region runs on 2 threads, and the
// result matches the reference kernels.
TEST(OpenmpPthreadpool, XnnpackCallsReachTheOpenmpImplementation) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {1, 8, 9, 9}});
  b.output(b.add1(OpKind::kConv2d, {x, b.constant("w", testing::seeded({8, 8, 3, 3}, 4))},
                  {{"padding", std::vector<int64_t>{1, 1, 1, 1}}}, "y"));
  const Tensor in = testing::seeded({1, 8, 9, 9}, 5);
  const std::vector<NamedView> inputs = {{"x", in.view()}};
  const auto want = Session(g, {"ref", 1}).run(inputs);
  const Session s(g, {"xnnpack", 2, true, false});
  ASSERT_EQ(s.execution_plan().partition.regions.size(), 1u);
  const uint64_t before = xnnpack::openmp_pthreadpool_calls();
  const auto got = s.run(inputs);
  EXPECT_GT(xnnpack::openmp_pthreadpool_calls(), before);
  const float* w = want.at(0).tensor.view().as<float>();
  const float* o = got.at(0).tensor.view().as<float>();
  for (int64_t i = 0; i < want[0].tensor.size(); ++i)
    ASSERT_NEAR(o[i], w[i], 1e-4 + 1e-4 * std::abs(w[i])) << i;
}

}  // namespace
}  // namespace wnn::runtime
