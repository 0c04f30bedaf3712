//===- ArtifactBuilder.h - The launch program of an artifact ----*- C++ -*-===//
#ifndef BWC_TARGET_ARTIFACTBUILDER_H
#define BWC_TARGET_ARTIFACTBUILDER_H

#include "bwc/Runtime/Artifact.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::bwc {

namespace rt = ::bwc::rt;

/// Reads the program function after bwc-outline-kernels (arguments,
/// constants, kernel calls, return) into the artifact's signature, buffers,
/// weights, kernels (named `<kernel>_bwc`, with their bytes moved) and
/// launches. The code object and report are filled in by the caller.
FailureOr<rt::Artifact> buildArtifactProgram(func::FuncOp program);

/// The runtime's element type for an MLIR element type.
FailureOr<rt::DType> toRuntimeType(Type elementType);

} // namespace mlir::bwc

#endif // BWC_TARGET_ARTIFACTBUILDER_H
