#pragma once
// The program of a compiled form (einsum/compiled_forms.hpp) with the
// given constants, in the order it pushes them: what a test runs through
// the form and through the interpreter.
#include "tra/einsum/compiled_forms.hpp"

namespace tra::testing {

template <class F>
einsum::ScalarProgram form_program(const double* c) {
  einsum::ScalarProgram p;
  int k = 0;
  for (einsum::Op op : F::ops) {
    if (op == einsum::Op::Const) p.imm[p.size] = c[k++];
    p.ops[p.size++] = op;
  }
  return p;
}

}  // namespace tra::testing
