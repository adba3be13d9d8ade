// Keys, frontiers, site placement and the integrity constraints of the TRA
// paper (§3.2: uniqueness and continuity), on small hand-checked cases.
#include <gtest/gtest.h>

#include <vector>

#include "tra/common/error.hpp"
#include "tra/core/placement.hpp"
#include "tra/core/tensor_relation.hpp"

using tra::Index;
using tra::Key;
using tra::Placement;
using tra::Shape;

TEST(TraKey, LinearizeIsRowMajor) {
  // <1, 2> in a 3 x 4 frontier is row 1, column 2: 1*4 + 2.
  EXPECT_EQ(tra::linearize({1, 2}, {3, 4}), 6);
  EXPECT_EQ(tra::linearize({2, 3}, {3, 4}), 11);
  EXPECT_EQ(tra::linearize({1, 0, 2}, {2, 5, 3}), 1 * 15 + 0 * 3 + 2);
  // The empty key of an empty frontier is the single position 0 (the <> key of §2.2).
  EXPECT_EQ(tra::linearize({}, {}), 0);
  EXPECT_EQ(tra::volume({}), 1);
  EXPECT_EQ(tra::volume({2, 5, 3}), 30);
}

TEST(TraKey, DelinearizeInvertsLinearize) {
  EXPECT_EQ(tra::delinearize(6, {3, 4}), (Key{1, 2}));
  EXPECT_EQ(tra::delinearize(17, {2, 5, 3}), (Key{1, 0, 2}));
  const Shape f{2, 3, 4};
  for (Index p = 0; p < tra::volume(f); ++p) EXPECT_EQ(tra::linearize(tra::delinearize(p, f), f), p);
}

TEST(TraKey, ForEachKeyVisitsEveryKeyInRowMajorOrder) {
  std::vector<Key> seen;
  tra::for_each_key({2, 3}, [&](const Key& k) { seen.push_back(k); });
  const std::vector<Key> expected{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}};
  EXPECT_EQ(seen, expected);

  // The empty frontier has exactly one key, <>; a zero extent has none.
  seen.clear();
  tra::for_each_key({}, [&](const Key& k) { seen.push_back(k); });
  EXPECT_EQ(seen, std::vector<Key>{Key{}});
  seen.clear();
  tra::for_each_key({3, 0}, [&](const Key& k) { seen.push_back(k); });
  EXPECT_TRUE(seen.empty());

  // Position p is visited p-th: the visit order agrees with linearize.
  Index p = 0;
  tra::for_each_key({3, 2, 2}, [&](const Key& k) { EXPECT_EQ(tra::linearize(k, {3, 2, 2}), p++); });
  EXPECT_EQ(p, 12);
}

TEST(TraKey, ProjectAndToString) {
  EXPECT_EQ(tra::project({4, 5, 6}, {2, 0}), (Key{6, 4}));
  EXPECT_EQ(tra::project({4, 5, 6}, {}), Key{});
  EXPECT_EQ(tra::to_string({0, 1}), "<0, 1>");
  EXPECT_EQ(tra::to_string({}), "<>");
  EXPECT_EQ(tra::shape_string({4, 4}), "[4, 4]");
}

TEST(TraPlacement, PartDropsDimensionsWithFrontierOne) {
  // Dimension 1 has frontier 1: it never changes the position, so it is dropped.
  const Shape f{4, 1, 3};
  const Placement p = Placement::part({0, 1, 2}, f);
  EXPECT_EQ(p.dims, (std::vector<int>{0, 2}));
  EXPECT_EQ(p.str(), "Part<0,2>");
  // site = row-major position of key[{0,2}] in frontier[{0,2}] = [4, 3], mod sites.
  EXPECT_EQ(p.site_of({3, 0, 2}, f, 5), (3 * 3 + 2) % 5);
  EXPECT_EQ(p.site_of({1, 0, 1}, f, 2), (1 * 3 + 1) % 2);
  // The same placement as one written without the dropped dimension.
  EXPECT_TRUE(p.same_as(Placement::part({0, 2}, f)));
  EXPECT_FALSE(p.same_as(Placement::part({0}, f)));
}

TEST(TraPlacement, PartOnlyOnUnitDimensionsPutsEverythingOnSiteZero) {
  const Shape f{1, 1};
  const Placement p = Placement::part({0, 1}, f);
  EXPECT_TRUE(p.dims.empty());
  EXPECT_EQ(p.site_of({0, 0}, f, 4), 0);
}

TEST(TraPlacement, SiteOfIsDeterministicAndCoversSites) {
  // Part<0> over a frontier of 8 rows on 4 sites: row r goes to r % 4.
  const Shape f{8, 2};
  const Placement p = Placement::part({0}, f);
  tra::for_each_key(f, [&](const Key& k) { EXPECT_EQ(p.site_of(k, f, 4), k[0] % 4); });
}

TEST(TraPlacement, ExplicitAndAll) {
  const Placement e = Placement::explicit_sites({{{0}, 1}, {{1}, 0}});
  EXPECT_EQ(e.site_of({0}, {2}, 2), 1);
  EXPECT_EQ(e.site_of({1}, {2}, 2), 0);
  EXPECT_THROW(e.site_of({2}, {3}, 2), tra::InternalError);  // no site recorded
  EXPECT_EQ(e.str(), "Explicit");

  const Placement a = Placement::all();
  EXPECT_TRUE(a.is_all());
  EXPECT_EQ(a.str(), "All");
  EXPECT_THROW(a.site_of({0}, {1}, 2), tra::InternalError);  // a broadcast tuple has no single site
  EXPECT_FALSE(a.same_as(e));
}

TEST(TraIntegrity, GoodRelationPasses) {
  std::vector<Key> keys;
  tra::for_each_key({2, 2}, [&](const Key& k) { keys.push_back(k); });
  EXPECT_EQ(tra::check_integrity(keys, {2, 2}), "");
  // Order does not matter.
  std::swap(keys[0], keys[3]);
  EXPECT_EQ(tra::check_integrity(keys, {2, 2}), "");
  // The empty key: one tuple <> for the empty frontier.
  EXPECT_EQ(tra::check_integrity({Key{}}, {}), "");
}

TEST(TraIntegrity, UniquenessViolationIsNamed) {
  const std::vector<Key> keys{{0, 0}, {0, 1}, {1, 0}, {0, 1}};
  EXPECT_EQ(tra::check_integrity(keys, {2, 2}), "uniqueness violated: key <0, 1> appears twice");
}

TEST(TraIntegrity, ContinuityViolationNamesTheFirstHole) {
  const std::vector<Key> keys{{0, 0}, {1, 1}, {0, 1}};
  EXPECT_EQ(tra::check_integrity(keys, {2, 2}), "continuity violated: no tuple has key <1, 0>");
  EXPECT_EQ(tra::check_integrity({}, {1}), "continuity violated: no tuple has key <0>");
}

TEST(TraIntegrity, KeysOutsideTheFrontierOrOfWrongArity) {
  EXPECT_EQ(tra::check_integrity({{0, 2}}, {2, 2}), "key <0, 2> lies outside the frontier [2, 2]");
  EXPECT_EQ(tra::check_integrity({{-1, 0}}, {2, 2}), "key <-1, 0> lies outside the frontier [2, 2]");
  EXPECT_EQ(tra::check_integrity({{0}}, {2, 2}), "key <0> has the wrong arity for frontier [2, 2]");
}
