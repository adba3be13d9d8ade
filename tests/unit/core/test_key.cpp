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
  // Dimension 1 has frontier 1: it never changes the site, so it is dropped.
  const Shape f{4, 1, 4};
  const Placement p = Placement::part({0, 1, 2}, f);
  EXPECT_EQ(p.dims, (std::vector<int>{0, 2}));
  EXPECT_EQ(p.str(), "Part<0,2>");
  // 4 x 4 blocks on 4 sites: a 2 x 2 grid (4 blocks a site either way, and
  // 2 x 2 local blocks beat 1 x 4); coordinates are key mod 2 on each.
  EXPECT_EQ(p.grid_for(f, 4), (tra::ProcGrid{2, 2}));
  tra::for_each_key(f, [&](const Key& k) { EXPECT_EQ(p.site_of(k, f, 4), (k[0] % 2) * 2 + k[2] % 2); });
  // The same placement as one written without the dropped dimension.
  EXPECT_TRUE(p.same_as(Placement::part({0, 2}, f)));
  EXPECT_FALSE(p.same_as(Placement::part({0}, f)));
}

TEST(TraPlacement, MultiDimensionalGridsUseEveryDimension) {
  // 10 x 10 x 10 blocks on 10 sites used to land on the site of their last
  // index (100 i + 10 j + k = k mod 10). The voxel grids a join strategy may
  // use give every dimension two sites or more: 2 x 2 x 2 (8 of the 10 sites).
  EXPECT_EQ(tra::full_grids({10, 10, 10}, 10), (std::vector<tra::ProcGrid>{{2, 2, 2}}));
  EXPECT_EQ(tra::full_grids({4, 4, 4}, 8), (std::vector<tra::ProcGrid>{{2, 2, 2}}));
  EXPECT_EQ(tra::full_grids({4, 4}, 8), (std::vector<tra::ProcGrid>{{4, 2}, {2, 4}}));
  EXPECT_EQ(tra::full_grids({4, 4}, 6), (std::vector<tra::ProcGrid>{{3, 2}, {2, 3}}));
  EXPECT_EQ(tra::full_grids({4, 4, 4}, 5), (std::vector<tra::ProcGrid>{}));  // 2 x 2 x 2 needs 8
  EXPECT_EQ(tra::full_grids({2, 8}, 10), (std::vector<tra::ProcGrid>{{2, 5}}));
  // The default grid: the busiest site holds as few keys as can be.
  EXPECT_EQ(tra::processor_grid({4, 4, 4}, 8), (tra::ProcGrid{2, 2, 2}));
  EXPECT_EQ(tra::processor_grid({6, 5}, 6), (tra::ProcGrid{6, 1}));  // 5 a site; 3 x 2 would put 2 x 3 = 6
  EXPECT_EQ(tra::processor_grid({7}, 5), (tra::ProcGrid{5}));
  EXPECT_EQ(tra::processor_grid({3}, 5), (tra::ProcGrid{3}));
  // Every site of a grid is used exactly by its share of keys.
  const Shape f{4, 4, 4};
  const Placement p = Placement::part({0, 1, 2}, f);
  std::vector<int> count(8, 0);
  tra::for_each_key(f, [&](const Key& k) { ++count[static_cast<size_t>(p.site_of(k, f, 8))]; });
  EXPECT_EQ(count, std::vector<int>(8, 8));
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

// A 4x4-block A of an RMM on a 2x2x2 grid (strides 4, 2, 1 for i, j, k) has
// two copies of each block, on sites 4(i%2) + 2(j%2) + {0, 1}. Read on the
// (i, j) face spread over k, each block sits on one of those two sites, and
// every site holds two of the sixteen: one copy stays, and all eight read.
TEST(TraPlacement, SpreadFaceDealsEachFaceSitesKeysOverTheSitesAboveIt) {
  const Shape f{4, 4};
  Placement face = Placement::part({0, 1}, f);
  face.grid = {2, 2};
  face.strides = {4, 2};
  face.spread = {{2, 1}};
  std::vector<int> held(8, 0);
  tra::for_each_key(f, [&](const Key& k) {
    const int site = face.site_of(k, f, 8);
    const int corner = static_cast<int>(4 * (k[0] % 2) + 2 * (k[1] % 2));
    EXPECT_TRUE(site == corner || site == corner + 1) << tra::to_string(k) << " on site " << site;
    // The k coordinate is the block index i/2 + j/2, mod 2.
    EXPECT_EQ(site - corner, (k[0] / 2 + k[1] / 2) % 2) << tra::to_string(k);
    ++held[static_cast<size_t>(site)];
  });
  for (int s = 0; s < 8; ++s) EXPECT_EQ(held[static_cast<size_t>(s)], 2) << "site " << s;
  EXPECT_EQ(face.str(), "Part<0,1> on 2x2 strides 4,2 spread 2@1");
  // Spread or not is a different placement.
  Placement plain = face;
  plain.spread.clear();
  EXPECT_FALSE(face.same_as(plain));
  EXPECT_FALSE(face.same_sites(plain, f, f, 8));
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

TEST(TraKey, ComplementListsThePositionsNotDropped) {
  EXPECT_EQ(tra::complement(4, {1, 3}), (std::vector<int>{0, 2}));
  EXPECT_EQ(tra::complement(2, {}), (std::vector<int>{0, 1}));
  EXPECT_TRUE(tra::complement(2, {0, 1}).empty());
}
