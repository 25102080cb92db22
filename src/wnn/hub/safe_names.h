// Names that become paths in the download cache come from manifests and from servers; each is
// checked before it touches the file system so no name can escape the cache directory.
#pragma once

#include <string>

namespace wnn::hub {

// A relative file path inside a repository ("onnx/model.onnx"): no absolute path, no empty,
// "." or ".." component, no backslash or NUL. `what` names the name's origin in the error.
void check_relative_name(const std::string& name, const std::string& what);
// One path component with no separators (an ETag used as a blob name, a URL's file name).
void check_single_component(const std::string& name, const std::string& what);
// "ORG/NAME" (or "NAME"), each part of letters, digits, '-', '_', '.', not "." or "..".
void check_repo_id(const std::string& repo);

}  // namespace wnn::hub
