#include "wnn/hub/safe_names.h"

#include <gtest/gtest.h>

#include "wnn/core/error.h"
#include "wnn/hub/download.h"
#include "wnn/hub/http.h"

namespace wnn::hub {
namespace {

TEST(SafeNames, AcceptsNestedRelativeFiles) {
  EXPECT_NO_THROW(check_relative_name("onnx/model.onnx", "file"));
  EXPECT_NO_THROW(check_relative_name("model.onnx_data", "file"));
  EXPECT_NO_THROW(check_relative_name("refs/pr/1", "revision"));
}

TEST(SafeNames, RejectsEscapes) {
  for (const char* bad :
       {"../model.onnx", "a/../../b", "/etc/passwd", "a//b", "a/./b", "..", "a\\..\\b", ""}) {
    EXPECT_THROW(check_relative_name(bad, "file"), Error) << bad;
  }
}

TEST(SafeNames, ErrorNamesTheOriginAndTheName) {
  try {
    check_relative_name("x/../../y", "file of org/model");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("file of org/model"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("x/../../y"), std::string::npos);
  }
}

TEST(SafeNames, SingleComponentRejectsSlashes) {
  EXPECT_NO_THROW(check_single_component("0a1b2c", "ETag"));
  EXPECT_THROW(check_single_component("a/b", "ETag"), Error);
  EXPECT_THROW(check_single_component("..", "ETag"), Error);
}

TEST(SafeNames, RepoIds) {
  EXPECT_NO_THROW(check_repo_id("Xenova/bert-base_uncased.v2"));
  EXPECT_NO_THROW(check_repo_id("gpt2"));
  for (const char* bad : {"a/b/c", "../x", "a/..", "org/na me", "org/x:y", "/org/x"}) {
    EXPECT_THROW(check_repo_id(bad), Error) << bad;
  }
}

TEST(HubCache, RepoFolderFollowsHuggingFaceHub) {
  HubSettings s;
  s.hub_cache = "/tmp/cache";
  EXPECT_EQ(repo_cache_dir(s, "Org-1/Name.x").string(), "/tmp/cache/models--Org-1--Name.x");
  EXPECT_EQ(repo_cache_dir(s, "gpt2").string(), "/tmp/cache/models--gpt2");
}

TEST(HubSettings, ReadsTheEnvironment) {
  setenv("HF_ENDPOINT", "http://127.0.0.1:9/", 1);
  setenv("HF_TOKEN", "tok", 1);
  setenv("HF_HUB_OFFLINE", "1", 1);
  unsetenv("HF_HUB_CACHE");
  setenv("HF_HOME", "/h", 1);
  setenv("WNN_CACHE_DIR", "/w", 1);
  HubSettings s = HubSettings::from_env();
  EXPECT_EQ(s.endpoint, "http://127.0.0.1:9");  // the trailing slash is dropped
  EXPECT_EQ(s.token.value_or(""), "tok");
  EXPECT_TRUE(s.offline);
  EXPECT_EQ(s.hub_cache.string(), "/h/hub");
  EXPECT_EQ(s.url_cache.string(), "/w/urls");
  setenv("HF_HUB_CACHE", "/c", 1);
  setenv("HF_HUB_OFFLINE", "0", 1);
  s = HubSettings::from_env();
  EXPECT_EQ(s.hub_cache.string(), "/c");  // HF_HUB_CACHE wins over HF_HOME
  EXPECT_FALSE(s.offline);
  for (const char* v :
       {"HF_ENDPOINT", "HF_TOKEN", "HF_HUB_OFFLINE", "HF_HOME", "HF_HUB_CACHE", "WNN_CACHE_DIR"}) {
    unsetenv(v);
  }
}

TEST(Http, UrlHelpers) {
  EXPECT_EQ(url_origin("HTTPS://Hub.example:8080/a/b?c"), "https://hub.example:8080");
  EXPECT_EQ(resolve_location("http://h:1/x/y", "/cdn/z"), "http://h:1/cdn/z");
  EXPECT_EQ(resolve_location("http://h:1/x", "https://cdn/q"), "https://cdn/q");
  EXPECT_EQ(url_quote("refs/pr/1", false), "refs%2Fpr%2F1");
  EXPECT_EQ(url_quote("onnx/model q.onnx", true), "onnx/model%20q.onnx");
}

}  // namespace
}  // namespace wnn::hub
