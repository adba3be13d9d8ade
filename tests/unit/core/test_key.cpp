// Keys, frontiers, placement and the §3.2 integrity constraints (TRA paper).
#include <gtest/gtest.h>

#include "tra/core/placement.hpp"
#include "tra/core/tensor_relation.hpp"
