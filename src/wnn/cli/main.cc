// wnn: convert, run and validate WebNN models. Dispatches to the registered subcommands and
// turns errors into one line on stderr and the documented exit codes.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "wnn/cli/args.h"
#include "wnn/cli/command.h"
#include "wnn/core/error.h"
#include "wnn/runtime/thread_waiting.h"

namespace wnn::cli {

std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}

namespace {

void print_usage() {
  std::printf(
      "usage: wnn <command> [options] [args]\n\n"
      "wnn converts models to WebNN graphs (.webnn + .safetensors), runs them on CPU and\n"
      "proves they compute what the original model computes.\n\ncommands:\n");
  auto sorted = commands();
  std::sort(sorted.begin(), sorted.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  for (const auto& c : sorted) {
    std::printf("  %-18s %.*s\n", std::string(c.name).c_str(), int(c.summary.size()),
                c.summary.data());
  }
  std::printf(
      "\nRun 'wnn <command> --help' for a command's options.\n"
      "Exit codes: 0 ok, 1 the command's check failed, 2 bad usage or input, 3 internal "
      "error.\n");
}

}  // namespace

int run_main(int argc, char** argv) {
  std::vector<std::string> rest(argv + 1, argv + argc);
  if (rest.empty() || rest[0] == "--help" || rest[0] == "-h" || rest[0] == "help") {
    if (rest.size() >= 2 && rest[0] == "help") {
      rest = {rest[1], "--help"};
    } else {
      print_usage();
      return rest.empty() ? kExitBadInput : kExitOk;
    }
  }
  if (rest[0] == "--version" || rest[0] == "-V") {
    std::printf("wnn %s\n", WNN_VERSION);
    return kExitOk;
  }
  const std::string name = rest[0];
  const auto& all = commands();
  const auto it =
      std::find_if(all.begin(), all.end(), [&](const Command& c) { return c.name == name; });
  if (it == all.end()) {
    std::fprintf(stderr, "wnn: error: unknown command '%s' (run 'wnn --help')\n", name.c_str());
    return kExitBadInput;
  }
  std::vector<std::string> args(rest.begin() + 1, rest.end());
  if (std::find(args.begin(), args.end(), "--help") != args.end() ||
      std::find(args.begin(), args.end(), "-h") != args.end()) {
    std::printf("%.*s\n", int(it->help.size()), it->help.data());
    return kExitOk;
  }
  try {
    Args parsed(std::move(args));
    return it->run(parsed);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kInternal) {
      std::fprintf(stderr,
                   "wnn: internal error: %s\nThis is a bug in wnn; please report it with the "
                   "command and input that caused it.\n",
                   e.what());
      return kExitInternal;
    }
    std::fprintf(stderr, "wnn: error: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "wnn: error: out of memory\n");
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "wnn: internal error: %s\nThis is a bug in wnn; please report it with the "
                 "command and input that caused it.\n",
                 e.what());
    return kExitInternal;
  }
}

}  // namespace wnn::cli

namespace {

// Whether the command line asks for more than one thread (read as the command will read it):
// only then are there OpenMP workers whose waiting matters. Every command's default is one.
bool asks_for_threads(int argc, char** argv) {
  try {
    wnn::cli::Args args(std::vector<std::string>(argv + 1, argv + argc));
    return args.int_value("threads").value_or(1) > 1;
  } catch (const std::exception&) {
    return false;  // a malformed value: the command reports it
  }
}

// libgomp reads how its workers wait (thread_waiting.h) once, when it loads, before main: so
// when the user has not chosen and the command will run more than one thread, choose for this
// machine and re-execute once with the choice in the environment. Other commands skip the
// probe (about 1 ms of load samples and pause timing) and the re-execution.
void choose_openmp_waiting(int argc, char** argv) {
  if (!asks_for_threads(argc, argv)) return;
  if (!wnn::runtime::set_openmp_waiting_environment()) return;
  execv("/proc/self/exe", argv);  // returns only on failure: run on with libgomp's defaults
}

}  // namespace

int main(int argc, char** argv) {
  choose_openmp_waiting(argc, argv);
  return wnn::cli::run_main(argc, argv);
}
