// The HTTP requests the download cache needs, over libcurl: a metadata HEAD that does not
// follow redirects (the Hub's headers sit on its own 302 response) and a GET that streams the
// body into a file from a byte offset (Range) and follows redirects to the CDN.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "wnn/core/error.h"

namespace wnn::hub {

// An HTTP status other than the expected ones (status > 0), or a transport failure (status 0:
// no connection, connection dropped, timeout), which callers may retry or answer from the cache.
class HttpError : public Error {
 public:
  HttpError(std::string message, long status) : Error(std::move(message)), status_(status) {}
  long status() const { return status_; }
  bool is_transport() const { return status_ == 0; }

 private:
  long status_;
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // names lowercased; the last response's
};

// HEAD `url` with `headers` ("Name: value"); redirects are returned, not followed.
HttpResponse http_head(const std::string& url, const std::vector<std::string>& headers);

// GET `url` (following redirects), appending the body to `out` positioned at `offset`. With
// offset > 0 it asks for "Range: bytes=offset-"; a 200 reply (the server ignored the Range)
// truncates `out` and starts over. Returns the number of bytes now in the file. Throws
// HttpError on a non-2xx status or a transport failure (the bytes received so far stay in `out`).
uint64_t http_get_to_file(const std::string& url, const std::vector<std::string>& headers,
                          FILE* out, uint64_t offset);

// The part of `url` that decides where credentials may go: "scheme://host:port".
std::string url_origin(const std::string& url);
// `location` (absolute, or relative to `base`'s origin) as an absolute URL.
std::string resolve_location(const std::string& base, const std::string& location);
// Percent-encodes everything but unreserved characters; '/' too unless keep_slash.
std::string url_quote(const std::string& text, bool keep_slash);

}  // namespace wnn::hub
