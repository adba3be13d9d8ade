#include "tra/core/placement.hpp"

#include <sstream>

#include "tra/common/error.hpp"

namespace tra {

Placement Placement::part(std::vector<int> dims, const Shape& frontier) {
  std::vector<int> kept;
  for (int d : dims)
    if (frontier.at(static_cast<size_t>(d)) > 1) kept.push_back(d);
  return {Kind::Part, kept, {}, {}, {}, {}};
}

ProcGrid Placement::grid_for(const Shape& frontier, int nsites) const {
  if (!grid.empty()) return grid;
  std::vector<Index> extents;
  for (int d : dims) extents.push_back(frontier.at(static_cast<size_t>(d)));
  return processor_grid(extents, nsites);
}

std::vector<Index> Placement::strides_for(const ProcGrid& g) const { return strides.empty() ? row_major_strides(g) : strides; }

bool Placement::same_sites(const Placement& o, const Shape& frontier, const Shape& o_frontier, int nsites) const {
  if (kind != Kind::Part || o.kind != Kind::Part || dims != o.dims) return false;
  const ProcGrid g = grid_for(frontier, nsites), og = o.grid_for(o_frontier, nsites);
  return g == og && strides_for(g) == o.strides_for(og) && spread == o.spread;
}

int Placement::site_on(const Key& key, const ProcGrid& g) const {
  int site = grid_site(key, dims, g, strides);
  if (spread.empty()) return site;
  Index block = 0;  // the key's block index: which round of the grid its coordinates are in
  for (size_t i = 0; i < dims.size(); ++i) block += key[static_cast<size_t>(dims[i])] / g[i];
  for (const Spread& s : spread) {
    site += static_cast<int>(s.stride * (block % s.sites));
    block /= s.sites;
  }
  return site;
}

int Placement::site_of(const Key& key, const Shape& frontier, int nsites) const {
  switch (kind) {
    case Kind::Part: {
      // The grid is fixed once a plan is inferred; computing the default per
      // key would be slow (and so would copying it: no temporary here).
      const int site = grid.empty() ? site_on(key, grid_for(frontier, nsites)) : site_on(key, grid);
      TRA_ASSERT(spread.empty() || site < nsites,
                 "a spread placement " << str() << " put " << to_string(key) << " on site " << site << " of " << nsites);
      return site;
    }
    case Kind::Explicit: {
      auto it = sites.find(key);
      TRA_ASSERT(it != sites.end(), "no site recorded for key " << to_string(key));
      return it->second;
    }
    case Kind::All:
      break;
  }
  TRA_ASSERT(false, "site_of on a broadcast (All) relation");
  return 0;
}

bool Placement::same_as(const Placement& o) const {
  if (kind != o.kind) return false;
  if (kind == Kind::Part) return dims == o.dims && grid == o.grid && strides == o.strides && spread == o.spread;
  if (kind == Kind::Explicit) return sites == o.sites;
  return true;
}

std::string Placement::str() const {
  if (kind == Kind::All) return "All";
  if (kind == Kind::Explicit) return "Explicit";
  std::ostringstream os;
  os << "Part<";
  for (size_t i = 0; i < dims.size(); ++i) os << (i ? "," : "") << dims[i];
  os << '>';
  if (grid.size() > 1 || !strides.empty()) os << " on " << grid_str(grid);
  if (!strides.empty() && strides != row_major_strides(grid)) {
    os << " strides ";
    for (size_t i = 0; i < strides.size(); ++i) os << (i ? "," : "") << strides[i];
  }
  if (!spread.empty()) {
    os << " spread ";
    for (size_t i = 0; i < spread.size(); ++i) os << (i ? "," : "") << spread[i].sites << '@' << spread[i].stride;
  }
  return os.str();
}

}  // namespace tra
