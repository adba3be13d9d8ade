#include "tra/core/rel_type.hpp"

#include "tra/common/error.hpp"

namespace tra {

Shape RelType::tensor_shape() const {
  TRA_ASSERT(standard(), "tensor_shape of a relation not in standard form: " << str());
  Shape s(frontier.size());
  for (size_t i = 0; i < s.size(); ++i) s[i] = frontier[i] * chunk_shape[i];
  return s;
}

std::string RelType::str() const {
  return "f=" + shape_string(frontier) + " b=" + shape_string(chunk_shape) + (dtype == DType::Float64 ? "" : std::string(" ") + dtype_name(dtype));
}

}  // namespace tra
