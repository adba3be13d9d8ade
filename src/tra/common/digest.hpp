#pragma once
// A 64-bit FNV-1a digest of bytes: to tell whether two ranks hold the same
// thing (a checkpoint, an input file, a plan) without sending it. Not a
// cryptographic hash: it guards against stale copies and mistakes, not
// against an adversary.
#include <cstdint>
#include <cstdio>
#include <string>

namespace tra {

class Digest {
 public:
  Digest& add(const void* data, size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < bytes; ++i) state_ = (state_ ^ p[i]) * 0x100000001b3ULL;
    return *this;
  }
  Digest& add(const std::string& s) {
    const std::uint64_t n = s.size();  // the length first: "ab"+"c" differs from "a"+"bc"
    return add(&n, sizeof n).add(s.data(), s.size());
  }
  std::uint64_t value() const { return state_; }
  std::string hex() const {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(state_));
    return text;
  }

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

}  // namespace tra
