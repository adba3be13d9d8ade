#pragma once
// Data read once. A training run whose data inputs all fit beside its plan
// keeps the tuples each data Scan reads (a batch tensor's, by batch origin;
// a tensor read whole, such as a graph's sparse adjacency or a full-graph
// feature matrix, at the empty origin), by Scan node, and the Scans of a
// later iteration return them instead of reading the HDF5 file again. On a
// GPU the tuples stay in device memory, so data seen before costs neither a
// read nor a copy to the device (measured on an H200: the XML-like step read
// 134 MB per iteration, 70 ms of its 75 ms).
//
// The tuples are shared, not copied: an operator overwrites a chunk in
// place only when it holds the sole reference to it (exec/bound_kernels.cpp),
// so a kept batch stays as it was read.
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "tra/core/tensor_relation.hpp"

namespace tra::exec {

class InputCache {
 public:
  // Keeps what the Scans `nodes` read, and nothing else (the training loop
  // chooses them: the data it reads more than once, app/kept_inputs.hpp).
  explicit InputCache(std::set<int> nodes) : nodes_(std::move(nodes)) {}
  bool keeps(int node) const { return nodes_.count(node) > 0; }
  bool keeps_any() const { return !nodes_.empty(); }
  // The tuples Scan `node` read at `origin` before, or null.
  const std::vector<Tuple>* find(int node, const Shape& origin) const {
    const auto it = kept_.find({node, origin});
    return it == kept_.end() ? nullptr : &it->second;
  }
  void keep(int node, const Shape& origin, const std::vector<Tuple>& tuples) { kept_[{node, origin}] = tuples; }

 private:
  std::set<int> nodes_;
  std::map<std::pair<int, Shape>, std::vector<Tuple>> kept_;
};

}  // namespace tra::exec
