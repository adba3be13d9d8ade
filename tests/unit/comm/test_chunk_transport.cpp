// How chunks reach MPI (comm/chunk_transport.hpp): in place in host memory,
// in place in device memory where the MPI reads it, else staged; the
// override's values and a bad one.
#include <gtest/gtest.h>

#include "tra/comm/chunk_transport.hpp"
#include "tra/common/error.hpp"
#include "tra/common/kokkos_types.hpp"

namespace tra::comm {
namespace {

TEST(ChunkTransport, HostChunksAreReadInPlaceWhateverTheMpi) {
  EXPECT_EQ(decide_transport(true, nullptr, false), ChunkTransport::Host);
  EXPECT_EQ(decide_transport(true, nullptr, true), ChunkTransport::Host);
  EXPECT_EQ(decide_transport(true, "0", false), ChunkTransport::Host);
  EXPECT_EQ(decide_transport(true, "1", false), ChunkTransport::Host);
}

TEST(ChunkTransport, DeviceChunksGoToMpiDirectlyOnlyWhereItReadsThem) {
  EXPECT_EQ(decide_transport(false, nullptr, true), ChunkTransport::Device);
  EXPECT_EQ(decide_transport(false, nullptr, false), ChunkTransport::Staged);
}

TEST(ChunkTransport, TheVariableOverridesTheMpisAnswer) {
  EXPECT_EQ(decide_transport(false, "1", false), ChunkTransport::Device);
  EXPECT_EQ(decide_transport(false, "0", true), ChunkTransport::Staged);
}

TEST(ChunkTransport, ABadValueIsRefusedByName) {
  for (const char* bad : {"", "yes", "2", "1 "}) {
    try {
      decide_transport(false, bad, false);
      ADD_FAILURE() << "accepted TRA_GPU_AWARE_MPI=" << bad;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("TRA_GPU_AWARE_MPI=" + std::string(bad) + ":"), std::string::npos) << e.what();
    }
  }
}

TEST(ChunkTransport, ThisBuildsChunksAreReadInPlaceOnAHost) {
  if (!kHostChunks) GTEST_SKIP() << "a device build: its transport depends on the MPI";
  EXPECT_EQ(chunk_transport(), ChunkTransport::Host);
}

}  // namespace
}  // namespace tra::comm
