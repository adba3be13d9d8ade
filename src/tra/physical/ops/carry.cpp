// Carry(X)(R): X.next to where the next run's Scans of X read it.
#include <algorithm>

#include "tra/physical/carry_plan.hpp"
#include "tra/physical/ops/ops.hpp"

namespace tra::physical {

bool operator==(const CarryParams& a, const CarryParams& b) { return a.tensor == b.tensor && a.scans == b.scans && a.regrid == b.regrid; }

namespace ops {

namespace {

// Each tuple of `next` with the sites it goes to (its own among them, when
// it stays), and the traffic that makes; with `placed`, also the tuples'
// places (inference), else the traffic alone (the search's costing of a
// candidate).
class Destinations {
 public:
  Destinations(const IaNode& next, int nsites, Distribution* placed)
      : chunk_(volume(next.type.chunk_shape)), sent_(static_cast<size_t>(nsites), 0), received_(sent_), placed_(placed) {}

  // Key k, on `from` (kEverySite: on every site), goes to `to`.
  void send(const Key& k, int from, int to) {
    if (placed_) placed_->at.emplace_back(k, to);
    count(from, to);
  }
  // A chunk from `from` to `to`: the traffic alone.
  void count(int from, int to) {
    if (from == kEverySite || from == to) return;  // every site holds every chunk already, or it stays
    floats_ += chunk_;
    sent_[static_cast<size_t>(from)] += chunk_;
    received_[static_cast<size_t>(to)] += chunk_;
  }
  void place_everywhere(const Key& k) const {
    if (placed_) placed_->at.emplace_back(k, kEverySite);
  }
  Index floats() const { return floats_; }
  Index busiest() const { return std::max(max_of(sent_), max_of(received_)); }

 private:
  Index chunk_, floats_ = 0;
  std::vector<Index> sent_, received_;
  Distribution* placed_;
};

bool inside(const Key& k, const Shape& frontier) {
  for (size_t d = 0; d < k.size(); ++d)
    if (k[d] >= frontier[d]) return false;
  return true;
}

// The traffic of carrying `next` to the Scans `scan_ids` (chunk for chunk,
// or `regrid`ded), and with `placed` where its tuples go; why it cannot, in
// `invalid`.
CarryTraffic carry(const std::vector<int>& scan_ids, bool regrid, const IaNode& next, const Context& c, Distribution* placed, std::string& invalid) {
  CarryTraffic t;
  std::vector<const IaNode*> scans;
  for (int i : scan_ids) scans.push_back(&c.plan.node(i));
  if (scans.empty()) {
    invalid = "to no Scan";
    return t;
  }
  Destinations to(next, c.nsites, placed);
  if (regrid) {
    t.everywhere = next.dist.everywhere;  // then every site has every chunk: nothing moves
    const auto sites = regrid_sites(next, scans, c.nsites);
    for (const auto& [k, site] : next.dist.at) {
      if (next.dist.everywhere) to.send(k, kEverySite, kEverySite);
      else
        for (int r : sites.at(k)) to.send(k, site, r);
    }
  } else if (next.type.chunk_shape != scans[0]->type.chunk_shape) {
    invalid = "chunk for chunk to a Scan on other chunks (regrid it)";
    return t;
  } else if (const IaNode& scan = *scans[0]; scan.dist.everywhere) {  // to every site
    t.everywhere = true;
    for (const auto& [k, site] : next.dist.at) {
      to.place_everywhere(k);
      for (int r = 0; r < c.nsites; ++r) to.count(site, r);
    }
  } else {  // to the Scan's site for each key it reads (its placement's, as its inference placed them)
    const Placement& at = scan.placement();
    for (const auto& [k, site] : next.dist.at)
      if (inside(k, scan.type.frontier)) to.send(k, site, at.site_of(k, scan.site_grid(), c.nsites));
  }
  t.floats = to.floats();
  t.busiest = to.busiest();
  t.paper_cost = static_cast<double>(next.dist.tuples() * volume(next.type.chunk_shape));
  return t;
}

}  // namespace

void infer(CarryParams& p, IaNode& n, const Context& c) {
  std::string invalid;
  const CarryTraffic t = carry(p.scans, p.regrid, c.in(n), c, &n.dist, invalid);
  if (!invalid.empty()) n.invalid = "carries " + p.tensor + " " + invalid;
  n.dist.everywhere = t.everywhere;
  n.predicted_floats = t.floats;
  n.paper_cost = t.paper_cost;
  n.site_floats_in = t.busiest;
}

CarryTraffic carry_traffic(const std::vector<int>& scans, bool regrid, const IaNode& next, const Context& c) {
  std::string invalid;
  return carry(scans, regrid, next, c, nullptr, invalid);
}

double carry_seconds(Index busiest, bool everywhere, DType dtype, const Rates& r) {
  return r.latency + static_cast<double>(busiest) * static_cast<double>(element_bytes(dtype)) / (everywhere ? r.bcast_bytes : r.shuffle_bytes);
}

// A start-up latency and the busiest site's bytes sent or received, at the
// rate of the collective that moves them.
double seconds(const CarryParams&, const IaNode& n, const Rates& r, bool) {
  return carry_seconds(n.site_floats_in, n.dist.everywhere, n.type.dtype, r);
}

std::string text(const CarryParams& p) { return " " + p.tensor + " to " + dims_list(p.scans) + (p.regrid ? " regrid" : ""); }

// "W to p1", "W to p1,p5, cut to their chunks".
std::string words(const CarryParams& p, const IaNode&) {
  std::string s;
  for (int i : p.scans) s += (s.empty() ? "p" : ",p") + std::to_string(i);
  return p.tensor + " to " + s + (p.regrid ? ", cut to their chunks" : "");
}

// The chunks that stay on their site (all of them, from a relation on every
// site). Carried onto every site, it is a broadcast.
std::vector<std::int64_t> bytes_passed_through(const CarryParams&, const IaNode& n, const Context& c) {
  const IaNode& in = c.in(n);
  if (in.dist.everywhere) return held_bytes(n, c.nsites);
  if (n.dist.everywhere) return broadcast_passes_through(in, c.nsites);
  std::vector<std::int64_t> bytes(static_cast<size_t>(c.nsites), 0);
  const std::int64_t chunk = volume(n.type.chunk_shape) * static_cast<std::int64_t>(element_bytes(n.type.dtype));
  const std::map<Key, int> from = sites_of(in.dist);
  for (const auto& [key, site] : n.dist.at)
    if (auto f = from.find(key); f != from.end() && f->second == site && site >= 0 && site < c.nsites) bytes[static_cast<size_t>(site)] += chunk;
  return bytes;
}

std::string typing_problem(const CarryParams& p, const IaNode&, const Context& c) {
  for (int i : p.scans) {
    const IaNode& s = c.plan.node(i);
    if (s.kind() != IaKind::Scan || !s.scan().source || s.scan().source->name != p.tensor)
      return "carries " + p.tensor + " to p" + std::to_string(i) + ", which is not a Scan of it";
  }
  return "";
}

}  // namespace ops
}  // namespace tra::physical
