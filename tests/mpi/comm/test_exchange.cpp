// Broadcast and shuffle of tuples across the ranks, checked against what each
// rank can compute on its own: who should end with which keys and values,
// for float64 and float32 chunks alike (a float32 chunk arrives as float32,
// its values unchanged), and a shuffle of filled rows (a sparse product's
// result) moving only those rows' floats.
#include <gtest/gtest.h>

#include "tra/comm/exchange.hpp"
#include "tra/common/error.hpp"

namespace tra {
namespace {

constexpr DType kTypes[] = {DType::Float64, DType::Float32};

// The third value of tuple <r, i>: not a float, so a float32 chunk holds it rounded.
double third(Index r, Index i) { return 100.0 * static_cast<double>(r) + static_cast<double>(i) + 0.1; }

double as_stored(double v, DType t) { return t == DType::Float32 ? static_cast<double>(static_cast<float>(v)) : v; }

// Tuple <r, i> on rank r holds chunk [r, i, third(r, i)] (shape 3).
std::vector<Tuple> make_local(int rank, int count, DType t) {
  std::vector<Tuple> out;
  for (int i = 0; i < count; ++i)
    out.push_back({Key{rank, i}, Chunk::from_host(Shape{3}, std::vector<double>{double(rank), double(i), third(rank, i)}, t)});
  return out;
}

TEST(Exchange, BroadcastGivesEveryRankEveryTuple) {
  comm::Communicator c;
  const int p = c.size();
  for (DType type : kTypes) {
    auto mine = make_local(c.rank(), c.rank() + 1, type);  // ranks hold different counts
    comm::Moved moved;
    auto all = comm::broadcast(c, mine, 2, Shape{3}, type, moved);
    size_t expected = 0;
    for (int r = 0; r < p; ++r) expected += static_cast<size_t>(r + 1);
    ASSERT_EQ(all.size(), expected);
    for (const Tuple& t : all) {
      EXPECT_EQ(t.chunk.dtype, type);
      const auto v = t.chunk.to_host();
      EXPECT_EQ(v[0], t.key[0]);
      EXPECT_EQ(v[1], t.key[1]);
      EXPECT_EQ(v[2], as_stored(third(t.key[0], t.key[1]), type)) << dtype_name(type);
    }
    EXPECT_EQ(moved.floats, static_cast<Index>(c.rank() + 1) * 3 * (p - 1));
  }
}

TEST(Exchange, ABroadcastHoldsItsOwnTuplesInItsBufferNotTheInputsChunks) {
  // Each rank's own chunks are copied into the buffer the collective fills
  // anyway; the result takes them from there, so it holds the relation once
  // and the input's chunks are held by the input alone (freed when it goes).
  // On one rank nothing moves: the result is the input.
  comm::Communicator c;
  auto mine = make_local(c.rank(), 2, DType::Float64);
  comm::Moved moved;
  const auto all = comm::broadcast(c, mine, 2, Shape{3}, DType::Float64, moved);
  for (const Tuple& t : mine) EXPECT_EQ(chunk_references(t.chunk), c.size() > 1 ? 1 : 2);
  for (const Tuple& t : all)
    if (t.key[0] == c.rank()) EXPECT_EQ(t.chunk.to_host()[1], static_cast<double>(t.key[1]));
}

TEST(Exchange, ShuffleSendsEachTupleToItsSite) {
  comm::Communicator c;
  const int p = c.size();
  for (DType type : kTypes) {
    auto mine = make_local(c.rank(), 5, type);
    auto site = [p](const Key& k) { return static_cast<int>((k[0] + k[1]) % p); };
    Index staying = 0;
    for (const Tuple& t : mine) staying += site(t.key) == c.rank();
    comm::Moved moved;
    auto got = comm::shuffle(c, mine, 2, Shape{3}, type, site, moved);
    EXPECT_EQ(moved.floats, (5 - staying) * 3);
    // Exactly the keys this rank owns, from all ranks, with their values intact.
    size_t expected = 0;
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < 5; ++i) expected += site(Key{r, i}) == c.rank();
    ASSERT_EQ(got.size(), expected);
    for (const Tuple& t : got) {
      EXPECT_EQ(site(t.key), c.rank());
      EXPECT_EQ(t.chunk.dtype, type);
      EXPECT_EQ(t.chunk.to_host()[2], as_stored(third(t.key[0], t.key[1]), type)) << dtype_name(type);
    }
  }
}

// Tuple <r, i>'s chunk of 4 rows x 3: element (row, col) = r + i/10 +
// row/100 + col/1000 in its filled rows, zero elsewhere. Tuple i's filled
// rows: none (i = 0), rows with (i + row) % 3 == 0, all four (i = 4, as a
// support), or unknown (i = 5: a chunk of any rows, all sent).
std::vector<int> filled_rows_of(Index i) {
  std::vector<int> rows;
  for (int row = 0; row < 4; ++row)
    if (i == 4 || i == 5 || (i > 0 && (i + row) % 3 == 0)) rows.push_back(row);
  return rows;
}

std::vector<double> row_values(Index r, Index i) {
  std::vector<double> v(12, 0.0);
  for (int row : filled_rows_of(i))
    for (int col = 0; col < 3; ++col) v[static_cast<size_t>(row * 3 + col)] = double(r) + double(i) / 10 + row / 100.0 + col / 1000.0;
  return v;
}

TEST(Exchange, AShuffleOfFilledRowsSendsThoseRowsAloneAndTheyArriveInPlace) {
  comm::Communicator c;
  const int p = c.size();
  for (DType type : kTypes) {
    std::vector<Tuple> mine;
    for (Index i = 0; i < 6; ++i) {
      Chunk ch = Chunk::from_host(Shape{4, 3}, row_values(c.rank(), i), type);
      if (i != 5) {
        const std::vector<int> rows = filled_rows_of(i);
        ch.row_support = OrdinalData("rows", rows.size());
        Kokkos::deep_copy(ch.row_support, Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(rows.data(), rows.size()));
        ch.has_row_support = true;
      }
      mine.push_back({Key{c.rank(), i}, ch});
    }
    auto site = [p](const Key& k) { return static_cast<int>((k[0] + k[1] + 1) % p); };
    Index sent = 0;
    for (const Tuple& t : mine)
      if (site(t.key) != c.rank()) sent += static_cast<Index>(filled_rows_of(t.key[1]).size()) * 3;
    comm::Moved moved;
    const auto got = comm::shuffle_filled_rows(c, mine, 2, Shape{4, 3}, type, site, moved);
    EXPECT_EQ(moved.floats, p > 1 ? sent : 0);
    size_t expected = 0;
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < 6; ++i) expected += site(Key{r, i}) == c.rank();
    ASSERT_EQ(got.size(), expected);
    for (const Tuple& t : got) {
      EXPECT_EQ(site(t.key), c.rank());
      EXPECT_EQ(t.chunk.dtype, type);
      const std::vector<double> want = row_values(t.key[0], t.key[1]);
      const std::vector<double> have = t.chunk.to_host();
      for (size_t e = 0; e < want.size(); ++e) EXPECT_EQ(have[e], as_stored(want[e], type)) << to_string(t.key) << " element " << e;
    }
  }
}

TEST(Exchange, EmptyRelationsMoveNothing) {
  comm::Communicator c;
  for (DType type : kTypes) {
    comm::Moved moved;
    auto all = comm::broadcast(c, {}, 2, Shape{3}, type, moved);
    EXPECT_TRUE(all.empty());
    auto got = comm::shuffle(
        c, {}, 2, Shape{3}, type, [](const Key&) { return 0; }, moved);
    EXPECT_TRUE(got.empty());
    EXPECT_EQ(moved.floats, 0);
  }
}

// A chunk of another type than the exchange's is a bug, said as one (on
// one rank, before anything moves: no other rank waits in a collective).
TEST(Exchange, AChunkOfAnotherTypeIsRefused) {
  comm::Communicator c;
  comm::Moved moved;
  const auto mine = make_local(c.rank(), 1, DType::Float32);
  EXPECT_THROW(comm::broadcast(c, mine, 2, Shape{3}, DType::Float64, moved), InternalError);
}

}  // namespace
}  // namespace tra
