// The digest ranks compare: the same bytes give the same digest, a change in
// one byte or a different split of strings another.
#include <gtest/gtest.h>

#include "tra/common/digest.hpp"

TEST(Digest, SameBytesSameDigestAndOneBitChangesIt) {
  const double a[3] = {1.0, 2.0, 3.0};
  double b[3] = {1.0, 2.0, 3.0};
  EXPECT_EQ(tra::Digest().add(a, sizeof a).hex(), tra::Digest().add(b, sizeof b).hex());
  b[2] = 3.0000000000000004;  // the last bit of one value
  EXPECT_NE(tra::Digest().add(a, sizeof a).value(), tra::Digest().add(b, sizeof b).value());
  // FNV-1a 64 of "a", as published.
  EXPECT_EQ(tra::Digest().add("a", 1).value(), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(tra::Digest().add("a", 1).hex(), "af63dc4c8601ec8c");
}

TEST(Digest, StringsAreDelimited) {
  EXPECT_NE(tra::Digest().add(std::string("ab")).add(std::string("c")).value(), tra::Digest().add(std::string("a")).add(std::string("bc")).value());
}
