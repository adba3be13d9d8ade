#pragma once
// Reading one value of a deck (internal to io/deck/): where a YAML node is
// written (file:line:column, the --set option that placed it, or the
// characters a $param substituted), and the checked readers of scalars,
// counts, seeds, shapes, byte sizes, names and paths that every section of
// the deck (deck_sections.hpp) uses.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "tra/common/error.hpp"
#include "tra/common/text.hpp"
#include "tra/io/deck/deck_overrides.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/model/workflow.hpp"

namespace tra::io::deck {

namespace fs = std::filesystem;
using model::Hdf5Source;
using model::OptimizerSettings;
using model::OutputDecl;
using model::RunOptions;
using model::TensorDecl;
using model::TraStatement;

class DeckValues {
 public:
  // The deck's name and folder, the nodes --set placed and the values
  // $params changed: references to the reader's, which outlive this.
  DeckValues(const std::string& name, const std::string& base, const PlacedNodes& placed, const SubstitutedNodes& substituted)
      : name_(name), base_(base), placed_(placed), substituted_(substituted) {}

  SourceLoc loc(const YAML::Node& n) const { return node_loc(n, name_, placed_); }
  // Where the text of a scalar starts: past the opening quote of a quoted one.
  // A value a parameter changed maps its characters back to the deck's.
  SourceLoc text_loc(const YAML::Node& n) const {
    SourceLoc l = loc(n);
    if (n.Tag() == "!" && l.known()) l.column += 1;
    if (l.known())
      for (const auto& [node, offsets] : substituted_)
        if (node.is(n)) l.offsets = offsets;
    return l;
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const { throw UserError(loc(n), msg); }

  // YAML reads `{n:2}` as one key "n:2" with no value: said where a key
  // holds a colon.
  static std::string colon_hint(const std::string& key) {
    const size_t colon = key.find(':');
    if (colon == std::string::npos || colon + 1 >= key.size() || key[colon + 1] == ' ') return "";
    return " (YAML reads '" + key + "' as one key: write '" + key.substr(0, colon) + ": " + key.substr(colon + 1) +
           "', with a space after the colon)";
  }

  void check_keys(const YAML::Node& map, const std::set<std::string>& allowed, const std::string& where) const {
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string key = it->first.as<std::string>();
      if (!allowed.count(key)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(it->first, "unknown key '" + key + "' in " + where + "; expected one of: " + list + colon_hint(key));
      }
    }
  }

  std::string scalar(const YAML::Node& parent, const char* key, const std::string& where) const {
    const YAML::Node n = parent[key];
    if (!n) fail(parent, where + " needs '" + key + "'");
    if (!n.IsScalar()) fail(n, std::string("'") + key + "' must be a single value");
    return n.as<std::string>();
  }

  // The largest count a deck may give (iterations, extents, offsets): 2^53,
  // so that a count is exact as a double (Adam's step, rates) and sums and
  // products of a few never wrap a 64-bit integer.
  static constexpr Index kMaxCount = Index{1} << 53;
  static constexpr int kMaxRank = 8;  // dimensions of a tensor

  Index integer(const YAML::Node& n, const std::string& what, Index min_value, Index max_value = kMaxCount) const {
    if (!n.IsScalar()) fail(n, what + " must be an integer");
    const std::string s = n.as<std::string>();
    size_t used = 0;
    long long v = 0;
    bool too_large = false;
    try {
      v = std::stoll(s, &used);
    } catch (const std::out_of_range&) {
      too_large = true;  // beyond 64 bits, either way
      used = s.size();
      v = s.find('-') == std::string::npos ? LLONG_MAX : LLONG_MIN;
    } catch (...) {
      used = 0;
    }
    if (used != s.size() || s.empty()) fail(n, what + " must be an integer, found '" + s + "'");
    if (v < min_value) fail(n, what + " must be at least " + std::to_string(min_value) + ", found " + s);
    if (too_large || v > max_value)
      fail(n, what + " must be at most " + std::to_string(max_value) + (max_value == kMaxCount ? " (2^53)" : "") + ", found " + s);
    return v;
  }

  // A 64-bit seed: every value from 0 to 2^64 - 1.
  std::uint64_t seed_value(const YAML::Node& n, const std::string& what) const {
    const std::string s = n.IsScalar() ? n.as<std::string>() : std::string();
    size_t used = 0;
    unsigned long long v = 0;
    try {
      if (!s.empty() && std::isdigit(static_cast<unsigned char>(s[0]))) v = std::stoull(s, &used);
    } catch (...) {
      used = 0;
    }
    if (used != s.size() || s.empty()) fail(n, what + " must be an integer from 0 to 2^64 - 1 (18446744073709551615), found '" + s + "'");
    return v;
  }

  Shape shape(const YAML::Node& n, const std::string& what) const {
    if (!n.IsSequence()) fail(n, what + " must be a list of positive integers such as [1000, 500]");
    Shape s;
    // Elements are counted, indexed and sized in 64-bit integers, and a
    // tensor's bytes too: beyond 2^50 elements (8 PiB) no machine holds it
    // and the arithmetic would wrap.
    constexpr double kMaxElements = 1125899906842624.0;  // 2^50
    double elements = 1;
    for (const auto& e : n) {
      s.push_back(integer(e, "each extent of " + what, 1, LLONG_MAX));  // bounded by the elements below
      elements *= static_cast<double>(s.back());
      if (elements > kMaxElements) fail(e, what + " " + shape_text(n) + " has more than 2^50 elements; no machine holds such a tensor");
    }
    return s;
  }

  static std::string shape_text(const YAML::Node& n) {
    std::string out = "[";
    for (const auto& e : n) out += (out.size() > 1 ? ", " : "") + (e.IsScalar() ? e.Scalar() : std::string("?"));
    return out + "]";
  }

  std::string resolve(const std::string& file) const {
    fs::path p(file);
    if (p.is_relative() && !base_.empty()) p = fs::path(base_) / p;
    return p.lexically_normal().string();
  }

  // The number at the start of s; `used`: its characters (0: none).
  static double leading_number(const std::string& s, size_t& used) {
    used = 0;
    try {
      return std::stod(s, &used);
    } catch (...) {
      used = 0;
      return 0;
    }
  }

  double positive_real(const YAML::Node& n, const std::string& what, bool below_one) const {
    if (!n.IsScalar()) fail(n, what + " must be a number");
    const std::string s = n.as<std::string>();
    size_t used = 0;
    const double v = leading_number(s, used);
    if (used != s.size() || s.empty() || !std::isfinite(v)) fail(n, what + " must be a number, found '" + s + "'");
    if (below_one ? !(v >= 0 && v < 1) : !(v > 0))
      fail(n, what + (below_one ? " must be at least 0 and below 1" : " must be positive") + ", found " + s);
    return v;
  }

  // A file or dataset name holds no control characters: "out.h5\0" would
  // name out.h5 to the system, and a newline no shell could type back.
  void check_name_text(const YAML::Node& n, const std::string& text, const std::string& what) const {
    if (text.empty()) fail(n, what + " is empty");
    for (size_t i = 0; i < text.size(); ++i)
      if (static_cast<unsigned char>(text[i]) < 0x20 || text[i] == 0x7f)
        fail(n, what + " '" + printable(text) + "' holds a control character (byte " + std::to_string(static_cast<int>(text[i])) + " at position " +
                    std::to_string(i + 1) + ")");
  }

  static std::string printable(const std::string& s) {
    std::string out;
    for (char ch : s) out += static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f ? '?' : ch;
    return out;
  }

  // An output's dataset as HDF5 will name it: "/a/b" with one slash between
  // parts (HDF5 reads "//C" as "/C", so two spellings would be one dataset),
  // never the file's root group itself.
  std::string dataset_name(const YAML::Node& n) const {
    if (!n.IsScalar()) fail(n, "'dataset' must be a single value");
    const std::string text = n.as<std::string>();
    check_name_text(n, text, "dataset name");
    std::string out;
    std::stringstream parts(text);
    for (std::string part; std::getline(parts, part, '/');) {
      if (part.empty()) continue;
      if (part == "." || part == "..") fail(n, "dataset name '" + text + "' has a '" + part + "' part; HDF5 names have no relative parts");
      out += "/" + part;
    }
    if (out.empty()) fail(n, "dataset name '" + text + "' names the file's root group, not a dataset; give a name such as /C");
    return out;
  }

  // "4 GiB", "512 MiB", "2GB", or a number of bytes.
  std::int64_t bytes(const YAML::Node& n, const std::string& what) const {
    const std::string expected = what + " is an amount of memory such as 4 GiB, 512 MiB or 2000000000 (bytes)";
    if (!n.IsScalar()) fail(n, expected);
    const std::string s = n.as<std::string>();
    size_t used = 0;
    const double v = leading_number(s, used);
    if (used == 0) fail(n, expected + ", found '" + s + "'");
    std::string unit = s.substr(used);
    unit.erase(0, unit.find_first_not_of(' '));
    static const std::map<std::string, double> units{
        {"", 1},      {"B", 1},        {"KB", 1e3},        {"MB", 1e6},           {"GB", 1e9},
        {"TB", 1e12}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}};
    const auto u = units.find(unit);
    if (u == units.end() || !std::isfinite(v)) fail(n, expected + ", found '" + s + "'");
    const double b = v * u->second;
    if (!(b >= 1) || b >= 9.2e18) fail(n, what + " must be from 1 byte to 8 EiB, found '" + s + "'");
    return static_cast<std::int64_t>(b);
  }

 protected:
  const std::string& name_;
  const std::string& base_;
  const PlacedNodes& placed_;
  const SubstitutedNodes& substituted_;
};

}  // namespace tra::io::deck
