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

// Numbers a user wrote read back as written (a checkpoint's setup, a resume's message).
TEST(Text, ShortestTextReadsBackExactly) {
  EXPECT_EQ(tra::shortest_text(0.3), "0.3");
  EXPECT_EQ(tra::shortest_text(0.05), "0.05");
  EXPECT_EQ(tra::shortest_text(1e-8), "1e-08");
  EXPECT_EQ(tra::shortest_text(0.1 + 0.2), "0.30000000000000004");
  for (double x : {1.0 / 3, 2.5e-300, 123456789.125, -0.999}) EXPECT_EQ(std::strtod(tra::shortest_text(x).c_str(), nullptr), x);
}
