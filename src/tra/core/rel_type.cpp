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
  return "f=" + shape_string(frontier) + " b=" + shape_string(chunk_shape) + (dtype == DType::Float64 ? "" : std::string(" ") + dtype_name(dtype)) +
         (sparse() ? " sparse, " + std::to_string(static_cast<Index>(stored + 0.5)) + " entries per block" : "");
}

double RelType::bytes_per_tuple() const {
  const double element = static_cast<double>(element_bytes(dtype));
  if (!sparse()) return static_cast<double>(volume(chunk_shape)) * element;
  const double offsets = static_cast<double>(chunk_shape.at(0) + chunk_shape.at(1) + 2) * sizeof(int);
  return 2 * stored * (element + sizeof(int)) + offsets;
}

}  // namespace tra
