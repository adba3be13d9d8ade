#pragma once
// Each kind of IA operator in one place (one file per kind): how the
// distribution, traffic and work of its relation are inferred from its inputs
// (TRA §5.3; infer.cpp runs them in plan order and checks what every kind
// shares), what it costs in time (cost_model.cpp sums them), and its
// parameters in words and their equality (ia_plan.cpp). Internal to physical/.
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
std::vector<const Key*> sorted_keys(const Distribution& d);    // a key on several sites as often; pointing into d
std::vector<const Key*> distinct_keys(const Distribution& d);  // each key once, sorted
std::string dims_list(const std::vector<int>& v);  // "<0,2>"
std::string key_text(const KeyFn& f);              // "idOp" or its steps

// ---- per kind: inference (fills the derived fields but type and
// scattering, which infer.cpp computes for all), time, text
void infer_scan(IaNode& n, const Context& c);
void infer_bcast(IaNode& n, const Context& c);
void infer_shuffle(IaNode& n, const Context& c);
void infer_join(IaNode& n, const Context& c);
void infer_aggregate(IaNode& n, const Context& c);
void infer_filter(IaNode& n, const Context& c);
void infer_map(IaNode& n, const Context& c);

double scan_seconds(const IaNode& n, const Rates& r);
double movement_seconds(const IaNode& n, const Rates& r);  // Bcast and Shuffle: latency + busiest site's bytes
double join_seconds(const IaNode& n, const Rates& r);
double aggregate_seconds(const IaNode& n, const Rates& r, bool gemm_folds);  // gemm_folds: its join adds the members in its GEMM
double map_seconds(const IaNode& n, const Rates& r);

std::string text(const ScanParams& p);
std::string text(const BcastParams& p);
std::string text(const ShuffleParams& p);
std::string text(const JoinParams& p);
std::string text(const AggParams& p);
std::string text(const FilterParams& p);
std::string text(const MapParams& p);

}  // namespace tra::physical::ops
