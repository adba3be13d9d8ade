// Key functions written in decks (TRA paper §3.1: the isEq predicate of a
// filter, the getKey0 and <k0,k1> -> <2k0+k1> maps of a rekey).
#include <gtest/gtest.h>

#include <string>

#include "tra/logical/key_expr.hpp"

using tra::Key;
using tra::SourceLoc;
using tra::logical::KeyExpr;

namespace {
const SourceLoc kWhere{"deck.yaml", 3, 12};
}

TEST(TraKeyExpr, EqualityPredicate) {
  const KeyExpr is_eq = KeyExpr::parse_predicate("k0 == k1", 2, kWhere);
  EXPECT_TRUE(is_eq.test({0, 0}));
  EXPECT_TRUE(is_eq.test({3, 3}));
  EXPECT_FALSE(is_eq.test({0, 1}));
  EXPECT_FALSE(is_eq.test({2, 1}));
  EXPECT_EQ(is_eq.text(), "k0 == k1");
}

TEST(TraKeyExpr, CompoundPredicate) {
  // && binds looser than comparisons, % tighter than ==.
  const KeyExpr p = KeyExpr::parse_predicate("k0 < 2 && k1 % 2 == 0", 2, kWhere);
  int kept = 0;
  tra::for_each_key({4, 4}, [&](const Key& k) {
    const bool want = k[0] < 2 && k[1] % 2 == 0;
    EXPECT_EQ(p.test(k), want) << tra::to_string(k);
    kept += want;
  });
  EXPECT_EQ(kept, 4);  // k0 in {0,1}, k1 in {0,2}
  // || and !, and parentheses.
  const KeyExpr q = KeyExpr::parse_predicate("!(k0 >= 1) || k1 != 0", 2, kWhere);
  EXPECT_TRUE(q.test({0, 0}));
  EXPECT_FALSE(q.test({1, 0}));
  EXPECT_TRUE(q.test({1, 2}));
}

TEST(TraKeyExpr, Maps) {
  const KeyExpr get_key0 = KeyExpr::parse_map("[k0]", 2, kWhere);
  EXPECT_EQ(get_key0.out_arity(), 1);
  EXPECT_EQ(get_key0.map({3, 5}), (Key{3}));

  const KeyExpr merge = KeyExpr::parse_map("[2*k0 + k1]", 2, kWhere);
  EXPECT_EQ(merge.out_arity(), 1);
  EXPECT_EQ(merge.map({0, 0}), (Key{0}));
  EXPECT_EQ(merge.map({0, 1}), (Key{1}));
  EXPECT_EQ(merge.map({1, 0}), (Key{2}));
  EXPECT_EQ(merge.map({1, 1}), (Key{3}));

  const KeyExpr swap = KeyExpr::parse_map("[k1, k0]", 2, kWhere);
  EXPECT_EQ(swap.out_arity(), 2);
  EXPECT_EQ(swap.map({1, 7}), (Key{7, 1}));

  // Integer arithmetic: precedence, division, modulo, unary minus, constants.
  const KeyExpr arith = KeyExpr::parse_map("[ (k0 + 1) * 3 , k1 / 2, k1 % 3, -k0 + 5, 4 ]", 2, kWhere);
  EXPECT_EQ(arith.map({2, 7}), (Key{9, 3, 1, 3, 4}));
  // The empty key map: everything to <>.
  EXPECT_EQ(KeyExpr::parse_map("[]", 2, kWhere).map({1, 1}), Key{});
}

TEST(TraKeyExpr, IdentityDetection) {
  EXPECT_TRUE(KeyExpr::parse_map("[k0, k1]", 2, kWhere).is_identity());
  EXPECT_TRUE(KeyExpr::identity(3).is_identity());
  EXPECT_EQ(KeyExpr::identity(3).map({4, 5, 6}), (Key{4, 5, 6}));
  EXPECT_FALSE(KeyExpr::parse_map("[k1, k0]", 2, kWhere).is_identity());
  EXPECT_FALSE(KeyExpr::parse_map("[k0]", 2, kWhere).is_identity());  // drops a dimension
  EXPECT_FALSE(KeyExpr::parse_map("[k0, k1 + 0]", 2, kWhere).is_identity());  // not recognised syntactically
  EXPECT_FALSE(KeyExpr::parse_map("[k0, k1, k1]", 2, kWhere).is_identity());
}

TEST(TraKeyExpr, Projection) {
  const KeyExpr p = KeyExpr::projection({2, 0}, 3);
  EXPECT_EQ(p.map({7, 8, 9}), (Key{9, 7}));
  EXPECT_EQ(p.text(), "[k2, k0]");
  EXPECT_FALSE(p.is_identity());
}

namespace {
std::string error_of(bool predicate, const std::string& text, int arity) {
  try {
    if (predicate) KeyExpr::parse_predicate(text, arity, kWhere);
    else KeyExpr::parse_map(text, arity, kWhere);
  } catch (const tra::UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for: " << text;
  return "";
}
}  // namespace

TEST(TraKeyExprErrors, DimensionBeyondArityIsLocated) {
  // "k0 == k2": k2 starts at offset 6, so at column 12 + 6.
  const std::string msg = error_of(true, "k0 == k2", 2);
  EXPECT_EQ(msg.rfind("deck.yaml:3:18: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("key dimension k2 does not exist"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(k0..k1)"), std::string::npos) << msg;
  // The same in a key map: "[k0, k2]" has k2 at offset 5.
  const std::string map_msg = error_of(false, "[k0, k2]", 2);
  EXPECT_EQ(map_msg.rfind("deck.yaml:3:17: ", 0), 0u) << map_msg;
}

TEST(TraKeyExprErrors, SyntaxErrors) {
  EXPECT_EQ(error_of(true, "k0 == ", 2).rfind("deck.yaml:3:18: ", 0), 0u);  // operand missing at the end
  EXPECT_EQ(error_of(true, "k0 == k1 k0", 2).rfind("deck.yaml:3:21: ", 0), 0u);  // trailing text
  EXPECT_EQ(error_of(false, "k0", 2).rfind("deck.yaml:3:12: ", 0), 0u);  // a map needs [...]
  EXPECT_EQ(error_of(false, "[k0 k1]", 2).rfind("deck.yaml:3:16: ", 0), 0u);  // ',' or ']' expected
  EXPECT_EQ(error_of(true, "(k0 == 1", 2).rfind("deck.yaml:3:20: ", 0), 0u);  // ')' expected
  // Numbers too large for an integer are user errors, not std::out_of_range.
  EXPECT_EQ(error_of(true, "k0 == 99999999999999999999", 2).rfind("deck.yaml:3:18: integer too large", 0), 0u);
  EXPECT_EQ(error_of(true, "k99999999999 == 0", 2).rfind("deck.yaml:3:12: key dimension k99999999999 does not exist", 0), 0u);
}
