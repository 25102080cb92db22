#include "wnn/sweep/scratch.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <fstream>

namespace wnn::sweep {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const char* name) {
  const fs::path dir = fs::temp_directory_path() / (name + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A scratch directory as a killed run leaves it: the directory, a file in it, its lock file.
void leave_dead_run(const fs::path& parent, const std::string& name) {
  fs::create_directories(parent / name);
  std::ofstream(parent / name / "entry-0.log") << "partial";
  std::ofstream(parent / (name + ".lock"));
}

TEST(ScratchDir, RemovesDeadRunsKeepsLiveOnesAndCleansUpAfterItself) {
  const fs::path parent = fresh_dir("wnn_scratch_");
  leave_dead_run(parent, "wnn-sweep-dead01");
  leave_dead_run(parent, "wnn-sweep-live01");
  fs::create_directories(parent / "wnn-sweep-nolock");  // no lock file: not provably dead
  std::ofstream(parent / "unrelated.lock");
  // A live run holds its lock.
  const int held = ::open((parent / "wnn-sweep-live01.lock").c_str(), O_RDWR);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);
  fs::path made;
  {
    const ScratchDir scratch(parent);
    made = scratch.path();
    EXPECT_TRUE(fs::is_directory(made));
    EXPECT_TRUE(fs::exists(made.string() + ".lock"));
    EXPECT_EQ(made.parent_path(), parent);
    EXPECT_FALSE(fs::exists(parent / "wnn-sweep-dead01"));
    EXPECT_FALSE(fs::exists(parent / "wnn-sweep-dead01.lock"));
    EXPECT_TRUE(fs::exists(parent / "wnn-sweep-live01" / "entry-0.log"));
    EXPECT_TRUE(fs::exists(parent / "wnn-sweep-nolock"));
    EXPECT_TRUE(fs::exists(parent / "unrelated.lock"));
    // Another run started meanwhile must leave this live one alone.
    remove_dead_scratch_dirs(parent);
    EXPECT_TRUE(fs::is_directory(made));
  }
  EXPECT_FALSE(fs::exists(made));
  EXPECT_FALSE(fs::exists(made.string() + ".lock"));
  ::close(held);
  // Once the live run is gone (its lock released), it is stale too.
  remove_dead_scratch_dirs(parent);
  EXPECT_FALSE(fs::exists(parent / "wnn-sweep-live01"));
  fs::remove_all(parent);
}

}  // namespace
}  // namespace wnn::sweep
