// The registry of wnn subcommands. Each command lives in its own file and registers a name,
// a one-line summary, its help text and a run function that returns the exit code.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "wnn/cli/args.h"

namespace wnn::cli {

// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternal = 3;

struct Command {
  std::string_view name;
  std::string_view summary;
  std::string_view help;  // usage and options, printed by `wnn <command> --help`
  std::function<int(Args&)> run;
};

std::vector<Command>& commands();

// Registers a command at static-initialisation time: `static CommandRegistration r{{...}};`
struct CommandRegistration {
  explicit CommandRegistration(Command c) { commands().push_back(std::move(c)); }
};

}  // namespace wnn::cli
