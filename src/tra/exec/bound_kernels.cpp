#include "tra/exec/bound_kernels.hpp"

#include "tra/common/error.hpp"
#include "tra/core/chunk_pool.hpp"
#include "tra/kernels/blocks.hpp"
#include "tra/kernels/combine.hpp"

namespace tra::exec {

using physical::AggKernel;
using physical::ArrayFn;

Chunk apply(const ArrayFn& f, const Chunk& c) {
  Chunk x = c;
  for (const ArrayFn::Step& s : f.steps()) {
    if (const auto* e = std::get_if<physical::EinSumCall>(&s)) x = e->kernel->apply(x, nullptr);
    else if (std::holds_alternative<ArrayFn::Diagonal>(s)) x = kernels::diagonal(x);
    else x = kernels::map_elements(std::get<ArrayFn::Elements>(s).program, x);
  }
  return x;
}

Chunk apply(const physical::JoinKernel& k, const Chunk& x, const Chunk& y) {
  const Chunk z = k.zip ? kernels::zip_elements(k.call.kernel->join_program(), x, y) : k.call.kernel->apply(x, &y);
  return apply(k.then, z);
}

void apply_add(const physical::JoinKernel& k, const Chunk& x, const Chunk& y, Chunk& acc) {
  TRA_ASSERT(k.adds_into(), "apply_add: " << k.call.text() << " does not add into its output");
  k.call.kernel->apply_add(x, y, acc);
}

Chunk reduce(const AggKernel& a, const std::vector<const Tuple*>& group) {
  Chunk out;
  if (const auto* f = std::get_if<AggKernel::Fold>(&a.reduce)) {
    out = local::elementwise(f->op)(group);
  } else if (const auto* as = std::get_if<AggKernel::Assemble>(&a.reduce)) {
    // Pieces keyed <target key..., position in it...>, placed at position x piece.
    if (group.size() == 1 && group.front()->chunk.shape == as->out_chunk) {
      out = group.front()->chunk;
    } else {
      const size_t rank = as->piece.size();
      out = Chunk(as->out_chunk, group.front()->chunk.dtype);
      for (const Tuple* t : group) {
        Shape offset(rank);
        for (size_t d = 0; d < rank; ++d) offset[d] = t->key[rank + d] * as->piece[d];
        kernels::insert_block(out, t->chunk, offset);
      }
    }
  } else {
    const auto& c = std::get<AggKernel::Concat>(a.reduce);
    local::Tuples members;
    for (const Tuple* t : group) members.push_back(*t);
    out = local::concat(members, c.key_dim, c.dim).front().chunk;
  }
  return apply(a.finish, out);
}

std::vector<Tuple> expand(const physical::Expansion& e, const Tuple& t) {
  if (const auto* tile = std::get_if<physical::TileKeys>(&e)) return local::tile({t}, tile->dim, tile->size);
  std::vector<Tuple> out;
  const std::vector<Key> keys = physical::expand_keys(e, t.key);
  if (physical::shares_chunk(e)) {
    for (const Key& k : keys) out.push_back({k, t.chunk});
    return out;
  }
  // Re-chunking: piece i of the input chunk, in the order expand_keys lists them.
  const auto& r = std::get<physical::Retile>(e);
  const bool whole = r.split == Shape(r.split.size(), 1);
  size_t i = 0;
  for_each_key(r.split, [&](const Key& sub) {
    Shape offset(sub.size());
    for (size_t d = 0; d < sub.size(); ++d) offset[d] = sub[d] * r.piece[d];
    out.push_back({keys[i++], whole ? t.chunk : kernels::extract_block(t.chunk, offset, r.piece)});
  });
  return out;
}

local::JoinFn join_fn(const physical::JoinKernel& k) {
  return [k](const Chunk& x, const Chunk& y) { return apply(k, x, y); };
}

local::JoinFn join_fn_over(const physical::JoinKernel& k, int side) {
  TRA_ASSERT(k.elementwise(), "join_fn_over: " << k.call.text() << " is not element-wise");
  return [k, side](const Chunk& x, const Chunk& y) {
    const Chunk& over = side == 0 ? x : y;
    // One owner: this relation alone (a View shared with another relation,
    // a kept result or a broadcast's own copy has more; an unmanaged one
    // none; core/chunk_pool.hpp's own reference does not count).
    if (chunk_references(over) != 1 || x.shape != y.shape) return apply(k, x, y);
    kernels::zip_elements_into(k.call.kernel->join_program(), x, y, over);
    Chunk written = over;
    written.forget_row_support();  // f(0, y) need not be 0
    return written;
  };
}

local::AggFn agg_fn(const AggKernel& a) {
  return [a](const std::vector<const Tuple*>& group) { return reduce(a, group); };
}

}  // namespace tra::exec
