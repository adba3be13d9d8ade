#pragma once
// YAML deck → Workflow. Every error names file:line:column and what was
// expected; unknown keys are errors. docs/deck.md documents every key.
#include <string>
#include <vector>

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
// A deck given as text (rank 0 reads the file; every rank parses its text),
// reported under `name`, with the command line's --set overrides applied.
// --set PATH=VALUE: one deck value replaced from the command line
// (io/deck/deck_overrides.hpp applies it).
struct DeckOverride {
  std::string path;  // "tensors/X/shape"
  std::string value;  // YAML text: "[4096,512]", "sqrt"
  std::string written;  // the option as the user wrote it, where not --set ("--partitioner sqrt")
  std::string option() const { return written.empty() ? "--set " + path + "=" + value : written; }
};
// "PATH=VALUE"; a UserError naming the option when either part is missing.
DeckOverride parse_override(const std::string& arg);

Workflow parse_deck(const std::string& text, const std::string& name, const std::string& base_dir, const std::vector<DeckOverride>& overrides = {});

// "uniform(-1, 1, 7)" and friends.
Generator parse_generator(const std::string& text, const SourceLoc& where);

}  // namespace tra::io
