#pragma once
// How far rank 0 is inside one long local operator, on standard error:
//   [tra]   p7 ⋈L: 312 of 1024 kernel calls on rank 0, 15.0 s
// A GEMM join over large blocks can run for minutes; between operators the
// run says nothing, and a user cannot tell a slow run from a hung one. Short
// operators print nothing: the first line comes after `first_after` seconds
// in the operator, then one every `every` seconds.
#include <cstddef>
#include <string>

#include "tra/common/timer.hpp"

namespace tra::exec {

class OperatorProgress {
 public:
  OperatorProgress(std::string label, size_t total, double first_after = 10.0, double every = 10.0)
      : label_(std::move(label)), total_(total), next_(first_after), every_(every) {}
  void tick();  // before each kernel call: the ones before it are done

 private:
  std::string label_;
  size_t total_, done_ = 0;
  double next_, every_;
  Stopwatch clock_;
};

}  // namespace tra::exec
