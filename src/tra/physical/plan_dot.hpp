#pragma once
// An IA plan as a Graphviz graph (tra-run --explain=dot): one node per
// operator, labelled with its kind, parameters, placement and the floats it
// moves; edges from inputs to consumers; the operators that implement one
// TRA node boxed together. `dot -Tsvg` draws it.
#include <string>

#include "tra/physical/ia_plan.hpp"

namespace tra::physical {

std::string plan_dot(const IaPlan& plan, const std::string& title);

}  // namespace tra::physical
