#include "tra/physical/compile.hpp"

#include <numeric>

#include "tra/common/error.hpp"
#include "tra/logical/tra_ops.hpp"
#include "tra/physical/infer.hpp"
#include "tra/physical/plan_edit.hpp"

namespace tra::physical {
namespace {

using logical::TraNode;

std::vector<int> iota(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

std::string dims_text(const std::vector<int>& dims) {
  std::string s;
  for (int d : dims) s += (s.empty() ? "" : ",") + std::to_string(d);
  return "<" + s + ">";
}

class Compiler {
 public:
  Compiler(const logical::TraPlan& tra, int nsites) : tra_(tra) {
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
      plan_.roots.push_back(out);
    }
    infer(plan_);
    return std::move(plan_);
  }

 private:
  int input_of(const TraNode& n, size_t k = 0) const { return plan_.tra_to_ia[static_cast<size_t>(n.inputs.at(k))]; }
  const RelType& type_of(const TraNode& n, size_t k = 0) const { return tra_.nodes[static_cast<size_t>(n.inputs.at(k))].type; }

  int add(IaNode n) {
    n.tra_node = cur_;
    return add_node(plan_, std::move(n));
  }

  int scan(const TraNode& n) {
    IaNode x;
    x.kind = IaNode::Kind::Scan;
    x.out_type = n.type;
    x.source = n.source;
    x.placement = Placement::part(iota(n.type.key_arity()), n.type.frontier);
    x.detail = n.tensor;
    return add(std::move(x));
  }

  int shuffle(int in, const std::vector<int>& dims) { return add(make_shuffle(in, dims)); }

  int local_agg(int in, const std::vector<int>& group_by, AggKernel agg, const RelType& type, std::string detail) {
    IaNode a;
    a.kind = IaNode::Kind::LocalAgg;
    a.inputs = {in};
    a.out_type = type;
    a.group_by = group_by;
    a.agg = std::move(agg);
    a.detail = std::move(detail);
    return add(std::move(a));
  }

  // A LocalMap from one tuple to several (not composable by R1-x).
  int expanding_map(int in, const RelType& type, Expansion expand, int arity, std::string detail) {
    IaNode m;
    m.kind = IaNode::Kind::LocalMap;
    m.inputs = {in};
    m.out_type = type;
    m.expand = std::move(expand);
    m.arity = arity;
    m.detail = std::move(detail);
    return add(std::move(m));
  }

  int retile(const TraNode& n) {
    const int in = input_of(n);
    const Shape& from = n.from_grid;
    const Shape& to = n.type.frontier;
    const int rank = static_cast<int>(to.size());
    const Shape full = type_of(n).tensor_shape();
    Shape fine(static_cast<size_t>(rank)), split(static_cast<size_t>(rank)), group(static_cast<size_t>(rank)), piece(static_cast<size_t>(rank));
    for (int d = 0; d < rank; ++d) {
      fine[d] = std::lcm(from[d], to[d]);
      split[d] = fine[d] / from[d];  // pieces per input chunk
      group[d] = fine[d] / to[d];    // pieces per output chunk
      piece[d] = full[d] / fine[d];
    }
    // The pieces keyed <target key..., position inside the target chunk...>.
    RelType cut_type{to, piece};
    for (int d = 0; d < rank; ++d) cut_type.frontier.push_back(group[d]);
    const int m = expanding_map(in, cut_type, Retile{split, group, piece}, static_cast<int>(volume(split)), "cut to " + shape_string(piece));
    const int sh = shuffle(m, iota(rank));
    const Shape out_chunk = n.type.chunk_shape;
    return local_agg(sh, iota(rank), AggKernel{AggKernel::Assemble{piece, out_chunk}, {}}, n.type, "assemble " + shape_string(out_chunk));
  }

  int join(const TraNode& n) {
    const int b = add(make_bcast(input_of(n, 0)));
    IaNode j;
    j.kind = IaNode::Kind::LocalJoin;
    j.inputs = {b, input_of(n, 1)};
    j.out_type = n.type;
    j.keys_left = n.keys_left;
    j.keys_right = n.keys_right;
    const auto& kernel = n.einsum;
    j.join = JoinKernel{EinSumCall{kernel, n.statement}, false, {}};
    j.call_flops = kernel->flops();
    j.gemm = kernel->uses_gemm();
    j.detail = kernel->name() + " " + n.statement;
    return add(std::move(j));
  }

  int transform(const TraNode& n) {
    IaNode m;
    m.kind = IaNode::Kind::LocalMap;
    m.inputs = {input_of(n)};
    m.out_type = n.type;
    switch (n.array_kernel) {
      case TraNode::ArrayKernel::EinSum:
        m.array_map = ArrayFn::of(EinSumCall{n.einsum, n.statement});
        m.call_flops = n.einsum->flops();
        break;
      case TraNode::ArrayKernel::Diag:
        m.array_map = ArrayFn::of(ArrayFn::Diagonal{});
        break;
      case TraNode::ArrayKernel::Scalar:
        m.array_map = ArrayFn::of(ArrayFn::Elements{n.scalar});
        m.call_flops = static_cast<double>(n.scalar.flops_per_eval() * n.type.floats_per_tuple());
        break;
    }
    m.detail = "idOp, " + m.array_map.text();
    return add(std::move(m));
  }

  int aggregate(const TraNode& n) {
    const int sh = shuffle(input_of(n), n.group_by);
    const int a = local_agg(sh, n.group_by, AggKernel{AggKernel::Fold{n.agg}, {}}, n.type, dims_text(n.group_by) + ", " + einsum::agg_name(n.agg));
    plan_.node(a).agg_decomposable = true;
    return a;
  }

  int filter(const TraNode& n) {
    IaNode f;
    f.kind = IaNode::Kind::LocalFilter;
    f.inputs = {input_of(n)};
    f.predicate = KeyPredicate::of(n.key_fn);
    f.detail = f.predicate.text();
    return add(std::move(f));
  }

  int rekey(const TraNode& n) {
    IaNode m;
    m.kind = IaNode::Kind::LocalMap;
    m.inputs = {input_of(n)};
    m.out_type = n.type;
    m.key_map = KeyFn::of(n.key_fn);
    m.detail = n.key_fn->text() + ", idOp";
    return add(std::move(m));
  }

  int tile(const TraNode& n) {
    const Index pieces = n.type.frontier.back();
    return expanding_map(input_of(n), n.type, TileKeys{n.dim, n.size, pieces}, static_cast<int>(pieces),
                         "keyTileOp(" + std::to_string(n.dim) + "," + std::to_string(n.size) + "), arrayTileOp");
  }

  int concat(const TraNode& n) {
    const std::vector<int> rest = logical::complement(type_of(n).key_arity(), {n.key_dim});
    const int sh = shuffle(input_of(n), rest);
    return local_agg(sh, rest, AggKernel{AggKernel::Concat{n.key_dim, n.dim}, {}}, n.type,
                     "arrayConcatOp(" + std::to_string(n.key_dim) + "," + std::to_string(n.dim) + ")");
  }

  const logical::TraPlan& tra_;
  int cur_ = 0;
  IaPlan plan_;
};

}  // namespace

IaPlan compile(const logical::TraPlan& tra, int nsites) { return Compiler(tra, nsites).run(); }

}  // namespace tra::physical
