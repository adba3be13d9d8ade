#include "tra/kernels/element_evaluators.hpp"

#include <cstdlib>
#include <string>

#include "tra/common/error.hpp"

namespace tra::kernels {

bool decide_compiled_forms(const char* value) {
  if (!value) return true;
  const std::string v = value;
  if (v != "compiled" && v != "interpreted")
    throw UserError("TRA_ELEMENT_PROGRAMS=" + v + ": expected compiled (the default) or interpreted, or leave it unset");
  return v == "compiled";
}

bool compiled_forms_enabled() {
  static const bool on = decide_compiled_forms(std::getenv("TRA_ELEMENT_PROGRAMS"));
  return on;
}

}  // namespace tra::kernels
