#include "tra/exec/local/tra_ops.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "tra/common/error.hpp"
#include "tra/kernels/blocks.hpp"
#include "tra/kernels/combine.hpp"

namespace tra::exec::local {

std::vector<JoinMatch> join_matches(const Tuples& left, const Tuples& right, const std::vector<int>& keys_left, const std::vector<int>& keys_right) {
  TRA_ASSERT(keys_left.size() == keys_right.size(), "join keys of different lengths");
  std::vector<JoinMatch> out;
  if (left.empty() || right.empty()) return out;
  // Hash the smaller side on its join key, probe with the other.
  const bool build_left = left.size() <= right.size();
  const Tuples& build = build_left ? left : right;
  const Tuples& probe = build_left ? right : left;
  const auto& build_keys = build_left ? keys_left : keys_right;
  const auto& probe_keys = build_left ? keys_right : keys_left;
  std::unordered_map<Key, std::vector<size_t>, KeyHash> table;
  for (size_t i = 0; i < build.size(); ++i) table[project(build[i].key, build_keys)].push_back(i);
  const std::vector<int> right_rest = complement(static_cast<int>(right.front().key.size()), keys_right);
  for (const Tuple& p : probe) {
    auto it = table.find(project(p.key, probe_keys));
    if (it == table.end()) continue;
    for (size_t bi : it->second) {
      const Tuple& l = build_left ? build[bi] : p;
      const Tuple& r = build_left ? p : build[bi];
      Key k = l.key;
      for (int pos : right_rest) k.push_back(r.key[static_cast<size_t>(pos)]);
      out.push_back({&l, &r, std::move(k)});
    }
  }
  std::sort(out.begin(), out.end(), [](const JoinMatch& a, const JoinMatch& b) { return a.key < b.key; });
  return out;
}

Tuples join(const Tuples& left, const Tuples& right, const std::vector<int>& keys_left, const std::vector<int>& keys_right, const JoinFn& proj) {
  Tuples out;
  for (JoinMatch& m : join_matches(left, right, keys_left, keys_right)) out.push_back({std::move(m.key), proj(m.left->chunk, m.right->chunk)});
  return out;
}

Tuples aggregate(const Tuples& in, const std::vector<int>& group_by, const AggFn& agg) {
  std::map<Key, std::vector<const Tuple*>> groups;
  for (const Tuple& t : in) groups[project(t.key, group_by)].push_back(&t);
  Tuples out;
  for (auto& [key, members] : groups) {
    std::sort(members.begin(), members.end(), [](const Tuple* a, const Tuple* b) { return a->key < b->key; });
    out.push_back({key, agg(members)});
  }
  return out;
}

AggFn elementwise(einsum::AggOp op) {
  return [op](const std::vector<const Tuple*>& group) {
    // A group of one is passed through without a copy: a chunk is modified
    // after it is made only by its sole owner (exec's element-wise join over
    // an input), and sharing the View makes two owners, so sharing is safe.
    if (group.size() == 1) return group.front()->chunk;
    Chunk acc = kernels::clone(group.front()->chunk);
    for (size_t i = 1; i < group.size(); ++i) kernels::combine_into(op, acc, group[i]->chunk);
    return acc;
  };
}

Tuples rekey(const Tuples& in, const logical::KeyExpr& key_fn) {
  Tuples out;
  out.reserve(in.size());
  for (const Tuple& t : in) out.push_back({key_fn.map(t.key), t.chunk});
  return out;
}

Tuples filter(const Tuples& in, const logical::KeyExpr& predicate) {
  Tuples out;
  for (const Tuple& t : in)
    if (predicate.test(t.key)) out.push_back(t);
  return out;
}

Tuples transform(const Tuples& in, const ArrayFn& fn) {
  Tuples out;
  out.reserve(in.size());
  for (const Tuple& t : in) out.push_back({t.key, fn(t.chunk)});
  return out;
}

Tuples tile(const Tuples& in, int tile_dim, Index tile_size) {
  Tuples out;
  for (const Tuple& t : in) {
    const Shape& s = t.chunk.shape;
    TRA_ASSERT(tile_dim < static_cast<int>(s.size()) && s[tile_dim] % tile_size == 0,
               "tile size " << tile_size << " does not divide dimension " << tile_dim << " of " << shape_string(s));
    Shape piece = s;
    piece[tile_dim] = tile_size;
    for (Index p = 0; p < s[tile_dim] / tile_size; ++p) {
      Shape offset(s.size(), 0);
      offset[tile_dim] = p * tile_size;
      Key k = t.key;
      k.push_back(p);
      out.push_back({std::move(k), kernels::extract_block(t.chunk, offset, piece)});
    }
  }
  return out;
}

Tuples concat(const Tuples& in, int key_dim, int array_dim) {
  if (in.empty()) return {};
  const int arity = static_cast<int>(in.front().key.size());
  return aggregate(in, complement(arity, {key_dim}), [&](const std::vector<const Tuple*>& group) {
    Shape s = group.front()->chunk.shape;
    const Index piece = s[array_dim];
    s[array_dim] = piece * static_cast<Index>(group.size());
    Chunk out(s);
    for (const Tuple* m : group) {  // members come ordered by key, hence by key_dim within the group
      Shape offset(s.size(), 0);
      offset[array_dim] = m->key[static_cast<size_t>(key_dim)] * piece;
      kernels::insert_block(out, m->chunk, offset);
    }
    return out;
  });
}

}  // namespace tra::exec::local
