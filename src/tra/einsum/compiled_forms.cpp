#include "tra/einsum/compiled_forms.hpp"

namespace tra::einsum {

namespace {

template <class... F>
const char* form_text(const ScalarProgram& p, std::tuple<F...>*) {
  double c[kFormConsts];
  const char* text = nullptr;
  static_cast<void>(((is_form<F>(p, c) ? (text = F::text, true) : false) || ...));
  return text;
}

}  // namespace

const char* compiled_form(const ScalarProgram& p) { return form_text(p, static_cast<forms::All*>(nullptr)); }

}  // namespace tra::einsum
