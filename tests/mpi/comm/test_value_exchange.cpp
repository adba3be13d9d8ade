// Plain arrays of floats between ranks (comm/value_exchange.hpp), against
// what every rank can work out on its own: rank r sends rank t the values
// r·1000 + t·10 + i, r + t + 1 of them.
#include <gtest/gtest.h>

#include "tra/comm/value_exchange.hpp"

namespace tra {
namespace {

double value(int from, int to, int i) { return from * 1000.0 + to * 10.0 + i + 0.25; }

TEST(ValueExchange, EachRankReceivesWhatEveryOtherSentItInRankOrder) {
  comm::Communicator c;
  const int n = c.size(), me = c.rank();
  std::vector<std::vector<Scalar>> to(static_cast<size_t>(n));
  std::vector<Index> from(static_cast<size_t>(n), 0);
  Index sent = 0;
  for (int t = 0; t < n; ++t) {
    for (int i = 0; i < me + t + 1; ++i) to[static_cast<size_t>(t)].push_back(value(me, t, i));
    if (t != me) from[static_cast<size_t>(t)] = t + me + 1, sent += me + t + 1;
  }
  comm::Moved moved;
  const std::vector<Scalar> got = comm::exchange_values(c, to, from, moved);
  std::vector<Scalar> expected;
  for (int r = 0; r < n; ++r)
    for (int i = 0; r != me && i < r + me + 1; ++i) expected.push_back(value(r, me, i));
  EXPECT_EQ(got, expected);
  EXPECT_EQ(moved.floats, sent);
}

TEST(ValueExchange, GatherGivesEveryRankEveryRanksArray) {
  comm::Communicator c;
  const int n = c.size();
  const std::vector<Scalar> mine = {value(c.rank(), 0, 0), value(c.rank(), 0, 1), value(c.rank(), 0, 2)};
  comm::Moved moved;
  const std::vector<Scalar> all = comm::gather_values(c, mine, moved);
  std::vector<Scalar> expected;
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < 3; ++i) expected.push_back(value(r, 0, i));
  EXPECT_EQ(all, expected);
  EXPECT_EQ(moved.floats, 3 * (n - 1));
}

TEST(ValueExchange, ShareFillsEveryRanksBlockAroundOnesOwn) {
  comm::Communicator c;
  const int n = c.size(), me = c.rank();
  std::vector<Index> counts;  // rank r shares r + 1 values (rank 1 none, to take an empty block too)
  for (int r = 0; r < n; ++r) counts.push_back(r == 1 ? 0 : r + 1);
  std::vector<Scalar> all, expected;
  for (int r = 0; r < n; ++r)
    for (Index i = 0; i < counts[static_cast<size_t>(r)]; ++i) {
      expected.push_back(value(r, 0, static_cast<int>(i)));
      all.push_back(r == me ? value(r, 0, static_cast<int>(i)) : -1.0);  // only one's own block is known
    }
  comm::Moved moved;
  EXPECT_EQ(comm::share_values(c, std::move(all), counts, moved), expected);
  EXPECT_EQ(moved.floats, counts[static_cast<size_t>(me)] * (n - 1));
}

}  // namespace
}  // namespace tra
