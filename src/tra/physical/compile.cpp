#include "tra/physical/compile.hpp"

#include <algorithm>
#include <numeric>

#include "tra/common/error.hpp"
#include "tra/core/key.hpp"
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

// A sparse relation the labeling cut into more than one block: the one
// whose placement is a choice (compile.hpp's SparseBlocks).
bool sparse_in_blocks(const RelType& t) { return t.sparse() && volume(t.frontier) > 1; }

class Compiler {
 public:
  Compiler(const logical::TraPlan& tra, int nsites, SparseBlocks sparse) : tra_(tra), sparse_(sparse) {
    plan_.nsites = nsites;
    plan_.tra_to_ia.assign(tra.nodes.size(), -1);
  }

  IaPlan run() {
    for (size_t i = 0; i < tra_.nodes.size(); ++i) {
      cur_ = static_cast<int>(i);
      const TraNode& n = tra_.nodes[i];
      int out = -1;
      switch (n.kind) {
        case TraNode::Kind::Input:
          out = scan(n);
          break;
        case TraNode::Kind::Retile:
          out = retile(n);
          break;
        case TraNode::Kind::Join:
          out = join(n);
          break;
        case TraNode::Kind::Transform:
          out = transform(n);
          break;
        case TraNode::Kind::Aggregate:
          out = aggregate(n);
          break;
        case TraNode::Kind::Filter:
          out = filter(n);
          break;
        case TraNode::Kind::ReKey:
          out = rekey(n);
          break;
        case TraNode::Kind::Tile:
          out = tile(n);
          break;
        case TraNode::Kind::Concat:
          out = concat(n);
          break;
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

  // A sparse relation is never moved: its blocks are read where the joins
  // want them (compile.hpp's SparseBlocks).
  bool spread(const RelType& t) const {
    if (!t.sparse() || sparse_ == SparseBlocks::Everywhere) return false;
    return sparse_ == SparseBlocks::ReadOnce || sparse_in_blocks(t);
  }

  int scan(const TraNode& n) {
    IaNode x;
    const bool all = n.type.sparse() && !spread(n.type);
    x.params = ScanParams{n.source, all ? Placement::all() : Placement::part(iota(n.type.key_arity()), n.type.frontier), {}};
    x.out_type = n.type;
    return add(std::move(x));
  }

  int shuffle(int in, const std::vector<int>& dims) { return add(make_shuffle(in, dims)); }

  int local_agg(int in, const std::vector<int>& group_by, AggKernel agg, bool decomposable, const RelType& type) {
    IaNode a;
    a.params = AggParams{group_by, std::move(agg), 0, decomposable};
    a.inputs = {in};
    a.out_type = type;
    return add(std::move(a));
  }

  // A LocalMap from one tuple to several (not composable by R1-x).
  int expanding_map(int in, const RelType& type, Expansion expand, int arity) {
    IaNode m;
    MapParams p;
    p.expand = std::move(expand);
    p.arity = arity;
    m.params = std::move(p);
    m.inputs = {in};
    m.out_type = type;
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
      group[d] = fine[d] / to[d];  // pieces per output chunk
      piece[d] = full[d] / fine[d];
    }
    // The pieces keyed <target key..., position inside the target chunk...>.
    RelType cut_type{to, piece, n.type.dtype};
    for (int d = 0; d < rank; ++d) cut_type.frontier.push_back(group[d]);
    const int m = expanding_map(in, cut_type, Retile{split, group, piece}, static_cast<int>(volume(split)));
    const int sh = shuffle(m, iota(rank));
    const Shape out_chunk = n.type.chunk_shape;
    return local_agg(sh, iota(rank), AggKernel{AggKernel::Assemble{piece, out_chunk}, {}}, false, n.type);
  }

  int join(const TraNode& n) {
    // Table 1 broadcasts the left input, so that the join runs where the
    // right one is. With a sparse input read on every site (scan()), nothing
    // is broadcast: the join runs where the dense input is; with one spread
    // over the sites, the dense input is broadcast: the join runs where the
    // sparse blocks are.
    const bool sparse_left = type_of(n, 0).sparse(), sparse_right = type_of(n, 1).sparse();
    const bool bcast_left = sparse_right ? spread(type_of(n, 1)) : !sparse_left;
    const bool bcast_right = sparse_left && spread(type_of(n, 0));
    const int left = bcast_left ? add(make_bcast(input_of(n, 0))) : input_of(n, 0);
    const int right = bcast_right ? add(make_bcast(input_of(n, 1))) : input_of(n, 1);
    const auto& kernel = n.einsum;
    JoinParams p;
    p.keys_left = n.keys_left;
    p.keys_right = n.keys_right;
    p.kernel = JoinKernel{EinSumCall{kernel, n.statement}, false, {}};
    p.call_flops = kernel->flops();
    p.gemm = kernel->uses_gemm();
    IaNode j;
    j.params = std::move(p);
    j.inputs = {left, right};
    j.out_type = n.type;
    return add(std::move(j));
  }

  int transform(const TraNode& n) {
    MapParams p;
    switch (n.array_kernel) {
      case TraNode::ArrayKernel::EinSum:
        p.array_map = ArrayFn::of(EinSumCall{n.einsum, n.statement});
        p.call_flops = n.einsum->flops();
        break;
      case TraNode::ArrayKernel::Diag:
        p.array_map = ArrayFn::of(ArrayFn::Diagonal{});
        break;
      case TraNode::ArrayKernel::Scalar:
        p.array_map = ArrayFn::of(ArrayFn::Elements{n.scalar});
        p.call_flops = static_cast<double>(n.scalar.flops_per_eval() * n.type.floats_per_tuple());
        break;
    }
    IaNode m;
    m.params = std::move(p);
    m.inputs = {input_of(n)};
    m.out_type = n.type;
    return add(std::move(m));
  }

  int aggregate(const TraNode& n) {
    const int sh = shuffle(input_of(n), n.group_by);
    return local_agg(sh, n.group_by, AggKernel{AggKernel::Fold{n.agg}, {}}, true, n.type);
  }

  int filter(const TraNode& n) {
    IaNode f;
    f.params = FilterParams{KeyPredicate::of(n.key_fn)};
    f.inputs = {input_of(n)};
    return add(std::move(f));
  }

  int rekey(const TraNode& n) {
    IaNode m;
    m.params = MapParams{};
    m.map().key_map = KeyFn::of(n.key_fn);
    m.inputs = {input_of(n)};
    m.out_type = n.type;
    return add(std::move(m));
  }

  int tile(const TraNode& n) {
    const Index pieces = n.type.frontier.back();
    return expanding_map(input_of(n), n.type, TileKeys{n.dim, n.size, pieces}, static_cast<int>(pieces));
  }

  int concat(const TraNode& n) {
    const std::vector<int> rest = complement(type_of(n).key_arity(), {n.key_dim});
    const int sh = shuffle(input_of(n), rest);
    return local_agg(sh, rest, AggKernel{AggKernel::Concat{n.key_dim, n.dim}, {}}, false, n.type);
  }

  const logical::TraPlan& tra_;
  SparseBlocks sparse_;
  int cur_ = 0;
  IaPlan plan_;
};

}  // namespace

IaPlan compile(const logical::TraPlan& tra, int nsites, SparseBlocks sparse) { return Compiler(tra, nsites, sparse).run(); }

bool has_spreadable_sparse(const logical::TraPlan& tra) {
  return std::any_of(tra.nodes.begin(), tra.nodes.end(), [](const TraNode& n) { return sparse_in_blocks(n.type); });
}

}  // namespace tra::physical
