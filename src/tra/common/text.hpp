#pragma once
// Text helpers for plans and reports, which are UTF-8 (Σ, ⋈, λ, ∘), and for
// the names decks use.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tra {

// `s` cut to at most `max_bytes` bytes with "..." appended when cut, never in
// the middle of a UTF-8 character (a cut one makes the whole output invalid
// UTF-8 for every tool that reads it).
inline std::string shorten(const std::string& s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t n = max_bytes >= 3 ? max_bytes - 3 : 0;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // back to a character's first byte
  return s.substr(0, n) + "...";
}

// Columns a terminal gives `s`: one per character, not per byte (Σ, ⋈ and λ
// are two or three bytes each; printf's %-6s pads by bytes and shifts every
// column after them).
inline size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char ch : s) n += (ch & 0xC0) != 0x80;
  return n;
}

// `s` padded with spaces to `width` columns (unchanged when wider).
inline std::string pad_right(const std::string& s, size_t width) {
  const size_t w = display_width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

// The shortest decimal text that reads back as `x` (0.3, not
// 0.29999999999999999): for numbers a user wrote and reads again.
inline std::string shortest_text(double x) {
  char text[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, x);
    if (std::strtod(text, nullptr) == x) break;
  }
  return text;
}

// Names in decks (tensors, statements, labels, parameters): a letter or '_',
// then letters, digits or '_'.
inline bool identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
inline bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
inline bool is_identifier(const std::string& s) {
  if (s.empty() || !identifier_start(s[0])) return false;
  for (char c : s)
    if (!identifier_char(c)) return false;
  return true;
}

}  // namespace tra
