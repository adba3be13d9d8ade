#pragma once
// What every kind of IA operator declares beside its parameters. A kind is
// one parameters type with these constants and its functions
// (ops/<kind>.hpp): how its relation is inferred from its inputs, its time,
// its parameters as text, what it does in words (derived from them, for
// EXPLAIN), the bytes of its result that are its input's chunks, and whether
// its keys and placement agree with its types, defined in ops/<kind>.cpp.
// ops/kinds.hpp lists the kinds; infer,
// the cost model, the memory estimate, EXPLAIN and the executor each reach a
// kind's functions by one std::visit, so a kind missing one of them does not
// build.
//
//   static constexpr const char* kName;  // in EXPLAIN ("Scan", "⋈L")
//   static constexpr Role kRole;
//   static constexpr bool kPlaced;       // its own placement says where its tuples are
//   static constexpr bool kOwnType;      // its key arity and chunk shape are its out_type's (else its input's)
//   static constexpr int kInputs;        // how many inputs it reads
namespace tra::physical {

// What an operator does with tuples: reads them in, moves them between
// sites, or computes on each site's own (EXPLAIN's pictures tell them apart).
enum class Role { Read, Move, Compute };

struct IaNode;
struct Rates;

namespace ops {
struct Context;
}  // namespace ops

}  // namespace tra::physical
