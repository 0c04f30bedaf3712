//===- SimExecutionTest.cpp - cuda-sim's ldmatrix is the PTX ISA's --------===//
//
// The tensor-core contraction loads its mma fragments with ldmatrix, which
// cuda-sim executes with ldmatrixFragments. A wrong fragment there would
// agree with a wrong kernel and only show on a GPU: here every lane,
// matrix and element of .x1/.x2/.x4, with and without .trans, is compared
// with the PTX ISA's description ("Warp-level matrix load instruction:
// ldmatrix"), transcribed independently: lane l holds elements
// (l / 4, 2 (l % 4)) and (l / 4, 2 (l % 4) + 1) of each matrix, the first
// in the low 16 bits; .trans loads the matrix transposed (column-major);
// row r of matrix j is at the address lane 8 j + r supplies.
//
//===----------------------------------------------------------------------===//
#include "bwc/Runtime/CudaSim.h"

#include <gtest/gtest.h>

namespace {

TEST(SimLdMatrix, FragmentsAreTheIsaTable) {
  // Matrix j, row r, column c holds 1000 j + 10 r + c; the rows sit in
  // scrambled order in memory, reached only through the row addresses.
  uint16_t memory[4][8][8];
  const uint8_t *rows[32];
  for (int j = 0; j < 4; ++j)
    for (int r = 0; r < 8; ++r) {
      int slot = (r * 5 + j) % 8; // a permutation of the 8 rows
      for (int c = 0; c < 8; ++c)
        memory[j][slot][c] = uint16_t(1000 * j + 10 * r + c);
      rows[8 * j + r] = reinterpret_cast<const uint8_t *>(memory[j][slot]);
    }
  for (int tiles : {1, 2, 4})
    for (bool trans : {false, true}) {
      uint32_t out[32][4] = {};
      bwc::rt::sim::ldmatrixFragments(rows, tiles, trans, out);
      for (int lane = 0; lane < 32; ++lane)
        for (int j = 0; j < tiles; ++j)
          for (int e = 0; e < 2; ++e) {
            int row = lane / 4, col = 2 * (lane % 4) + e;
            // .trans: element (row, col) of the fragment is element
            // (col, row) of the matrix in memory.
            int r = trans ? col : row, c = trans ? row : col;
            uint16_t expected = uint16_t(1000 * j + 10 * r + c);
            uint16_t got = uint16_t(out[lane][j] >> (16 * e));
            EXPECT_EQ(got, expected)
                << "x" << tiles << (trans ? ".trans" : "") << " lane " << lane
                << " matrix " << j << " element " << e;
          }
    }
}

} // namespace
