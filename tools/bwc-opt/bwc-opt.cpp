//===- bwc-opt.cpp - bwc's optimizer driver -------------------------------===//
//
// Reads .mlir, runs any bwc or registered upstream pass, prints the result.
//
//===----------------------------------------------------------------------===//
#include "bwc/InitAll.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::bwc::registerAllDialects(registry);
  mlir::bwc::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "bwc optimizer driver\n", registry));
}
