#pragma once
// The kinds of IA operator (TRA paper §4), one parameters type each
// (ops/<kind>.hpp): IaParams holds one of them, and the kind of a node is
// which (IaKind, in the same order). Adding a kind: its ops/<kind>.hpp and
// .cpp, its line in each list here, and its step in exec/executor.cpp.
#include <type_traits>
#include <variant>

#include "tra/physical/ops/aggregate.hpp"
#include "tra/physical/ops/bcast.hpp"
#include "tra/physical/ops/carry.hpp"
#include "tra/physical/ops/filter.hpp"
#include "tra/physical/ops/join.hpp"
#include "tra/physical/ops/map.hpp"
#include "tra/physical/ops/scan.hpp"
#include "tra/physical/ops/shuffle.hpp"

namespace tra::physical {

using IaParams = std::variant<ScanParams, BcastParams, ShuffleParams, JoinParams, AggParams, FilterParams, MapParams, CarryParams>;

enum class IaKind { Scan, Bcast, Shuffle, LocalJoin, LocalAgg, LocalFilter, LocalMap, Carry };
constexpr int kIaKinds = static_cast<int>(std::variant_size_v<IaParams>);

// Each kind is its parameters' index in IaParams.
template <IaKind K, class Params>
constexpr bool kind_is = std::is_same_v<std::variant_alternative_t<static_cast<size_t>(K), IaParams>, Params>;
static_assert(kind_is<IaKind::Scan, ScanParams> && kind_is<IaKind::Bcast, BcastParams> && kind_is<IaKind::Shuffle, ShuffleParams> &&
                  kind_is<IaKind::LocalJoin, JoinParams> && kind_is<IaKind::LocalAgg, AggParams> && kind_is<IaKind::LocalFilter, FilterParams> &&
                  kind_is<IaKind::LocalMap, MapParams> && kind_is<IaKind::Carry, CarryParams> && static_cast<int>(IaKind::Carry) + 1 == kIaKinds,
              "IaKind names IaParams' alternatives, in their order");

}  // namespace tra::physical
