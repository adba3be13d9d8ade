#pragma once
// What the command line and a deck's params: block change in the deck before
// it is read (docs/deck.md, "params and --set"):
//   --set run/partitioner=sqrt          a value replaced (or added)
//   --set tensors/X/shape=[4096,512]    a list element chosen by its name
//   params: {n: 4096} and $n / ${n}     one value named once, used anywhere
// Both work on the YAML tree, so the deck reader checks the result as it
// checks any deck; a value an override placed is reported at its option.
#include <yaml-cpp/yaml.h>

#include <string>
#include <utility>
#include <vector>

#include "tra/io/deck/deck_reader.hpp"
#include "tra/model/workflow.hpp"

namespace tra::io {

// Nodes an override placed, with its option: an error found in one of them
// names the option rather than a line of the deck.
using PlacedNodes = std::vector<std::pair<YAML::Node, std::string>>;

// Where `n` is written: file:line:column of the deck, or the option that
// placed it.
SourceLoc node_loc(const YAML::Node& n, const std::string& deck, const PlacedNodes& placed);

// Applies each override in order. A missing mapping key is added (the deck
// reader then rejects a key it does not know); a list element is chosen by
// its index or by its `name:` or `tensor:` value.
PlacedNodes apply_overrides(YAML::Node& root, const std::vector<DeckOverride>& overrides);

// Scalars whose text a parameter changed, each with where its characters
// are written in the deck (SourceLoc::offsets), so that an error found in
// the substituted text points into the deck's own.
using SubstitutedNodes = std::vector<std::pair<YAML::Node, std::vector<int>>>;

// Reads `params:` and replaces $NAME and ${NAME} in every other value of the
// deck ($$ is a dollar sign). `deck` names the file for error locations;
// `placed` are the overrides' nodes, reported at their option.
std::vector<model::DeckParam> substitute_params(YAML::Node& root, const std::string& deck, const PlacedNodes& placed, SubstitutedNodes& substituted);

}  // namespace tra::io
