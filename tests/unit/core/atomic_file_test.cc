#include "wnn/core/atomic_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "wnn/core/error.h"

namespace wnn {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

fs::path fresh_dir(const char* name) {
  const fs::path dir = fs::temp_directory_path() / (name + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(AtomicFile, CommitReplacesTheTargetWithAllWrittenBytes) {
  const fs::path dir = fresh_dir("wnn_atomic_commit_");
  const fs::path target = dir / "out.bin";
  std::ofstream(target) << "old";
  {
    AtomicFileWriter w(target.string());
    const std::string small = "head:";
    w.write(std::as_bytes(std::span(small)));
    const std::string large(3 << 20, 'x');  // bigger than the internal buffer
    w.write(std::as_bytes(std::span(large)));
    w.write(std::as_bytes(std::span(small)));
    EXPECT_EQ(read_all(target), "old");  // invisible until commit
    w.commit();
  }
  const std::string got = read_all(target);
  EXPECT_EQ(got.size(), 5 + (3u << 20) + 5);
  EXPECT_EQ(got.substr(0, 6), "head:x");
  EXPECT_EQ(got.substr(got.size() - 6), "xhead:");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), {}), 1);
  fs::remove_all(dir);
}

TEST(AtomicFile, OutputsPastTheWritebackWindowKeepEveryByteInOrder) {
  // 70 MiB in odd-sized pieces crosses the 32 MiB writeback window twice, in buffered and
  // direct writes; every byte must land at its offset.
  const fs::path dir = fresh_dir("wnn_atomic_window_");
  const fs::path target = dir / "big.bin";
  const size_t total = (70u << 20) + 13;
  std::string expected(total, '\0');
  for (size_t i = 0; i < total; ++i) expected[i] = char((i * 2654435761u) >> 13);
  {
    AtomicFileWriter w(target.string());
    size_t at = 0, piece = 1;
    while (at < total) {
      const size_t n = std::min(piece, total - at);
      w.write(std::as_bytes(std::span(expected.data() + at, n)));
      at += n;
      piece = piece * 7 % 5000017 + 1;  // sizes from 1 byte to ~5 MiB
    }
    w.commit();
  }
  EXPECT_TRUE(read_all(target) == expected);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), {}), 1);
  fs::remove_all(dir);
}

TEST(AtomicFile, AbandonedWriteLeavesTargetAndDirectoryUntouched) {
  const fs::path dir = fresh_dir("wnn_atomic_abandon_");
  const fs::path target = dir / "out.bin";
  std::ofstream(target) << "keep";
  {
    AtomicFileWriter w(target.string());
    const std::string s = "partial";
    w.write(std::as_bytes(std::span(s)));
  }
  EXPECT_EQ(read_all(target), "keep");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), {}), 1);
  const std::string bytes = "\x01\x02";
  write_file_atomic((dir / "new.bin").string(), std::as_bytes(std::span(bytes)));
  EXPECT_EQ(read_all(dir / "new.bin"), bytes);
  EXPECT_THROW(AtomicFileWriter((dir / "missing" / "x").string()), Error);
  fs::remove_all(dir);
}

TEST(AtomicFile, WritesReplacesAndLeavesNoTemporary) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("wnn_atomic_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "f.txt").string();
  write_file_atomic(path, "first\n");
  EXPECT_EQ(read_file(path), "first\n");
  ::chmod(path.c_str(), 0640);
  const std::string binary("a\0b\xff", 4);
  write_file_atomic(path, binary);
  EXPECT_EQ(read_file(path), binary);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);  // the replaced file's mode is kept
  write_file_atomic(path, "");
  EXPECT_EQ(read_file(path), "");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1u);
  std::filesystem::remove_all(dir);
}

// `--report /dev/null` run as root once replaced the device node with a regular file: a target
// that is not a regular file is written in place. A FIFO stands in for the device here.
TEST(AtomicFile, WritesIntoAFifoInsteadOfReplacingIt) {
  const fs::path dir = fresh_dir("fifo");
  const std::string fifo = (dir / "pipe").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  write_file_atomic(fifo, "report\n");
  struct stat st {};
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  char got[16] = {};
  EXPECT_EQ(::read(reader, got, sizeof got), 7);
  EXPECT_STREQ(got, "report\n");
  ::close(reader);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1u);  // no temporary left beside it
  EXPECT_THROW(write_file_atomic(dir.string(), "x"), Error);
}

TEST(AtomicFile, ErrorsNameThePath) {
  try {
    write_file_atomic("/nonexistent_dir_wnn/x.webnn", "x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent_dir_wnn/x.webnn"), std::string::npos);
  }
  try {
    read_file("/nonexistent_dir_wnn/y.webnn");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open '/nonexistent_dir_wnn/y.webnn'"),
              std::string::npos);
  }
}

// A pid that no process has now: a child that has exited and been reaped.
long dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

TEST(AtomicFile, NextWriterRemovesOnlyDeadWritersTemporaries) {
  const fs::path dir = fresh_dir("wnn_atomic_stale_");
  const long dead = dead_pid();
  const fs::path stale = dir / (".out.json.tmp." + std::to_string(dead) + ".0badf00d");
  const fs::path live = dir / (".out.json.tmp." + std::to_string(::getppid()) + ".00000001");
  const fs::path locked = dir / (".out.json.tmp." + std::to_string(dead) + ".00000002");
  const fs::path other = dir / (".other.json.tmp." + std::to_string(dead) + ".00000003");
  const fs::path not_ours = dir / ".out.json.tmp.12ab.00000004";
  for (const auto& p : {stale, live, locked, other, not_ours}) std::ofstream(p) << "partial";
  // A writer on another host (same dead-looking pid here) holds its lock: it must survive.
  const int held = ::open(locked.c_str(), O_RDONLY);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);

  write_file_atomic((dir / "out.json").string(), std::string_view("{}"));
  ::close(held);

  EXPECT_EQ(read_all(dir / "out.json"), "{}");
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));      // its writer process is alive
  EXPECT_TRUE(fs::exists(locked));    // its lock is held
  EXPECT_TRUE(fs::exists(other));     // another target's temporary
  EXPECT_TRUE(fs::exists(not_ours));  // not a pid: not a name AtomicFileWriter makes
  fs::remove_all(dir);
}

}  // namespace
}  // namespace wnn
