#pragma once
// What a search found besides its plan, as text one rank sends another: the
// kept edits (Optimized::steps) and what --explain shows of the search (its
// phases, rules, alternatives, notes and time). The ranks that did not
// optimize the labeling that won make its plan again from the steps
// (replay()) instead of searching (app/plan_deck.cpp).
#include <string>

#include "tra/physical/optimizer.hpp"

namespace tra::physical {

// o's steps and its search's report, as text (numbers exact: doubles in hex).
std::string search_record(const Optimized& o);

// The record read back into `o` (a replayed plan's, which has none of it):
// its steps, phases, rules, alternatives, notes and search time. An
// InternalError if the text is not one search_record() wrote.
void read_search_record(const std::string& text, Optimized& o);

// The plan another rank's search of `initial` chose, made from its record:
// replay() of its steps, with the record's report.
Optimized replay_search(const IaPlan& initial, const OptimizerOptions& options, const std::string& record);

}  // namespace tra::physical
