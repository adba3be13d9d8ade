// Broadcast and shuffle of tuples across the ranks, checked against what each
// rank can compute on its own: who should end with which keys and values.
#include <gtest/gtest.h>

#include "tra/comm/exchange.hpp"

namespace tra {
namespace {

// Tuple <r, i> on rank r holds chunk [r, i, 100 r + i] (shape 3).
std::vector<Tuple> make_local(int rank, int count) {
  std::vector<Tuple> out;
  for (int i = 0; i < count; ++i)
    out.push_back({Key{rank, i}, Chunk::from_host(Shape{3}, std::vector<Scalar>{double(rank), double(i), 100.0 * rank + i})});
  return out;
}

TEST(Exchange, BroadcastGivesEveryRankEveryTuple) {
  comm::Communicator c;
  const int p = c.size();
  auto mine = make_local(c.rank(), c.rank() + 1);  // ranks hold different counts
  comm::Moved moved;
  auto all = comm::broadcast(c, mine, 2, Shape{3}, moved);
  size_t expected = 0;
  for (int r = 0; r < p; ++r) expected += static_cast<size_t>(r + 1);
  ASSERT_EQ(all.size(), expected);
  for (const Tuple& t : all) {
    const auto v = t.chunk.to_host();
    EXPECT_EQ(v[0], t.key[0]);
    EXPECT_EQ(v[1], t.key[1]);
    EXPECT_EQ(v[2], 100.0 * t.key[0] + t.key[1]);
  }
  EXPECT_EQ(moved.floats, static_cast<Index>(c.rank() + 1) * 3 * (p - 1));
}

TEST(Exchange, ShuffleSendsEachTupleToItsSite) {
  comm::Communicator c;
  const int p = c.size();
  auto mine = make_local(c.rank(), 5);
  auto site = [p](const Key& k) { return static_cast<int>((k[0] + k[1]) % p); };
  Index staying = 0;
  for (const Tuple& t : mine) staying += site(t.key) == c.rank();
  comm::Moved moved;
  auto got = comm::shuffle(c, mine, 2, Shape{3}, site, moved);
  EXPECT_EQ(moved.floats, (5 - staying) * 3);
  // Exactly the keys this rank owns, from all ranks, with their values intact.
  size_t expected = 0;
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < 5; ++i) expected += site(Key{r, i}) == c.rank();
  ASSERT_EQ(got.size(), expected);
  for (const Tuple& t : got) {
    EXPECT_EQ(site(t.key), c.rank());
    EXPECT_EQ(t.chunk.to_host()[2], 100.0 * t.key[0] + t.key[1]);
  }
}

TEST(Exchange, EmptyRelationsMoveNothing) {
  comm::Communicator c;
  comm::Moved moved;
  auto all = comm::broadcast(c, {}, 2, Shape{3}, moved);
  EXPECT_TRUE(all.empty());
  auto got = comm::shuffle(
      c, {}, 2, Shape{3}, [](const Key&) { return 0; }, moved);
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(moved.floats, 0);
}

}  // namespace
}  // namespace tra
