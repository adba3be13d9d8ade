#pragma once
// What an element loop calls for ⊗ on each element: the program's compiled
// form (einsum/compiled_forms.hpp) where it has one, else the interpreter.
// Both are small values a kernel captures by value, on a host or a device,
// with the same two calls: e(a, b) for one element, e.block(a, b, out, n)
// for a host's block of n <= ScalarProgram::kBlock elements (b may be null
// for a program of one input: it reads 0 there).
#include <type_traits>

#include "tra/einsum/compiled_forms.hpp"

namespace tra::kernels {

template <class T>
struct Interpreted {
  einsum::ScalarProgram prog;
  KOKKOS_INLINE_FUNCTION T operator()(T a, T b) const { return prog.eval_as<T>(a, b); }
  void block(const T* a, const T* b, T* out, int n) const { prog.eval_block(a, b, out, n); }
};

template <class Form, class T>
struct Compiled {
  T c[einsum::kFormConsts] = {};  // the program's constants, rounded to T as the interpreter rounds them
  KOKKOS_INLINE_FUNCTION T operator()(T a, T b) const { return Form::template f<T>(a, b, c); }
  void block(const T* a, const T* b, T* out, int n) const {
    T k[einsum::kFormConsts];  // a local copy: out cannot alias it, so it stays in registers
    for (int i = 0; i < einsum::kFormConsts; ++i) k[i] = c[i];
    if (b)
      for (int i = 0; i < n; ++i) out[i] = Form::template f<T>(a[i], b[i], k);
    else
      for (int i = 0; i < n; ++i) out[i] = Form::template f<T>(a[i], T(0), k);
  }
};

// Whether the loops use compiled forms: unless TRA_ELEMENT_PROGRAMS is
// "interpreted" (to compare the two, or to rule a form out when a result is
// in doubt). Decided on first use and kept; a value other than "compiled"
// or "interpreted" is a UserError naming the variable.
bool compiled_forms_enabled();
// The decision from the variable's value (null where unset).
bool decide_compiled_forms(const char* value);

// fn(e) with p's evaluator on elements of type T: its compiled form's, or
// the interpreter.
template <class T, class Fn>
void with_evaluator(const einsum::ScalarProgram& p, const Fn& fn) {
  const bool compiled = compiled_forms_enabled() && einsum::with_form(p, [&](auto* form, const double* c) {
                          Compiled<std::remove_pointer_t<decltype(form)>, T> e;
                          for (int i = 0; i < einsum::kFormConsts; ++i) e.c[i] = static_cast<T>(c[i]);
                          fn(e);
                        });
  if (!compiled) fn(Interpreted<T>{p});
}

}  // namespace tra::kernels
