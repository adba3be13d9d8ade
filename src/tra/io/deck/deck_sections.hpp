#pragma once
// The sections of a deck, each read by its own file (internal to io/deck/):
// tensors (deck_tensors.cpp), graph (deck_graph.cpp), outputs
// (deck_outputs.cpp), run (deck_run.cpp) and train (deck_train.cpp). Each
// checks its own keys and values and names the offending place.
#include "tra/io/deck/deck_values.hpp"

namespace tra::io::deck {

void read_tensors(const DeckValues& values, const YAML::Node& list, Workflow& wf);
void read_graph(const DeckValues& values, const YAML::Node& list, Workflow& wf);
void read_outputs(const DeckValues& values, const YAML::Node& list, Workflow& wf);
void read_run(const DeckValues& values, const YAML::Node& run, Workflow& wf);
void read_train(const DeckValues& values, const YAML::Node& train, Workflow& wf);

}  // namespace tra::io::deck
