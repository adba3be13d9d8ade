#pragma once
// What the kinds of IA operator share (ops/<kind>.hpp declares each kind's
// parameters and functions, ops/kind.hpp what every kind declares): how the
// distribution, traffic and work of its relation are inferred from its inputs
// (TRA §5.3; infer.cpp runs them in plan order and checks what every kind
// shares), what it costs in time (cost_model.cpp sums them), and its
// parameters in words and their equality (ia_plan.cpp). Internal to physical/.
#include <cstdint>
#include <string>
#include <vector>

#include "tra/physical/calibration.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::physical::ops {

constexpr int kEverySite = -1;  // the site of a tuple on every site

// What a kind's inference reads besides its own node: the plan (its inputs,
// inferred already) and the number of sites.
struct Context {
  const IaPlan& plan;
  int nsites;
  const IaNode& in(const IaNode& n, size_t k = 0) const { return plan.node(n.inputs.at(k)); }
};

// ---- shared by the kinds (common.cpp)
std::vector<Index> per_site(const Distribution& d, int s);  // tuples per site (everywhere: all on every site)
Index max_of(const std::vector<Index>& v);
// The fixed costs of a node that calls kernels at its busiest site: the
// operator's own (Rates::operator_seconds) and a call's per call
// (IaNode::site_calls). 0 for one that calls none.
double fixed_seconds(const IaNode& n, const Rates& r);
std::vector<const Key*> sorted_keys(const Distribution& d);  // a key on several sites as often; pointing into d
std::vector<const Key*> distinct_keys(const Distribution& d);  // each key once, sorted
std::string dims_list(const std::vector<int>& v);  // "<0,2>"
std::string key_text(const KeyFn& f);  // "idOp" or its steps

// Whether `dims` are all key dimensions of an arity-`arity` relation.
bool dims_below(const std::vector<int>& dims, int arity);
// A Part placement naming a dimension a relation of `arity` lacks, in words, or "".
std::string placement_problem(const Placement& p, int arity);

// Per site, the bytes of n's result (every kind's bytes_passed_through
// starts from it).
std::vector<std::int64_t> held_bytes(const IaNode& n, int nsites);
// What a broadcast of `in` (a Bcast, a Carry onto every site) hands on per
// site: on one site nothing moves and the input is the result; on more,
// every tuple of the result, a site's own too, lies in the buffer the
// collective filled (comm/exchange.cpp), so nothing.
std::vector<std::int64_t> broadcast_passes_through(const IaNode& in, int nsites);

}  // namespace tra::physical::ops
