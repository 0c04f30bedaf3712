// RUN: rm -rf %t && /usr/bin/python3 %S/../Inputs/make_limit_models.py %t
// RUN: not bwc-opt %t/input-rank.onnx 2>&1 | FileCheck %s --check-prefix=IRANK
// RUN: not bwc-opt %t/input-elements.onnx 2>&1 | FileCheck %s --check-prefix=IELEM
// RUN: not bwc-opt %t/init-rank.onnx 2>&1 | FileCheck %s --check-prefix=WRANK
// RUN: not bwc-opt %t/init-elements.onnx 2>&1 | FileCheck %s --check-prefix=WELEM
// RUN: not bwc-opt %t/init-data.onnx 2>&1 | FileCheck %s --check-prefix=WDATA
// RUN: not bwc-opt %t/result-elements.onnx 2>&1 | FileCheck %s --check-prefix=RELEM
// RUN: not bwc-opt %t/nodes.onnx 2>&1 | FileCheck %s --check-prefix=NODES
// RUN: not bwc-opt %t/depth.onnx 2>&1 | FileCheck %s --check-prefix=DEPTH

// Tests the import limits (ImportLimits in bwc/Import/ONNX/Importer.h): a
// model just past each is refused with an error naming the tensor or node
// and the limit, before anything is allocated for it.

// IRANK: error: input 'x' has rank 17, more than bwc's limit of 16
// IELEM: error: input 'x' has more than 2^63 elements (1073741824x1073741824x1073741824), more than bwc's limit of 68719476736
// WRANK: error: initializer 'w' has rank 17, more than bwc's limit of 16
// WELEM: error: initializer 'w' has 1099511627776 elements (1048576x1048576), more than bwc's limit of 68719476736
// WDATA: error: initializer 'w'
// RELEM: error: node '{{.*}}' (Expand): output 'y' has 1099511627776 elements (1048576x1048576), more than bwc's limit of 68719476736
// NODES: error: has 1048577 nodes, more than bwc's limit of 1048576
// DEPTH: error: node '{{.*}}' (If): subgraphs nest deeper than bwc's limit of 16
