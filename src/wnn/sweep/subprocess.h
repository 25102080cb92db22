// Runs one sweep step in its own process, so a crash (a signal, an abort) in conversion or
// validation ends that entry only. stdout and stderr go to a log file the sweep reads back.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace wnn::sweep {

struct ProcessExit {
  int exit_code = -1;            // when exited normally
  int signal = 0;                // when killed by a signal
  std::string describe() const;  // "exit status 2" / "killed by signal 6 (Aborted)"
};

// Runs argv[0] with `argv`, stdout and stderr appended to `log`; waits for it.
ProcessExit run_process(const std::vector<std::string>& argv, const std::filesystem::path& log);

}  // namespace wnn::sweep
