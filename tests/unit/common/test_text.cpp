// Shortened plan text stays valid UTF-8.
#include <gtest/gtest.h>

#include "tra/common/text.hpp"

TEST(Text, ShortenNeverCutsACharacter) {
  EXPECT_EQ(tra::shorten("abc", 10), "abc");
  EXPECT_EQ(tra::shorten("abcdefghij", 8), "abcde...");
  // "ΣΣΣΣ" is 8 bytes; 7 bytes leave room for 4 bytes of text: two Σ, not one and a half.
  EXPECT_EQ(tra::shorten("ΣΣΣΣ", 7), "ΣΣ...");
  EXPECT_EQ(tra::shorten("aΣΣΣ", 6), "aΣ...");
  EXPECT_EQ(tra::shorten("aΣΣΣ", 7), "aΣΣΣ");
}
