#include "tra/physical/calibration.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "tra/common/error.hpp"
#include "tra/io/text_file.hpp"

namespace tra::physical {
namespace {

// The rates as the file names them, in the order they are written.
struct Field {
  const char* key;
  double Rates::*member;
  const char* unit;  // written as a comment beside the value
  bool zero_allowed = false;  // a fixed cost (none at all is a cost); a rate must be positive
};
constexpr Field kFields[] = {
    {"gemm_flops", &Rates::gemm_flops, "flop/s per site, KokkosBlas::gemm"},
    {"gemm_flops_float32", &Rates::gemm_flops_float32, "flop/s per site, KokkosBlas::gemm on floats"},
    {"loop_flops", &Rates::loop_flops, "flop/s per site, Kokkos loop kernels"},
    {"memory_bytes", &Rates::memory_bytes, "bytes/s per site a GEMM reads and writes beside its flops"},
    {"sparse_bytes", &Rates::sparse_bytes, "bytes/s per site a sparse product reads of its dense operand"},
    {"shuffle_bytes", &Rates::shuffle_bytes, "bytes/s a site sends, MPI_Alltoallv"},
    {"bcast_bytes", &Rates::bcast_bytes, "bytes/s a site receives, MPI_Allgatherv"},
    {"generate_floats", &Rates::generate_floats, "floats/s per site, uniform() and the other generators"},
    {"generate_normal_floats", &Rates::generate_normal_floats, "floats/s per site, normal()"},
    {"hdf5_read_bytes", &Rates::hdf5_read_bytes, "bytes/s per site, HDF5 reads"},
    {"latency", &Rates::latency, "seconds per collective call"},
    {"call_seconds", &Rates::call_seconds, "seconds per kernel call on a chunk, beside its work", true},
    {"operator_seconds", &Rates::operator_seconds, "seconds per operator that calls kernels, beside its calls", true},
    {"open_seconds", &Rates::open_seconds, "seconds per HDF5 file a Scan opens", true},
};

// Shortest text that reads back as exactly `v` (std::to_chars is
// locale-independent, unlike printf).
std::string number(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  return std::string(buf, res.ptr);
}

// A positive (or with `zero_allowed`, non-negative) finite number, or
// nullopt. A leading '+' is allowed; from_chars would refuse it.
std::optional<double> positive_number(const std::string& s, bool zero_allowed) {
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (first != last && *first == '+') ++first;
  double v = 0;
  auto res = std::from_chars(first, last, v);
  if (res.ec != std::errc() || res.ptr != last || first == last) return std::nullopt;
  if (!std::isfinite(v) || v < 0 || (v == 0 && !zero_allowed)) return std::nullopt;
  return v;
}

SourceLoc loc_of(const std::string& path, const YAML::Node& n) {
  if (n.Mark().line < 0) return SourceLoc{path, 0, 0};  // a node made up by yaml-cpp has no mark
  return SourceLoc{path, n.Mark().line + 1, n.Mark().column + 1};
}

std::string expected_keys() {
  std::string list;
  for (const Field& f : kFields) list += (list.empty() ? "" : ", ") + std::string(f.key);
  return list;
}

}  // namespace

bool same_rates(const Rates& a, const Rates& b) {
  for (const Field& f : kFields)
    if (a.*(f.member) != b.*(f.member)) return false;
  return true;
}

Rates load_rates(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(SourceLoc{path, 0, 0}, "cannot read the calibration file (tra-calibrate writes one)");
  std::stringstream text;
  text << in.rdbuf();
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::ParserException& e) {
    throw UserError(SourceLoc{path, e.mark.line + 1, e.mark.column + 1}, "YAML syntax error: " + e.msg);
  }
  const std::string what = "a calibration file is a YAML mapping with one key, 'rates' (tra-calibrate writes one)";
  if (!root.IsMap()) throw UserError(SourceLoc{path, 1, 1}, what);
  Rates r;
  r.origin = path;
  try {
    for (auto it = root.begin(); it != root.end(); ++it)
      if (it->first.as<std::string>() != "rates")
        throw UserError(loc_of(path, it->first), "unknown key '" + it->first.as<std::string>() + "'; " + what);
    if (!root["rates"]) throw UserError(SourceLoc{path, 1, 1}, what);
    const YAML::Node rates = root["rates"];
    if (!rates.IsMap()) throw UserError(loc_of(path, rates), "'rates' must be a mapping such as 'gemm_flops: 6.1e10'");
    std::set<std::string> seen;
    for (auto it = rates.begin(); it != rates.end(); ++it) {
      const std::string key = it->first.as<std::string>();
      const Field* field = nullptr;
      for (const Field& f : kFields)
        if (key == f.key) field = &f;
      if (!field) throw UserError(loc_of(path, it->first), "unknown rate '" + key + "'; expected one of: " + expected_keys());
      if (!seen.insert(key).second) throw UserError(loc_of(path, it->first), "rate '" + key + "' is given twice");
      const YAML::Node v = it->second;
      // A missing value's mark is past the key, often on the next line: name the key.
      const SourceLoc where = v.IsNull() ? loc_of(path, it->first) : loc_of(path, v);
      const std::optional<double> value = v.IsScalar() ? positive_number(v.as<std::string>(), field->zero_allowed) : std::nullopt;
      if (!value) {
        const std::string found = v.IsScalar() ? "'" + v.as<std::string>() + "'" : v.IsNull() ? "nothing" : "a list or mapping";
        throw UserError(where, "rate '" + key + "' must be a " + (field->zero_allowed ? "number of 0 or more" : "positive number") + " (" +
                                   field->unit + "), found " + found);
      }
      r.*(field->member) = *value;
    }
  } catch (const YAML::Exception& e) {
    // A key of the wrong YAML kind (a list used as a key ...).
    throw UserError(SourceLoc{path, e.mark.line + 1, e.mark.column + 1}, "unexpected value: " + e.msg);
  }
  return r;
}

void save_rates(const Rates& r, const std::string& path) {
  std::string header = r.origin;
  std::replace(header.begin(), header.end(), '\n', ' ');
  std::ostringstream out;
  out << "# " << header << "\nrates:\n";
  for (const Field& f : kFields) {
    const std::string key = std::string(f.key) + ":";
    const std::string value = number(r.*(f.member));
    out << "  " << key << std::string(key.size() < 24 ? 24 - key.size() : 1, ' ') << value
        << std::string(value.size() < 10 ? 10 - value.size() : 1, ' ') << "# " << f.unit << "\n";
  }
  io::write_text_file(path, out.str(), "the calibration file");
}

}  // namespace tra::physical
