#include "tra/einsum/compiled_forms.hpp"

#include <type_traits>

namespace tra::einsum {

const char* compiled_form(const ScalarProgram& p) {
  const char* text = nullptr;
  with_form(p, [&](auto* form, const double*) { text = std::remove_pointer_t<decltype(form)>::text; });
  return text;
}

}  // namespace tra::einsum
