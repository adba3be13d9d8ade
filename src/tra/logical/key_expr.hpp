#pragma once
// Key functions written in decks, over the key dimensions k0, k1, ...:
//
//   predicate (Filter):   k0 == k1        k0 < 2 && k1 % 2 == 0
//   key map (ReKey):      [k0]            [2*k0 + k1]          [k1, k0]
//
// Integer arithmetic (+ - * / %, parentheses), comparisons (== != < <= > >=)
// and logic (&& || !). Parsed once, evaluated on the host for every key.
#include <memory>
#include <string>
#include <vector>

#include "tra/common/error.hpp"
#include "tra/core/key.hpp"

namespace tra::logical {

struct KeyExprNode;

class KeyExpr {
 public:
  // A boolean predicate over keys of the given arity.
  static KeyExpr parse_predicate(const std::string& text, int arity, const SourceLoc& where);
  // A key map "[e0, e1, ...]" from keys of the given arity.
  static KeyExpr parse_map(const std::string& text, int arity, const SourceLoc& where);
  static KeyExpr identity(int arity);
  static KeyExpr projection(const std::vector<int>& positions, int arity);

  bool test(const Key& key) const;  // predicate
  Key map(const Key& key) const;  // key map
  int arity() const { return arity_; }  // of the keys it reads
  int out_arity() const { return static_cast<int>(outputs_.size()); }
  bool is_identity() const;
  std::vector<int> dims_read() const;  // the key dimensions it reads, ascending
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  int arity_ = 0;
  std::vector<std::shared_ptr<const KeyExprNode>> outputs_;  // one per output dimension (1 for a predicate)
};

}  // namespace tra::logical
