#pragma once
// The partitioners a deck chooses with `run: partitioner:` (docs/eindecomp.md).
//
//  eindecomp       the dynamic program of §8 over the whole graph (default)
//  sqrt            the paper's SQRT baseline (§9.2, Experiment 1): "to decompose
//                  a matrix into n parts, we simply slice the matrix √n ways
//                  vertically and √n ways horizontally" — every label, hence every
//                  dimension of every tensor, gets √p parts. For square matrix
//                  products that is the 3D algorithm (p^{3/2} kernel calls)
//  data-parallel   only the batch label of every statement gets p parts (data
//                  sharded, weights replicated, §1; TRA §6.3's DP): the label
//                  bound to a `batch:` tensor's batch dimension, followed
//                  through the graph — summed ones included, so a weight
//                  gradient is summed from p partial ones. A statement without
//                  one (a forward-only deck, an update) splits its first label
//                  (the row dimension)
//  model-parallel  only the last output label (the weights' output dimension:
//                  "the first m/n outputs at the first site", §1); a scalar
//                  output's last aggregated label instead
//  manual          only the deck's d's; other statements unpartitioned, or split
//                  by `default: rows` when the deck says so
//
// In every rule a label gets the largest power of two not above its share
// that divides its bound. A statement named under `run: partitioning:` keeps
// that d whatever the partitioner (it is pinned).
//
// p, the kernel calls per statement (§6), is the number of ranks times the
// over-decomposition factor. §8.1 assumes p = 2^N and power-of-two d's; with a
// rank count that is not a power of two, p is rounded up to the next one (§8.1:
// "p can be chosen to be larger than the number of available processors"), so
// 3 ranks plan for 4 kernel calls per statement.
#include <optional>
#include <string>

#include "tra/decomp/planner.hpp"

namespace tra::decomp {

using Partitioner = model::RunOptions::Partitioner;

using model::partitioner_name;
using model::partitioner_named;
using model::partitioner_names;  // the one name table is the model's

// p = round_up_to_power_of_two(nranks) × overdecomposition.
Index kernel_calls_wanted(int nranks, Index overdecomposition);

struct PartitionerOptions {
  Partitioner kind = Partitioner::EinDecomp;
  int nranks = 1;
  Index overdecomposition = 1;
  bool manual_rows = false;  // manual: unnamed statements split by `rows` (largest divisor of the first label's bound <= nranks)
};

// Every vertex's d, costed by §7.
Plan decompose(const Graph& g, const PartitionerOptions& o);

}  // namespace tra::decomp
