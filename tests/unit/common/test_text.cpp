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

// Report columns are padded by what a terminal shows, not by bytes.
TEST(Text, PadRightCountsCharactersNotBytes) {
  EXPECT_EQ(tra::display_width("⋈L"), 2u);  // 3 + 1 bytes
  EXPECT_EQ(tra::display_width("ΣL"), 2u);
  EXPECT_EQ(tra::pad_right("⋈L", 6), "⋈L    ");
  EXPECT_EQ(tra::pad_right("Scan", 6), "Scan  ");
  EXPECT_EQ(tra::display_width(tra::pad_right("λL", 6)), tra::display_width(tra::pad_right("Bcast", 6)));
  EXPECT_EQ(tra::pad_right("Shuffle", 6), "Shuffle");
}
