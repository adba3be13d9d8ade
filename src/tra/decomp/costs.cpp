#include "tra/decomp/costs.hpp"

#include <algorithm>

#include "tra/decomp/viable.hpp"

namespace tra::decomp {
namespace {

// Floats in one sub-tensor: ∏ b[i] / d[i] over the given label positions.
double chunk_floats(const Vertex& v, const Partitioning& d, const std::vector<int>& pos) {
  double n = 1;
  for (int l : pos) n *= static_cast<double>(v.bound[static_cast<size_t>(l)]) / static_cast<double>(d[static_cast<size_t>(l)]);
  return n;
}

}  // namespace

double cost_join(const Vertex& v, const Partitioning& d, double p) {
  double inputs = 0;
  for (const auto& in : v.inputs) inputs += chunk_floats(v, d, in.label_pos);
  return p * inputs;
}

double cost_join(const Vertex& v, const Partitioning& d) { return cost_join(v, d, static_cast<double>(kernel_calls(v, d))); }

double cost_agg(const Vertex& v, const Partitioning& d) {
  double n_agg = 1;
  for (size_t l = 0; l < v.labels.size(); ++l)
    if (std::find(v.output_pos.begin(), v.output_pos.end(), static_cast<int>(l)) == v.output_pos.end()) n_agg *= static_cast<double>(d[l]);
  const double p = static_cast<double>(kernel_calls(v, d));
  return p / n_agg * (n_agg - 1) * chunk_floats(v, d, v.output_pos);
}

double cost_repart(const Shape& from_grid, const Shape& to_grid, const Shape& bound) {
  if (from_grid == to_grid) return 0;
  double n_p = 1, n_c = 1, n_int = 1, n = 1;
  for (size_t i = 0; i < bound.size(); ++i) {
    const double b = static_cast<double>(bound[i]);
    const double producer = b / static_cast<double>(from_grid[i]), consumer = b / static_cast<double>(to_grid[i]);
    n_p *= producer;
    n_c *= consumer;
    n_int *= std::min(producer, consumer);
    n *= b;
  }
  double cost = (n_c / n_int - 1) * n / n_c * (n_c + n_p);
  if (n_p != n_int) cost += n_p * n / n_c;
  return cost;
}

double StatementCost::total() const {
  double t = join + agg;
  for (const auto& [_, c] : repart) t += c;
  return t;
}

}  // namespace tra::decomp
