#pragma once
// SplitMix64 (Steele, Lea, Flood 2014): one 64-bit state, fully specified,
// the same on every platform and every rank (std::shuffle and the standard
// distributions are not), for draws that runs and ranks must repeat: the
// batch order of an epoch, a dataset digest's sample positions,
// tra-calibrate's sparse block. (The generators' device-side counter mix
// is io/generators.cpp's.)
#include <cstdint>

namespace tra {

struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
};

}  // namespace tra
