#pragma once
// The invariants every IA plan keeps, checked after each step that makes or
// rewrites one (DuckDB's Verify after every optimizer pass): a rule that
// breaks one is found at the phase that ran it, not by a wrong result later.
//
//  * inputs precede their consumers, and each node has as many inputs as its
//    kind reads (ops/kind.hpp); roots and results name nodes of the plan;
//  * every node the roots need is inferred (not stale), its derived fields
//    are what inference makes of its parameters now (nothing kept from before
//    a rewrite), and it computes its relation correctly (infer.hpp);
//  * types and placements agree: join keys and groups name key dimensions of
//    their inputs, a placement's dims those of its relation, a Bcast's
//    result is on every site and a Shuffle's is not, a Scan has its source.
//
// Checking costs a full inference, so it runs where asked: in debug builds,
// in the tests (tests/support/test_main.cpp) and under TRA_VERIFY_PLANS=1.
#include <string>

#include "tra/physical/ia_plan.hpp"

namespace tra::physical {

// "" when `plan` keeps every invariant; else the first it breaks, "p<i>: why".
std::string plan_problem(const IaPlan& plan);

// Whether verify() checks: set_verifying's, else on in debug builds or with
// TRA_VERIFY_PLANS=1 in the environment.
bool verifying();
void set_verifying(bool on);

// When verifying, an InternalError naming `step` (the optimizer's phase, or
// "compile") and the broken invariant, with the plan's text.
void verify(const IaPlan& plan, const std::string& step);

}  // namespace tra::physical
