//===- Version.h - bwc's version --------------------------------*- C++ -*-===//
//
// One version for every tool, the compiler API and the Python package
// (`--version`, `bwc.__version__`). Header only, so the runtime shares it
// without linking anything.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_VERSION_H
#define BWC_VERSION_H

#define BWC_VERSION "0.2.0"

#endif // BWC_VERSION_H
