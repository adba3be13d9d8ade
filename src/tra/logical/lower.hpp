#pragma once
// Workflow → TRA plan. Checks the EinSum graph (undefined tensors, label and
// bound mismatches, use before definition), picks each statement's
// partitioning vector d (EinDecomp §4.4), and rewrites every statement into
// TRA: a join on the shared labels and an aggregation over the summed ones,
// with a re-chunking of an input wherever its chunk grid differs from d.
#include <map>

#include "tra/io/deck/workflow.hpp"
#include "tra/logical/tra_plan.hpp"

namespace tra::logical {

struct Lowering {
  TraPlan plan;
  std::map<std::string, int> tensor_node;                   // tensor -> node holding it last
  std::map<std::string, std::map<std::string, Index>> d;    // statement output -> label -> parts
};

Lowering lower(const io::Workflow& wf, int nranks);

}  // namespace tra::logical
