#include "tra/model/batch_order.hpp"

#include <numeric>
#include <utility>

#include "tra/common/split_mix64.hpp"

namespace tra::model {

Index batches_per_epoch(const Workflow& wf) {
  for (const auto& t : wf.tensors)
    if (t.batch) return t.batch->batches();  // the deck reader checks that all agree
  return 1;
}

std::vector<Index> epoch_order(const TrainSettings& train, Index batches, Index epoch) {
  std::vector<Index> order(static_cast<size_t>(batches));
  std::iota(order.begin(), order.end(), Index{0});
  if (train.order == TrainSettings::Order::Sequential) return order;
  // One generator per epoch, seeded by (seed, epoch): an epoch's order does
  // not depend on how many numbers earlier epochs drew.
  SplitMix64 rng{train.seed ^ (static_cast<std::uint64_t>(epoch) * 0xD1B54A32D192ED03ULL)};
  for (Index i = batches - 1; i > 0; --i) {
    const auto j = static_cast<Index>(rng.next() % static_cast<std::uint64_t>(i + 1));
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  }
  return order;
}

Index batch_at(const TrainSettings& train, Index batches, Index iteration) {
  return epoch_order(train, batches, iteration / batches)[static_cast<size_t>(iteration % batches)];
}

}  // namespace tra::model
