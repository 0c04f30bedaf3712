// RUN: rm -rf %t && /usr/bin/python3 %S/../Inputs/make_external_data_attacks.py %t
// RUN: bwc-opt %t/ok/model.onnx | FileCheck %s --check-prefix=OK
// RUN: not bwc-opt %t/cve-2022-25882/model.onnx 2>&1 | FileCheck %s --check-prefix=CVE1
// RUN: not bwc-opt %t/cve-2024-27318/model.onnx 2>&1 | FileCheck %s --check-prefix=CVE2
// RUN: not bwc-opt %t/absolute/model.onnx 2>&1 | FileCheck %s --check-prefix=ABS
// RUN: not bwc-opt %t/symlink/model.onnx 2>&1 | FileCheck %s --check-prefix=LINK
// RUN: not bwc-opt %t/symlink-dir/model.onnx 2>&1 | FileCheck %s --check-prefix=DIRLINK
// RUN: not bwc-opt %t/hardlink/model.onnx 2>&1 | FileCheck %s --check-prefix=HARD
// RUN: not timeout 60 bwc-opt %t/fifo/model.onnx 2>&1 | FileCheck %s --check-prefix=FIFO
// RUN: not bwc-opt %t/range/model.onnx 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not bwc-opt %t/malformed/model.onnx 2>&1 | FileCheck %s --check-prefix=BADNUM
// RUN: not bwc-compile %t/symlink/model.onnx -o %t/symlink.bwc 2>&1 | FileCheck %s --check-prefix=LINK

// Tests that external data cannot bring another file's bytes into the
// weights: the payloads of CVE-2022-25882 and CVE-2024-27318, absolute
// paths, symbolic links (the file and a folder on the way), hard links and
// non-regular files are refused with a named error, as are malformed
// offsets and ranges outside the file; a valid external file imports.

// OK: bwc.constant
// OK-SAME: tensor<4xf32>
// CVE1: error: initializer 'W' has external data location '../../../../etc/passwd', which leaves the model's folder
// CVE2: error: initializer 'W' has external data location 'subdir/../../secret.bin', which leaves the model's folder
// ABS: error: initializer 'W' has external data location '/etc/passwd', which is absolute
// LINK: error: initializer 'W' has external data location 'weights.bin', which is a symbolic link
// DIRLINK: error: initializer 'W' has external data location 'd/secret.bin', which goes through 'd/', which is a symbolic link or not a folder
// HARD: error: initializer 'W' has external data location 'weights.bin', which has 2 hard links
// FIFO: error: initializer 'W' has external data location 'weights.bin', which is not a regular file
// RANGE: error: initializer 'W' external data offset 64 is past the end of 'weights.bin' (16 bytes)
// BADNUM: error: initializer 'W' has a malformed external data offset '12abc'
