// `wnn download`: fetches files from the Hugging Face Hub (or a URL) into the shared cache and
// prints their local paths, the way `wnn validate-models` fetches a manifest's sources.
#include <cstdio>

#include "wnn/cli/command.h"
#include "wnn/core/error.h"
#include "wnn/hub/download.h"

namespace wnn::cli {
namespace {

int run_download(Args& args) {
  hub::FetchOptions options;
  options.refresh = args.flag("refresh");
  options.sha256 = args.value("sha256");
  const auto revision = args.value("revision");
  const auto url = args.value("url");
  const std::vector<std::string> rest = args.finish();
  const hub::HubSettings settings = hub::HubSettings::from_env();
  if (url) {
    check(rest.empty() && !revision, "wnn download --url URL takes no REPO, FILE or --revision");
    std::printf("%s\n", hub::url_download(settings, *url, options).path.c_str());
    return kExitOk;
  }
  check(rest.size() >= 2, "wnn download: expected REPO FILE... (see wnn download --help)");
  for (size_t i = 1; i < rest.size(); ++i) {
    hub::HubFileRef ref{rest[0], revision.value_or("main"), rest[i]};
    const hub::FetchedFile f = hub::hf_hub_download(settings, ref, options);
    std::printf("%s\n", f.path.c_str());
  }
  return kExitOk;
}

const CommandRegistration registration{{
    "download",
    "download model files from the Hugging Face Hub or a URL into the shared cache",
    "usage: wnn download REPO FILE... [--revision REV] [--sha256 HEX] [--refresh]\n"
    "       wnn download --url URL [--sha256 HEX] [--refresh]\n\n"
    "Prints the local path of each file. Hub files use huggingface_hub's cache layout\n"
    "(HF_HUB_CACHE, or HF_HOME/hub, or ~/.cache/huggingface/hub) and honour HF_ENDPOINT,\n"
    "HF_TOKEN and HF_HUB_OFFLINE; URLs go to WNN_CACHE_DIR/urls (default ~/.cache/wnn/urls).\n"
    "See docs/validate-models.md.\n\n"
    "options:\n"
    "  --revision REV  branch, tag or commit (default main); pinned in refs/REV\n"
    "  --sha256 HEX    the SHA-256 the file must have\n"
    "  --refresh       download again even when a verified copy is cached",
    run_download,
}};

}  // namespace
}  // namespace wnn::cli
