#pragma once
// YAML deck → Workflow. Every error names file:line:column and what was
// expected; unknown keys are errors. docs/deck.md documents every key.
#include <string>

#include "tra/model/workflow.hpp"

namespace tra::io {

// The model the readers fill (model/workflow.hpp).
using model::Generator;
using model::Workflow;

Workflow read_deck(const std::string& path);
// The deck file's text (a UserError naming the path and the system's reason
// when it cannot be read), and the folder its relative paths start from.
std::string read_deck_text(const std::string& path);
std::string deck_folder(const std::string& path);
// For tests: a deck given as text, reported under `name`.
Workflow parse_deck(const std::string& text, const std::string& name, const std::string& base_dir);

// "uniform(-1, 1, 7)" and friends.
Generator parse_generator(const std::string& text, const SourceLoc& where);

}  // namespace tra::io
