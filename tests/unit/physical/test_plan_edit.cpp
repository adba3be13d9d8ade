// The order the search keeps after each edit (plan_edit.hpp): the short way
// (topological_order_after_edit) gives exactly what Kahn's algorithm over
// the ranks the search uses gives, after edits that keep the order, edits
// that append a node below an earlier one, and edits that bring a dead node
// back.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>

#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"
#include "tra/physical/compile.hpp"
#include "tra/physical/plan_edit.hpp"

namespace tra::physical {
namespace {

// The ranks the search ordered its plan by: places in `before`, then the
// appended nodes, then the others.
std::vector<int> ranks(const IaPlan& p, const std::vector<int>& before, size_t size_before) {
  std::vector<int> rank(p.nodes.size(), std::numeric_limits<int>::max());
  for (size_t k = 0; k < before.size(); ++k) rank[static_cast<size_t>(before[k])] = static_cast<int>(k);
  for (size_t i = size_before; i < p.nodes.size(); ++i) rank[i] = static_cast<int>(before.size() + (i - size_before));
  return rank;
}

bool inputs_first(const IaPlan& p, const std::vector<int>& order) {
  std::vector<int> at(p.nodes.size(), -1);
  for (size_t k = 0; k < order.size(); ++k) at[static_cast<size_t>(order[k])] = static_cast<int>(k);
  for (int i : order)
    for (int j : p.node(i).inputs)
      if (at[static_cast<size_t>(j)] < 0 || at[static_cast<size_t>(j)] >= at[static_cast<size_t>(i)]) return false;
  return true;
}

TEST(PlanEdit, TheOrderAfterAnEditIsKahnsOverTheSearchsRanks) {
  const model::Workflow wf = io::read_deck(std::string(TRA_INPUTS_DIR) + "/attention.yaml");
  IaPlan p = compile(logical::lower(wf, 4).plan, 4);
  normalize(p);
  std::vector<int> order = topological_order(p);
  std::mt19937 rng(7);
  int reordered = 0;
  for (int edit = 0; edit < 300; ++edit) {
    const size_t size_before = p.nodes.size();
    const std::vector<int> before = order;
    const int consumer = before[std::uniform_int_distribution<size_t>(0, before.size() - 1)(rng)];
    if (p.node(consumer).inputs.empty()) continue;
    const int input = p.node(consumer).inputs[0];
    switch (edit % 3) {
      case 0: {  // a Bcast appended between a node and its first input: appended below an earlier node
        const int b = add_node(p, make_bcast(input));
        p.node(consumer).inputs[0] = b;
        break;
      }
      case 1:  // every use of the input moved to a new Bcast of it
        redirect(p, input, add_node(p, make_bcast(input)));
        break;
      default:  // a dead node read again: the input of the input, if any, read directly
        if (!p.node(input).inputs.empty()) p.node(consumer).inputs[0] = p.node(input).inputs[0];
        break;
    }
    order = topological_order_after_edit(p, before, size_before);
    ASSERT_EQ(order, topological_order(p, ranks(p, before, size_before))) << "edit " << edit;
    ASSERT_TRUE(inputs_first(p, order)) << "edit " << edit;
    if (order.size() >= before.size() && !std::equal(before.begin(), before.end(), order.begin())) ++reordered;
  }
  EXPECT_GT(reordered, 50);  // the edits did move nodes ahead of the ones they feed
}

}  // namespace
}  // namespace tra::physical
