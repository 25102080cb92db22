#include "wnn/hub/http.h"

#include <curl/curl.h>
#include <unistd.h>

#include <cctype>
#include <memory>
#include <mutex>

namespace wnn::hub {
namespace {

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Transfer {
  long status = 0;
  std::map<std::string, std::string> headers;
  FILE* out = nullptr;
  uint64_t offset = 0;  // bytes in `out` before the current body
  uint64_t written = 0;
  std::string error_body;  // a non-2xx body, kept short for the message
  bool write_failed = false;
};

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {
    // A new response (after a redirect): only the last one's headers count.
    t->headers.clear();
    const size_t space = line.find(' ');
    t->status = space == std::string::npos ? 0 : std::atol(line.c_str() + space + 1);
    return size * count;
  }
  const size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    for (auto& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
    t->headers[name] = trim(line.substr(colon + 1));
  }
  return size * count;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (t->status == 200 && t->offset > 0 && t->written == 0) {
    // The server sent the whole file: start the partial file over.
    if (std::fflush(t->out) != 0 || ::ftruncate(::fileno(t->out), 0) != 0 ||
        std::fseek(t->out, 0, SEEK_SET) != 0) {
      t->write_failed = true;
      return 0;
    }
    t->offset = 0;
  }
  if (t->status == 200 || t->status == 206) {
    if (std::fwrite(data, 1, n, t->out) != n) {
      t->write_failed = true;
      return 0;
    }
    t->written += n;
  } else if (t->error_body.size() < 300) {
    t->error_body.append(data, std::min<size_t>(n, 300));
  }
  return n;
}

using Easy = std::unique_ptr<CURL, decltype(&curl_easy_cleanup)>;
using HeaderList = std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)>;

Easy make_easy(const std::string& url, const HeaderList& headers, Transfer& t) {
  init_curl_once();
  Easy easy(curl_easy_init(), &curl_easy_cleanup);
  check_internal(easy != nullptr, "curl_easy_init failed");
  CURL* c = easy.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 20L);
  // A stalled transfer (under 1 byte/s for 30 s) fails as a transport error, which resumes.
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 30L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "wnn/" WNN_VERSION);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  return easy;
}

HeaderList header_list(const std::vector<std::string>& headers) {
  curl_slist* list = nullptr;
  for (const auto& h : headers) list = curl_slist_append(list, h.c_str());
  // The digest is over the stored bytes: never let a server compress them in transit.
  list = curl_slist_append(list, "Accept-Encoding: identity");
  return HeaderList(list, &curl_slist_free_all);
}

std::string describe_status(long status, const std::string& body) {
  std::string text = fmt::format("HTTP {}", status);
  const std::string first_line = trim(body.substr(0, body.find('\n')));
  if (!first_line.empty()) text += ": " + first_line;
  return text;
}

}  // namespace

HttpResponse http_head(const std::string& url, const std::vector<std::string>& headers) {
  Transfer t;
  const HeaderList list = header_list(headers);
  Easy easy = make_easy(url, list, t);
  curl_easy_setopt(easy.get(), CURLOPT_NOBODY, 1L);
  curl_easy_setopt(easy.get(), CURLOPT_FOLLOWLOCATION, 0L);
  const CURLcode rc = curl_easy_perform(easy.get());
  if (rc != CURLE_OK) {
    throw HttpError(fmt::format("{}: {}", url, curl_easy_strerror(rc)), 0);
  }
  return {t.status, std::move(t.headers)};
}

uint64_t http_get_to_file(const std::string& url, const std::vector<std::string>& headers,
                          FILE* out, uint64_t offset) {
  Transfer t;
  t.out = out;
  t.offset = offset;
  std::vector<std::string> all = headers;
  if (offset > 0) all.push_back(fmt::format("Range: bytes={}-", offset));
  const HeaderList list = header_list(all);
  Easy easy = make_easy(url, list, t);
  curl_easy_setopt(easy.get(), CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(easy.get(), CURLOPT_MAXREDIRS, 10L);
  const CURLcode rc = curl_easy_perform(easy.get());
  std::fflush(out);
  check(!t.write_failed, "{}: cannot write the downloaded bytes to disk", url);
  if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR) {
    throw HttpError(fmt::format("{}: {} after {} bytes", url, curl_easy_strerror(rc), t.written),
                    0);
  }
  if (t.status != 200 && t.status != 206) {
    throw HttpError(fmt::format("{}: {}", url, describe_status(t.status, t.error_body)), t.status);
  }
  return t.offset + t.written;
}

std::string url_origin(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return "";
  const size_t end = url.find_first_of("/?#", scheme + 3);
  std::string origin = url.substr(0, end);
  for (auto& c : origin) c = char(std::tolower(static_cast<unsigned char>(c)));
  return origin;
}

std::string resolve_location(const std::string& base, const std::string& location) {
  if (location.find("://") != std::string::npos) return location;
  check(!location.empty() && location.front() == '/',
        "{}: cannot follow the redirect to '{}' (not an absolute path)", base, location);
  return url_origin(base) + location;
}

std::string url_quote(const std::string& text, bool keep_slash) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (keep_slash && c == '/')) {
      out += char(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace wnn::hub
