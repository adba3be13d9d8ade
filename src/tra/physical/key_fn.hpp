#pragma once
// The key-side functions of IA operators as plain data: what a ReKey, a join
// strategy's key permutation, a filter's boolFunc and a one-to-many map do to
// keys, written as steps that can be printed, compared and kept, and
// evaluated here on the host (infer() computes every distribution with them;
// the executor applies them to tuples).
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tra/core/key.hpp"
#include "tra/logical/key_expr.hpp"

namespace tra::physical {

// A one-to-one key map: steps applied first to last; none is idOp.
class KeyFn {
 public:
  struct Expr {  // a deck's ReKey expression
    std::shared_ptr<const logical::KeyExpr> expr;
  };
  struct Project {  // k -> <k[positions[0]], k[positions[1]], ...>
    std::vector<int> positions;
  };
  using Step = std::variant<Expr, Project>;

  KeyFn() = default;  // idOp
  static KeyFn of(std::shared_ptr<const logical::KeyExpr> expr);
  static KeyFn projecting(std::vector<int> positions, int arity);  // of keys of `arity` dims; idOp for 0, 1, ..., arity-1

  bool identity() const { return steps_.empty(); }
  Key operator()(const Key& k) const;
  KeyFn after(const KeyFn& inner) const;  // this ∘ inner: inner's steps first
  std::string text() const;  // "" for idOp; steps joined by ∘, last applied first
  const std::vector<Step>& steps() const { return steps_; }
  bool operator==(const KeyFn& o) const;
  bool operator!=(const KeyFn& o) const { return !(*this == o); }

 private:
  std::vector<Step> steps_;
};

// A filter's boolFunc: deck predicates that must all hold (R1-1 merges two),
// each read through the key layouts rules moved it across: R1-5 reads it on
// an aggregation's input, R1-6 on a join's inputs.
class KeyPredicate {
 public:
  // The predicate was written for keys of `old_arity` dimensions; dimension
  // new_to_old[i].first of the key it now sees feeds .second (the others read 0).
  struct Relayout {
    int old_arity = 0;
    std::vector<std::pair<int, int>> new_to_old;
    std::string note;  // said after the predicate's text
  };
  struct Term {
    std::shared_ptr<const logical::KeyExpr> expr;
    std::vector<Relayout> through;  // in the order the rules applied them
  };

  KeyPredicate() = default;  // always true
  static KeyPredicate of(std::shared_ptr<const logical::KeyExpr> expr);

  bool test(const Key& k) const;
  KeyPredicate relayout(int old_arity, std::vector<std::pair<int, int>> new_to_old, const std::string& note) const;
  KeyPredicate both(const KeyPredicate& o) const;  // this && o
  const std::string& text() const { return text_; }
  const std::vector<int>& dims() const { return dims_; }  // the key dimensions it reads, ascending
  const std::vector<Term>& terms() const { return all_; }
  bool operator==(const KeyPredicate& o) const;

 private:
  std::vector<Term> all_;
  std::string text_;
  std::vector<int> dims_;
};

// A map of one tuple to several: the keys each key becomes (the chunks
// follow in exec/). The forms the compiler and the join strategies make:
struct Retile {  // re-chunking (compile.cpp): cut into pieces keyed <target key..., position in it...>
  Shape split;  // pieces per input chunk, per dimension
  Shape group;  // pieces per output chunk
  Shape piece;  // a piece's extents
  bool operator==(const Retile& o) const { return split == o.split && group == o.group && piece == o.piece; }
};
struct TileKeys {  // Tile(tileDim, tileSize): the piece number appended as a last key dimension
  int dim = 0;
  Index size = 0;
  Index pieces = 0;
  bool operator==(const TileKeys& o) const { return dim == o.dim && size == o.size && pieces == o.pieces; }
};
struct Replicate {  // insertDim, duplicate: one copy per site coordinate of the dimensions appended
  Shape coords;
  bool operator==(const Replicate& o) const { return coords == o.coords; }
};
struct Spread {  // on its site, coordinate c of appended dimension t stands for c, c + coords[t], ... < extents[t]
  Shape coords, extents;
  int first = 0;  // the first appended dimension
  bool operator==(const Spread& o) const { return coords == o.coords && extents == o.extents && first == o.first; }
};
using Expansion = std::variant<Retile, TileKeys, Replicate, Spread>;

std::vector<Key> expand_keys(const Expansion& e, const Key& k);
// Whether tuples of an expansion share their input's chunk (replication),
// rather than each holding a piece of it.
bool shares_chunk(const Expansion& e);

}  // namespace tra::physical
