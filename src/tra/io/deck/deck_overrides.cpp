#include "tra/io/deck/deck_overrides.hpp"

#include <cctype>
#include <cstdint>
#include <sstream>

#include "tra/common/text.hpp"

namespace tra::io {
namespace {

[[noreturn]] void fail_option(const DeckOverride& o, const std::string& msg) { throw UserError(SourceLoc{o.option(), 0, 0}, msg); }

// Every node of a value an override placed (a list's elements, a mapping's
// keys and values), so that an error anywhere inside names the option.
// Bounded: aliases of aliases in a few bytes of a --set value can stand for
// billions of values, and each is recorded here with its option's text.
constexpr size_t kMaxValuesPerOverride = 100000;

void collect(const YAML::Node& n, const DeckOverride& o, PlacedNodes& out, size_t first = SIZE_MAX, int depth = 0) {
  if (depth > 200) return;  // an alias inside its own anchor: check_mapping_keys reports it
  if (first == SIZE_MAX) first = out.size();
  if (out.size() - first >= kMaxValuesPerOverride)
    fail_option(o, "the value stands for more than " + std::to_string(kMaxValuesPerOverride) + " values (aliases of aliases?)");
  const std::string option = o.option();
  out.emplace_back(n, option);
  if (n.IsSequence())
    for (const auto& e : n) collect(e, o, out, first, depth + 1);
  if (n.IsMap())
    for (auto it = n.begin(); it != n.end(); ++it) {
      collect(it->first, o, out, first, depth + 1);
      collect(it->second, o, out, first, depth + 1);
    }
}

bool is_index(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// The index of the element of a list that `part` names: its index, or the
// element whose name: (tensors) or tensor: (outputs) is `part`, when one
// element has it (an output list may write one tensor twice).
size_t list_element(const YAML::Node& list, const std::string& part, const std::string& at, const DeckOverride& o) {
  if (is_index(part)) {
    const size_t i = std::stoul(part);
    if (i >= list.size())
      fail_option(o, "'" + at + "' is a list of " + std::to_string(list.size()) + "; there is no element " + part + " (elements count from 0)");
    return i;
  }
  std::string names, matches;
  size_t found = 0, count = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node e = list[i];
    if (!e.IsMap()) continue;
    for (const char* key : {"name", "tensor"}) {
      const YAML::Node k = e[key];
      if (!k || !k.IsScalar()) continue;
      if (k.Scalar() == part) {
        found = i;
        ++count;
        matches += (matches.empty() ? "" : ", ") + std::to_string(i);
      }
      names += (names.empty() ? "" : ", ") + k.Scalar();
    }
  }
  if (count > 1)
    fail_option(o, "'" + at + "' has " + std::to_string(count) + " elements named '" + part + "' (at " + matches + "); choose one by its index");
  if (count == 0)
    fail_option(o, "'" + at + "' has no element named '" + part + "'" + (names.empty() ? std::string() : " (it has " + names + ")") +
                       "; choose one by its name or its index from 0");
  return found;
}

// `map[key] = value` without touching what else shares the old value: a
// YAML alias (`shape: *s`) is the anchor's node itself, and assigning to it
// would change the anchor's place too. (The key moves to the mapping's end;
// the deck reader looks keys up by name.)
void put(YAML::Node& map, const std::string& key, const YAML::Node& value) {
  if (map[key]) map.remove(key);
  map[key] = value;
}

// A copy of `list` with element i replaced (the list may be shared too).
YAML::Node with_element(const YAML::Node& list, size_t i, const YAML::Node& value) {
  YAML::Node out(YAML::NodeType::Sequence);
  for (size_t k = 0; k < list.size(); ++k) out.push_back(k == i ? value : list[k]);
  return out;
}

void apply(YAML::Node& root, const DeckOverride& o, PlacedNodes& placed) {
  std::vector<std::string> parts;
  std::stringstream ss(o.path);
  for (std::string p; std::getline(ss, p, '/');) {
    if (p.empty()) fail_option(o, "the path '" + o.path + "' has an empty part; write parts between single slashes, as run/partitioner");
    parts.push_back(p);
  }
  YAML::Node value;
  try {
    value = YAML::Load(o.value);
  } catch (const YAML::Exception& e) {
    fail_option(o, "the value is not YAML: " + e.msg);
  }
  if (!value || value.IsNull()) fail_option(o, "no value after '='; give one, as --set run/partitioner=sqrt");
  collect(value, o, placed);
  // Down the path: `at` is the current node, held in `parent` under
  // `parent_key` (a mapping key; the root has none).
  YAML::Node at = root, parent;
  std::string path, parent_key;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    const bool last = i + 1 == parts.size();
    const std::string here = path.empty() ? std::string("the deck") : path;
    path += (path.empty() ? "" : "/") + part;
    if (at.IsSequence()) {
      const size_t k = list_element(at, part, here, o);
      if (last) {
        if (parent_key.empty()) fail_option(o, "'" + here + "' is a list inside a list; replace the outer list's element whole");
        put(parent, parent_key, with_element(at, k, value));
        return;
      }
      YAML::Node next = at[k];
      if (!next.IsMap()) fail_option(o, "'" + path + "' is a single value or a list; it has no part '" + parts[i + 1] + "'");
      parent.reset(at);
      parent_key.clear();  // (a list element is changed inside; only a whole list is replaced)
      at.reset(next);
      continue;
    }
    if (!at.IsMap()) fail_option(o, "'" + here + "' is a single value; it has no part '" + part + "'");
    const bool missing = !at[part] || (!last && at[part].IsNull());  // `run:` with nothing under it is an empty mapping
    // A sweep's typo must not run the deck's default without a word.
    if (missing && path == "params/" + part) {
      std::string names;
      for (auto it = at.begin(); it != at.end(); ++it) names += (names.empty() ? "" : ", ") + it->first.Scalar();
      fail_option(o, "the deck declares no parameter '" + part + "'" +
                         (names.empty() ? std::string(" (it has no params: block)") : " (its params: are " + names + ")"));
    }
    if (last || missing) {
      put(at, part, last ? value : YAML::Node(YAML::NodeType::Map));
      for (auto it = at.begin(); it != at.end(); ++it)
        if (it->first.IsScalar() && it->first.Scalar() == part) {
          placed.emplace_back(it->first, o.option());
          placed.emplace_back(it->second, o.option());
        }
      if (last) return;
    }
    YAML::Node next = at[part];
    parent.reset(at);
    parent_key = part;
    at.reset(next);
  }
}

class ParamSubstitution {
 public:
  ParamSubstitution(std::vector<model::DeckParam>& params, const std::string& deck, const PlacedNodes& placed, SubstitutedNodes& substituted)
      : params_(params), deck_(deck), placed_(placed), substituted_(substituted) {}

  void walk(YAML::Node n, int depth = 0) {
    if (depth > 200) return;  // check_mapping_keys has reported such a deck
    if (n.IsScalar()) {
      replace(n);
    } else if (n.IsSequence()) {
      for (size_t i = 0; i < n.size(); ++i) walk(n[i], depth + 1);
    } else if (n.IsMap()) {
      for (auto it = n.begin(); it != n.end(); ++it) {
        if (depth == 0 && it->first.Scalar() == "params") continue;
        YAML::Node key = it->first;  // keys too: run: partitioning: names statements and labels
        replace(key);
        walk(it->second, depth + 1);
      }
    }
  }

 private:
  // A scalar with a `$`, once: an aliased scalar is one node met at each
  // of its places, and `$$` must not become `$` and then a reference.
  void replace(YAML::Node& n) {
    if (n.Scalar().find('$') == std::string::npos) return;
    for (const auto& d : substituted_)
      if (d.first.is(n)) return;
    std::vector<int> offsets;
    n = substitute(n, offsets);
    substituted_.emplace_back(n, std::move(offsets));
  }

  // The text with every reference replaced; `offsets`: where each of its
  // characters is written (a value's characters: at its '$').
  std::string substitute(const YAML::Node& n, std::vector<int>& offsets) {
    const std::string& text = n.Scalar();
    std::string out;
    const auto put = [&](const std::string& part, size_t at) {
      out += part;
      offsets.insert(offsets.end(), part.size(), static_cast<int>(at));
    };
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] != '$') {
        put(std::string(1, text[i]), i);
        continue;
      }
      if (i + 1 < text.size() && text[i + 1] == '$') {
        put("$", i);
        ++i;
        continue;
      }
      const bool braced = i + 1 < text.size() && text[i + 1] == '{';
      size_t from = i + (braced ? 2 : 1), to = from;
      if (to < text.size() && identifier_start(text[to]))
        while (to < text.size() && identifier_char(text[to])) ++to;
      if (to == from || (braced && (to >= text.size() || text[to] != '}')))
        fail(n, i, "'$' starts a parameter reference ($n or ${n}, n declared in params:); write $$ for a dollar sign");
      put(value_of(n, i, text.substr(from, to - from)), i);
      i = braced ? to : to - 1;
    }
    offsets.push_back(static_cast<int>(text.size()));  // the end
    return out;
  }

  const std::string& value_of(const YAML::Node& n, size_t at, const std::string& name) {
    for (auto& p : params_)
      if (p.name == name) {
        p.used = true;
        return p.value;
      }
    std::string names;
    for (const auto& p : params_) names += (names.empty() ? "" : ", ") + p.name;
    fail(n, at, "unknown parameter '$" + name + "'; " + (names.empty() ? std::string("the deck has no params: block") : "params: declares " + names));
  }

  // At the '$' (`at` characters into the text; past the quote of a quoted
  // value), where the value is written in the deck.
  [[noreturn]] void fail(const YAML::Node& n, size_t at, const std::string& msg) const {
    SourceLoc l = node_loc(n, deck_, placed_);
    if (l.known()) l = l.shifted(static_cast<int>(at) + (n.Tag() == "!" ? 1 : 0));
    throw UserError(l, msg);
  }

  std::vector<model::DeckParam>& params_;
  const std::string& deck_;
  const PlacedNodes& placed_;
  SubstitutedNodes& substituted_;  // scalars substituted already
};

}  // namespace

DeckOverride parse_override(const std::string& arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UserError("--set " + arg + ": expected PATH=VALUE, as --set run/partitioner=sqrt or --set tensors/X/shape=[4096,512]");
  return {arg.substr(0, eq), arg.substr(eq + 1), ""};
}

SourceLoc node_loc(const YAML::Node& n, const std::string& deck, const PlacedNodes& placed) {
  for (const auto& [node, option] : placed)
    if (node.is(n)) return SourceLoc(option, 0);
  return SourceLoc(deck, n.Mark().line + 1, n.Mark().column + 1);
}

PlacedNodes apply_overrides(YAML::Node& root, const std::vector<DeckOverride>& overrides) {
  PlacedNodes placed;
  for (const auto& o : overrides) apply(root, o, placed);
  return placed;
}

std::vector<model::DeckParam> substitute_params(YAML::Node& root, const std::string& deck, const PlacedNodes& placed, SubstitutedNodes& substituted) {
  std::vector<model::DeckParam> params;
  if (const YAML::Node block = root["params"]) {
    const SourceLoc where = node_loc(block, deck, placed);
    if (!block.IsMap()) throw UserError(where, "'params' is a mapping of names to values, as {n: 4096, seed: 7}; refer to one as $n");
    for (auto it = block.begin(); it != block.end(); ++it) {
      const std::string name = it->first.Scalar();
      const SourceLoc at = node_loc(it->first, deck, placed);
      if (!is_identifier(name)) throw UserError(at, "parameter name '" + name + "' must be a letter or '_' followed by letters, digits or '_'");
      if (!it->second.IsScalar())
        throw UserError(node_loc(it->second, deck, placed),
                        "parameter '" + name + "' must be a single value (a number or a word), not a list or a mapping");
      if (it->second.Scalar().find('$') != std::string::npos)
        throw UserError(node_loc(it->second, deck, placed), "parameter '" + name + "' refers to another; a parameter's value is written out");
      params.push_back({name, it->second.Scalar(), at, false});
    }
  }
  ParamSubstitution(params, deck, placed, substituted).walk(root);
  return params;
}

}  // namespace tra::io
