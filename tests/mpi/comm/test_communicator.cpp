// Counting a node's ranks by a name they give (comm/communicator.hpp), as
// the shared-GPU warning counts ranks by their GPU's bus id. The test's
// ranks all run on one machine, so the node is the whole communicator and
// each rank can count on its own.
#include <gtest/gtest.h>

#include <string>

#include "tra/comm/communicator.hpp"

namespace tra {
namespace {

TEST(Communicator, CountsTheRanksOfTheNodeThatGiveTheSameName) {
  comm::Communicator c;
  ASSERT_EQ(c.ranks_on_node(), c.size()) << "the test's ranks are expected on one machine";
  const int parity = c.rank() % 2;
  int same_parity = 0;
  for (int r = 0; r < c.size(); ++r) same_parity += r % 2 == parity ? 1 : 0;
  EXPECT_EQ(c.ranks_on_node_naming("0000:" + std::to_string(parity) + "1:00.0"), same_parity);
  EXPECT_EQ(c.ranks_on_node_naming("one GPU"), c.size());
  EXPECT_EQ(c.ranks_on_node_naming("rank " + std::to_string(c.rank())), 1);
}

}  // namespace
}  // namespace tra
