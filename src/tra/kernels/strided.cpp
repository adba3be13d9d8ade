#include "tra/kernels/strided.hpp"

namespace tra::kernels {

Shape row_major_strides(const Shape& shape) {
  Shape s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

}  // namespace tra::kernels
