#include "tra/physical/compile.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "tra/common/error.hpp"
#include "tra/kernels/blocks.hpp"
#include "tra/kernels/combine.hpp"

namespace tra::physical {
namespace {

using logical::TraNode;

bool subset(const std::vector<int>& a, const std::vector<int>& b) {
  for (int x : a)
    if (std::find(b.begin(), b.end(), x) == b.end()) return false;
  return true;
}

int index_of(const std::vector<int>& v, int x) { return static_cast<int>(std::find(v.begin(), v.end(), x) - v.begin()); }

std::vector<int> iota(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

class Compiler {
 public:
  Compiler(const logical::TraPlan& tra, int nsites) : tra_(tra), s_(nsites) {
    plan_.nsites = nsites;
    plan_.tra_to_ia.assign(tra.nodes.size(), -1);
  }

  IaPlan run() {
    for (size_t i = 0; i < tra_.nodes.size(); ++i) {
      cur_ = static_cast<int>(i);
      const TraNode& n = tra_.nodes[i];
      int out = -1;
      switch (n.kind) {
        case TraNode::Kind::Input: out = scan(n); break;
        case TraNode::Kind::Retile: out = retile(n); break;
        case TraNode::Kind::Join: out = join(n); break;
        case TraNode::Kind::Transform: out = transform(n); break;
        case TraNode::Kind::Aggregate: out = aggregate(n); break;
        case TraNode::Kind::Filter: out = filter(n); break;
        case TraNode::Kind::ReKey: out = rekey(n); break;
        case TraNode::Kind::Tile: out = tile(n); break;
        case TraNode::Kind::Concat: out = concat(n); break;
      }
      plan_.tra_to_ia[i] = out;
    }
    return std::move(plan_);
  }

 private:
  const IaNode& ia(int i) const { return plan_.nodes[static_cast<size_t>(i)]; }
  int input_of(const TraNode& n, size_t k = 0) const { return plan_.tra_to_ia[static_cast<size_t>(n.inputs.at(k))]; }

  int add(IaNode n) {
    n.tra_node = cur_;
    plan_.nodes.push_back(std::move(n));
    return static_cast<int>(plan_.nodes.size()) - 1;
  }

  // The distribution of `keys` under a single-site placement.
  Distribution place(const std::vector<Key>& keys, const Placement& p, const Shape& frontier) const {
    Distribution d;
    for (const Key& k : keys) d.at.emplace_back(k, p.site_of(k, frontier, s_));
    return d;
  }

  // An Explicit placement read off a distribution whose keys are on one site each.
  static Placement explicit_of(const Distribution& d) {
    std::map<Key, int> sites;
    for (const auto& [k, site] : d.at) sites[k] = site;
    return Placement::explicit_sites(std::move(sites));
  }

  int scan(const TraNode& n) {
    IaNode x;
    x.kind = IaNode::Kind::Scan;
    x.type = n.type;
    x.source = n.source;
    x.placement = Placement::part(iota(n.type.key_arity()), n.type.frontier);
    x.dist = place(n.keys, x.placement, n.type.frontier);
    x.detail = n.tensor;
    return add(std::move(x));
  }

  int bcast(int in) {
    IaNode b;
    b.kind = IaNode::Kind::Bcast;
    b.inputs = {in};
    b.type = ia(in).type;
    b.placement = Placement::all();
    b.dist.everywhere = true;
    for (const auto& [k, site] : ia(in).dist.at) b.dist.at.emplace_back(k, -1);
    const Index per = b.type.floats_per_tuple();
    if (!ia(in).dist.everywhere) b.predicted_floats = ia(in).dist.tuples() * per * (s_ - 1);
    b.paper_cost = static_cast<double>(ia(in).dist.tuples() * per) * s_;
    return add(std::move(b));
  }

  // The input on every site. A relation read from its source is read whole on
  // every site instead of read once and broadcast: Bcast(Scan(R)) ≡ Scan_All(R),
  // the initial placement being part of the plan. Nothing crosses the network.
  int replicate(int in) {
    if (ia(in).kind != IaNode::Kind::Scan) return bcast(in);
    IaNode x = ia(in);
    x.placement = Placement::all();
    x.dist.everywhere = true;
    for (auto& [k, site] : x.dist.at) site = -1;
    x.detail += ", read on every site";
    return add(std::move(x));
  }

  // Shuffle(part_dims): every tuple to site Part<part_dims> of its key.
  int shuffle(int in, const std::vector<int>& part_dims) {
    IaNode sh;
    sh.kind = IaNode::Kind::Shuffle;
    sh.inputs = {in};
    sh.type = ia(in).type;
    sh.placement = Placement::part(part_dims, sh.type.frontier);
    sh.scattered = ia(in).scattered;  // duplicates meet on one site; LocalAgg merges them
    const Index per = sh.type.floats_per_tuple();
    const Distribution& from = ia(in).dist;
    std::set<std::pair<Key, int>> kept;
    for (const auto& [k, site] : from.at) {
      const int to = sh.placement.site_of(k, sh.type.frontier, s_);
      if (from.everywhere) {
        if (kept.insert({k, to}).second) sh.dist.at.emplace_back(k, to);
        continue;
      }
      if (site != to) sh.predicted_floats += per;
      sh.dist.at.emplace_back(k, to);
    }
    sh.paper_cost = static_cast<double>(from.tuples() * per);
    std::string dims;
    for (int d : part_dims) dims += (dims.empty() ? "" : ",") + std::to_string(d);
    sh.detail = "<" + dims + ">";
    return add(std::move(sh));
  }

  // A LocalMap whose key side is key_map (one or more keys per key).
  int local_map(int in, RelType type, std::function<std::vector<Key>(const Key&)> key_map, MapFn map, int arity,
                std::string detail, double flops_per_tuple) {
    IaNode m;
    m.kind = IaNode::Kind::LocalMap;
    m.inputs = {in};
    m.type = std::move(type);
    m.map = std::move(map);
    m.arity = arity;
    m.detail = std::move(detail);
    m.dist.everywhere = ia(in).dist.everywhere;
    for (const auto& [k, site] : ia(in).dist.at)
      for (Key& out : key_map(k)) m.dist.at.emplace_back(std::move(out), site);
    m.flops = flops_per_tuple * static_cast<double>(ia(in).dist.tuples());
    m.placement = explicit_of(m.dist);
    return add(std::move(m));
  }

  // LocalAgg(group_by, agg). The output keeps the input's placement when the
  // input is partitioned on a subset of group_by; otherwise it is read off the
  // distribution.
  int local_agg(int in, const std::vector<int>& group_by, logical::AggFn agg, const RelType& type, bool partial,
                std::string detail) {
    IaNode a;
    a.kind = IaNode::Kind::LocalAgg;
    a.inputs = {in};
    a.type = type;
    a.group_by = group_by;
    a.agg = std::move(agg);
    a.detail = std::move(detail);
    std::set<std::pair<Key, int>> seen;
    for (const auto& [k, site] : ia(in).dist.at) {
      Key g = project(k, group_by);
      if (seen.insert({g, site}).second) a.dist.at.emplace_back(std::move(g), site);
    }
    a.flops = static_cast<double>(ia(in).dist.tuples() - a.dist.tuples()) * static_cast<double>(type.floats_per_tuple());
    const Placement& p = ia(in).placement;
    if (partial) {
      a.scattered = true;
      a.placement = p;
    } else if (p.kind == Placement::Kind::Part && subset(p.dims, group_by)) {
      std::vector<int> mapped;
      for (int d : p.dims) mapped.push_back(index_of(group_by, d));
      a.placement = Placement::part(mapped, type.frontier);
    } else {
      a.placement = explicit_of(a.dist);
    }
    return add(std::move(a));
  }

  int retile(const TraNode& n) {
    const int in = input_of(n);
    const Shape& from = n.from_grid;
    const Shape& to = n.type.frontier;
    const int rank = static_cast<int>(to.size());
    const Shape full = ia(in).type.tensor_shape();
    Shape fine(static_cast<size_t>(rank)), split(static_cast<size_t>(rank)), group(static_cast<size_t>(rank)), piece(static_cast<size_t>(rank));
    for (int d = 0; d < rank; ++d) {
      fine[d] = std::lcm(from[d], to[d]);
      split[d] = fine[d] / from[d];  // pieces per input chunk
      group[d] = fine[d] / to[d];    // pieces per output chunk
      piece[d] = full[d] / fine[d];
    }
    // The pieces keyed <target key..., position inside the target chunk...>.
    auto piece_keys = [=](const Key& k) {
      std::vector<Key> out;
      for_each_key(split, [&](const Key& sub) {
        Key key(static_cast<size_t>(2 * rank));
        for (int d = 0; d < rank; ++d) {
          const Index q = k[d] * split[d] + sub[d];
          key[d] = q / group[d];
          key[rank + d] = q % group[d];
        }
        out.push_back(key);
      });
      return out;
    };
    MapFn cut = [=](const Tuple& t) {
      std::vector<Tuple> out;
      std::vector<Key> keys = piece_keys(t.key);
      size_t i = 0;
      for_each_key(split, [&](const Key& sub) {
        Shape offset(static_cast<size_t>(rank));
        for (int d = 0; d < rank; ++d) offset[d] = sub[d] * piece[d];
        Chunk c = split == Shape(static_cast<size_t>(rank), 1) ? t.chunk : kernels::extract_block(t.chunk, offset, piece);
        out.push_back({keys[i++], c});
      });
      return out;
    };
    RelType cut_type{to, piece};
    for (int d = 0; d < rank; ++d) cut_type.frontier.push_back(group[d]);
    const int m = local_map(in, cut_type, piece_keys, cut, static_cast<int>(volume(split)), "cut to " + shape_string(piece), 0);
    const int sh = shuffle(m, iota(rank));
    const Shape out_chunk = n.type.chunk_shape;
    logical::AggFn assemble = [=](const std::vector<const Tuple*>& members) {
      if (members.size() == 1 && members.front()->chunk.shape == out_chunk) return members.front()->chunk;
      Chunk out(out_chunk);
      for (const Tuple* t : members) {
        Shape offset(static_cast<size_t>(rank));
        for (int d = 0; d < rank; ++d) offset[d] = t->key[rank + d] * piece[d];
        kernels::insert_block(out, t->chunk, offset);
      }
      return out;
    };
    return local_agg(sh, iota(rank), assemble, n.type, false, "assemble " + shape_string(out_chunk));
  }

  int join(const TraNode& n) {
    int l = input_of(n, 0), r = input_of(n, 1);
    // Keep the side with more tuples in place (ties: the larger one) and
    // broadcast the other: the join then runs where the stationary tuples are.
    const bool bcast_left = ia(l).dist.tuples() < ia(r).dist.tuples() ||
                            (ia(l).dist.tuples() == ia(r).dist.tuples() && ia(l).type.floats() <= ia(r).type.floats());
    const int stationary = bcast_left ? r : l;
    const int b = replicate(bcast_left ? l : r);
    if (bcast_left) l = b;
    else r = b;

    IaNode j;
    j.kind = IaNode::Kind::LocalJoin;
    j.inputs = {l, r};
    j.type = n.type;
    j.keys_left = n.keys_left;
    j.keys_right = n.keys_right;
    auto kernel = n.einsum;
    j.join = [kernel](const Chunk& x, const Chunk& y) { return kernel->apply(x, &y); };
    j.detail = kernel->name() + " " + n.statement;
    // Key-level join of the distributions: the output tuple sits where the stationary one does.
    const int left_arity = ia(l).type.key_arity();
    const std::vector<int> right_rest = logical::complement(ia(r).type.key_arity(), n.keys_right);
    std::unordered_map<Key, std::vector<Key>, KeyHash> moving;
    const IaNode& mv = ia(bcast_left ? l : r);
    for (const auto& [k, site] : mv.dist.at) moving[project(k, bcast_left ? n.keys_left : n.keys_right)].push_back(k);
    for (const auto& [k, site] : ia(stationary).dist.at) {
      auto it = moving.find(project(k, bcast_left ? n.keys_right : n.keys_left));
      if (it == moving.end()) continue;
      for (const Key& other : it->second) {
        const Key& lk = bcast_left ? other : k;
        const Key& rk = bcast_left ? k : other;
        Key out = lk;
        for (int p : right_rest) out.push_back(rk[static_cast<size_t>(p)]);
        j.dist.at.emplace_back(std::move(out), site);
      }
    }
    j.flops = kernel->flops() * static_cast<double>(j.dist.tuples());
    const Placement& sp = ia(stationary).placement;
    if (sp.kind == Placement::Kind::Part) {
      std::vector<int> mapped;
      for (int d : sp.dims) {
        if (!bcast_left) mapped.push_back(d);
        else {
          const int jk = index_of(n.keys_right, d);
          mapped.push_back(jk < static_cast<int>(n.keys_right.size()) ? n.keys_left[jk] : left_arity + index_of(right_rest, d));
        }
      }
      j.placement = Placement::part(mapped, n.type.frontier);
    } else {
      j.placement = explicit_of(j.dist);
    }
    return add(std::move(j));
  }

  int transform(const TraNode& n) {
    const int in = input_of(n);
    MapFn fn;
    std::string detail;
    double flops = 0;
    switch (n.array_kernel) {
      case TraNode::ArrayKernel::EinSum: {
        auto kernel = n.einsum;
        fn = [kernel](const Tuple& t) { return std::vector<Tuple>{{t.key, kernel->apply(t.chunk, nullptr)}}; };
        detail = kernel->name() + " " + n.statement;
        flops = kernel->flops();
        break;
      }
      case TraNode::ArrayKernel::Diag:
        fn = [](const Tuple& t) { return std::vector<Tuple>{{t.key, kernels::diagonal(t.chunk)}}; };
        detail = "diag";
        break;
      case TraNode::ArrayKernel::Scalar: {
        const auto prog = n.scalar;
        fn = [prog](const Tuple& t) { return std::vector<Tuple>{{t.key, kernels::map_elements(prog, t.chunk)}}; };
        detail = prog.str();
        flops = static_cast<double>(prog.flops_per_eval() * n.type.floats_per_tuple());
        break;
      }
    }
    const int m = local_map(in, n.type, [](const Key& k) { return std::vector<Key>{k}; }, fn, 1, "idOp, " + detail, flops);
    plan_.nodes.back().placement = ia(in).placement;  // keys unchanged: so is the placement
    return m;
  }

  int aggregate(const TraNode& n) {
    const int in = input_of(n);
    const IaNode& src = ia(in);
    const std::vector<int> agg_dims = logical::complement(src.type.key_arity(), n.group_by);
    bool singleton = true;
    for (int d : agg_dims) singleton &= src.type.frontier[d] == 1;
    const std::string op = einsum::agg_name(n.agg);
    std::string by;
    for (int d : n.group_by) by += (by.empty() ? "" : ",") + std::to_string(d);
    const std::string what = "<" + by + ">, " + op;
    if (singleton) {
      // Every group has one tuple: the aggregation only drops key dimensions.
      return local_agg(in, n.group_by, logical::elementwise(n.agg), n.type, false, what + " (one tuple per group)");
    }
    if (src.placement.kind == Placement::Kind::Part && subset(src.placement.dims, n.group_by)) {
      // R2-4: already partitioned on part of groupByKeys, no shuffle.
      return local_agg(in, n.group_by, logical::elementwise(n.agg), n.type, false, what + " (R2-4: no shuffle)");
    }
    // R2-5: aggregate locally, shuffle the partial results, aggregate again.
    const int partial = local_agg(in, n.group_by, logical::elementwise(n.agg), n.type, true, what + " (partial)");
    const int sh = shuffle(partial, iota(n.type.key_arity()));
    return local_agg(sh, iota(n.type.key_arity()), logical::elementwise(n.agg), n.type, false, "<all>, " + op + " (final)");
  }

  int filter(const TraNode& n) {
    const int in = input_of(n);
    IaNode f;
    f.kind = IaNode::Kind::LocalFilter;
    f.inputs = {in};
    f.type = n.type;
    f.predicate = n.key_fn;
    f.detail = n.key_fn->text();
    f.dist.everywhere = ia(in).dist.everywhere;
    for (const auto& [k, site] : ia(in).dist.at)
      if (n.key_fn->test(k)) f.dist.at.emplace_back(k, site);
    const Placement& p = ia(in).placement;
    bool same_frontier = true;
    for (int d : p.dims) same_frontier &= n.type.frontier[d] == ia(in).type.frontier[d];
    f.placement = p.kind == Placement::Kind::Part && same_frontier ? p : explicit_of(f.dist);
    return add(std::move(f));
  }

  int rekey(const TraNode& n) {
    auto fn = n.key_fn;
    return local_map(
        input_of(n), n.type, [fn](const Key& k) { return std::vector<Key>{fn->map(k)}; },
        [fn](const Tuple& t) { return std::vector<Tuple>{{fn->map(t.key), t.chunk}}; }, 1, fn->text() + ", idOp", 0);
  }

  int tile(const TraNode& n) {
    const int in = input_of(n);
    const int dim = n.dim;
    const Index size = n.size;
    const Index pieces = n.type.frontier.back();
    const int m = local_map(
        in, n.type,
        [pieces](const Key& k) {
          std::vector<Key> out;
          for (Index p = 0; p < pieces; ++p) {
            Key t = k;
            t.push_back(p);
            out.push_back(t);
          }
          return out;
        },
        [dim, size](const Tuple& t) { return logical::tile({t}, dim, size); }, static_cast<int>(pieces),
        "keyTileOp(" + std::to_string(dim) + "," + std::to_string(size) + "), arrayTileOp", 0);
    const Placement& p = ia(in).placement;
    if (p.kind == Placement::Kind::Part) plan_.nodes.back().placement = p;  // old key dimensions keep their positions
    return m;
  }

  int concat(const TraNode& n) {
    int in = input_of(n);
    const std::vector<int> rest = logical::complement(ia(in).type.key_arity(), {n.key_dim});
    const Placement& p = ia(in).placement;
    if (!(p.kind == Placement::Kind::Part && subset(p.dims, rest))) in = shuffle(in, rest);
    const int key_dim = n.key_dim, dim = n.dim;
    logical::AggFn cat = [key_dim, dim](const std::vector<const Tuple*>& members) {
      logical::Tuples group;
      for (const Tuple* t : members) group.push_back(*t);
      return logical::concat(group, key_dim, dim).front().chunk;
    };
    return local_agg(in, rest, cat, n.type, false, "arrayConcatOp(" + std::to_string(key_dim) + "," + std::to_string(dim) + ")");
  }

  const logical::TraPlan& tra_;
  int s_;
  int cur_ = 0;
  IaPlan plan_;
};

}  // namespace

IaPlan compile(const logical::TraPlan& tra, int nsites) { return Compiler(tra, nsites).run(); }

}  // namespace tra::physical
