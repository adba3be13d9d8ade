// Scan(R): an input read (or generated) where its placement says, Part<dims>
// on a processor grid or All (on every site).
#include <algorithm>

#include "tra/physical/ops/ops.hpp"

namespace tra::physical {

bool operator==(const ScanParams& a, const ScanParams& b) {
  return a.source.has_value() == b.source.has_value() && (!a.source || a.source->same_data(*b.source)) && a.placement.same_as(b.placement) &&
         a.site_grid == b.site_grid;
}

namespace ops {

void infer(ScanParams& p, IaNode& n, const Context& c) {
  const Shape& f = n.out_type.frontier;
  n.dist.everywhere = p.placement.is_all();
  if (p.site_grid.empty()) p.site_grid = f;
  p.placement.fix_grid(p.site_grid, c.nsites);
  n.dist.at.reserve(static_cast<size_t>(volume(f)));
  for_each_key(f, [&](const Key& k) { n.dist.at.emplace_back(k, n.dist.everywhere ? kEverySite : p.placement.site_of(k, p.site_grid, c.nsites)); });
  n.site_calls = max_of(per_site(n.dist, c.nsites));
  n.site_floats_in = n.site_calls * volume(n.out_type.chunk_shape);
}

// The busiest site's reads, at the HDF5 or the generator's rate, and their
// fixed costs: a call per chunk, and for a file, its opening.
double seconds(const ScanParams& p, const IaNode& n, const Rates& r, bool) {
  const auto& source = p.source;
  const double calls = fixed_seconds(n, r);
  // A sparse tensor's reader goes through every entry of the lists on every
  // site (two int64 coordinates and a double each), whatever its blocks.
  // An index list's reader reads its tensor's rows' entries: one int64 each.
  if (const auto* s = source ? std::get_if<model::SparseSource>(&source->source) : nullptr)
    return r.open_seconds + calls +
           static_cast<double>(s->entries) * (s->index_list() ? sizeof(std::int64_t) : 2 * sizeof(std::int64_t) + sizeof(double)) / r.hdf5_read_bytes;
  if (source && std::holds_alternative<model::Hdf5Source>(source->source))
    return r.open_seconds + calls + static_cast<double>(n.site_floats_in) * static_cast<double>(element_bytes(n.type.dtype)) / r.hdf5_read_bytes;
  const auto* g = source ? std::get_if<model::Generator>(&source->source) : nullptr;
  const bool normal = g && g->kind == model::Generator::Kind::Normal;
  return calls + static_cast<double>(n.site_floats_in) / (normal ? r.generate_normal_floats : r.generate_floats);
}

namespace {

std::string source_text(const model::TensorDecl& t) {
  std::string s = shape_string(t.shape) + (t.chunk ? " chunk " + shape_string(*t.chunk) : "") + " from ";
  if (const auto* g = std::get_if<model::Generator>(&t.source)) return s + g->str();
  if (const auto* sp = std::get_if<model::SparseSource>(&t.source))
    return s + sp->file + ":" + (sp->index_list() ? sp->cols + " (index, " : sp->rows + "," + sp->cols + "," + sp->values + " (") +
           std::to_string(sp->entries) + " entries, sparse)";
  const auto& h = std::get<model::Hdf5Source>(t.source);
  return s + h.file + ":" + h.dataset + (h.start.empty() ? "" : " from " + shape_string(h.start));
}

// The grid a face lies on: its own dimensions and those it is spread over,
// by stride (row-major: the largest first).
ProcGrid face_grid(const Placement& face) {
  std::vector<std::pair<Index, Index>> by_stride;  // (stride, sites)
  for (size_t i = 0; i < face.grid.size(); ++i) by_stride.emplace_back(face.strides[i], face.grid[i]);
  for (const auto& s : face.spread) by_stride.emplace_back(s.stride, s.sites);
  std::sort(by_stride.rbegin(), by_stride.rend());
  ProcGrid g;
  for (const auto& [stride, sites] : by_stride) g.push_back(sites);
  return g;
}

}  // namespace

// "X"; read on every site or on a face (scan rules), it says so: "X, read on
// every site", "A, read on the face of 2x2x2". (Other placements are in
// EXPLAIN's column of where the tuples are.)
std::string words(const ScanParams& p, const IaNode&) {
  const std::string name = p.source ? p.source->name : "?";
  if (p.placement.is_all()) return name + ", read on every site";
  if (p.placement.kind == Placement::Kind::Part && !p.placement.strides.empty())
    return name + ", read on the face of " + grid_str(face_grid(p.placement));
  return name;
}

std::string text(const ScanParams& p) {
  return " " + (p.source ? p.source->name + " " + source_text(*p.source) : std::string("?")) + " on " + p.placement.str() + " grid " +
         shape_string(p.site_grid);
}

std::vector<std::int64_t> bytes_passed_through(const ScanParams&, const IaNode&, const Context& c) {
  return std::vector<std::int64_t>(static_cast<size_t>(c.nsites), 0);  // its chunks are read or generated afresh
}

// A Scan has its source, and a Part placement names dimensions of its keys.
std::string typing_problem(const ScanParams& p, const IaNode& n, const Context&) {
  if (!p.source) return "a Scan without its source";
  return placement_problem(p.placement, n.type.key_arity());
}

}  // namespace ops
}  // namespace tra::physical
