// The chunk pool hands an idle buffer of the size asked for back out, never
// one a chunk still holds, and frees idle buffers when more bytes are idle
// than in use. (A host build has no process pool; this runs the class on
// the host's memory.)
#include <gtest/gtest.h>

#include "tra/core/chunk_pool.hpp"

using tra::ChunkData;
using tra::ChunkPool;

TEST(ChunkPool, ReusesAnIdleBufferOfTheSameSizeOnly) {
  ChunkPool pool;
  ChunkData a = pool.take<double>(100);
  const double* first = a.data();
  ChunkData b = pool.take<double>(100);
  EXPECT_NE(b.data(), first) << "a buffer still held was handed out again";
  EXPECT_TRUE(pool.holds(a));
  EXPECT_EQ(a.use_count(), 2);  // the chunk's and the pool's
  a = ChunkData();
  ChunkData c = pool.take<double>(100);
  EXPECT_EQ(c.data(), first) << "the idle buffer was not reused";
  ChunkData d = pool.take<double>(50);
  EXPECT_NE(d.data(), first);
  EXPECT_EQ(pool.buffers(), 3u);
}

TEST(ChunkPool, FreesIdleBuffersWhenMoreAreIdleThanInUse) {
  ChunkPool pool;
  {
    ChunkData big = pool.take<double>(1000), other = pool.take<double>(10);
    (void)big;
    (void)other;
  }
  EXPECT_EQ(pool.buffers(), 2u);  // idle, kept for reuse
  ChunkData small = pool.take<double>(20);  // 1010 idle against 0 in use: the idle ones go
  EXPECT_EQ(pool.buffers(), 1u);
  EXPECT_TRUE(pool.holds(small));
  pool.release_idle();
  EXPECT_EQ(pool.buffers(), 1u);  // still held
  small = ChunkData();
  pool.release_idle();
  EXPECT_EQ(pool.buffers(), 0u);
}

TEST(ChunkPool, ChunkReferencesLeaveOutThePoolsOwn) {
  // On a host build chunks are not pooled: the count is the View's.
  ChunkData d("d", 4);
  EXPECT_EQ(tra::chunk_references(d), 1);
  ChunkData copy = d;
  EXPECT_EQ(tra::chunk_references(d), 2);
}

// Float buffers are a shelf of their own: a float buffer is never handed
// out for a double chunk of the same count, and idle bytes count both.
TEST(ChunkPool, KeepsFloatAndDoubleBuffersApart) {
  ChunkPool pool;
  const ChunkData held = pool.take<double>(1000);  // more bytes in use than idle: nothing is freed below
  tra::ElementData<float> f = pool.take<float>(100);
  const float* first = f.data();
  f = tra::ElementData<float>();
  ChunkData d = pool.take<double>(100);
  EXPECT_NE(static_cast<const void*>(d.data()), static_cast<const void*>(first));
  EXPECT_EQ(pool.buffers(), 3u);
  // The idle float buffer's 400 bytes count against the 8800 in use: kept.
  tra::ElementData<float> again = pool.take<float>(100);
  EXPECT_EQ(again.data(), first) << "the idle float buffer was not reused";
  EXPECT_TRUE(pool.holds(again));
  EXPECT_FALSE(pool.holds(tra::ElementData<float>("not the pool's", 100)));
}
