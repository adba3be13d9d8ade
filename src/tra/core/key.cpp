#include "tra/core/key.hpp"

#include <algorithm>

#include <sstream>
#include <stdexcept>

#include "tra/common/error.hpp"

namespace tra {

void IndexVector::throw_range(size_type i) { throw std::out_of_range("IndexVector::at(" + std::to_string(i) + ")"); }

Index volume(const Shape& shape) {
  Index n = 1;
  for (Index e : shape) n *= e;
  return n;
}

Index linearize(const Key& key, const Shape& frontier) {
  TRA_ASSERT(key.size() == frontier.size(), "key " << to_string(key) << " vs frontier " << to_string(frontier));
  Index pos = 0;
  for (size_t i = 0; i < key.size(); ++i) pos = pos * frontier[i] + key[i];
  return pos;
}

Key delinearize(Index position, const Shape& frontier) {
  Key key(frontier.size());
  for (size_t i = frontier.size(); i-- > 0;) {
    key[i] = position % frontier[i];
    position /= frontier[i];
  }
  return key;
}

std::string to_string(const IndexVector& v) {
  std::ostringstream os;
  os << '<';
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << '>';
  return os.str();
}

std::string shape_string(const Shape& s) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << ']';
  return os.str();
}

void for_each_key(const Shape& frontier, const std::function<void(const Key&)>& visit) {
  const Index n = volume(frontier);
  Key key(frontier.size(), 0);
  for (Index p = 0; p < n; ++p) {
    visit(key);
    for (size_t i = frontier.size(); i-- > 0;) {
      if (++key[i] < frontier[i]) break;
      key[i] = 0;
    }
  }
}

std::vector<int> complement(int n, const std::vector<int>& drop) {
  std::vector<int> out;
  for (int i = 0; i < n; ++i)
    if (std::find(drop.begin(), drop.end(), i) == drop.end()) out.push_back(i);
  return out;
}

Key project(const Key& key, const std::vector<int>& positions) {
  Key out;
  out.reserve(positions.size());
  for (int p : positions) out.push_back(key.at(static_cast<size_t>(p)));
  return out;
}

size_t KeyHash::operator()(const Key& k) const noexcept {
  size_t h = 0x9e3779b97f4a7c15ULL;
  for (Index v : k) h ^= std::hash<Index>()(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

}  // namespace tra
