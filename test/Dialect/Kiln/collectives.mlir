// The collectives' forms, and the effects that keep every one of them and
// their order: CSE merges no two, DCE drops none whose result is unused.
// RUN: kiln-opt %s -split-input-file | kiln-opt | FileCheck %s
// RUN: kiln-opt %s -split-input-file -canonicalize -cse | FileCheck %s --check-prefix=KEEP

// CHECK-LABEL: func.func @forms
// CHECK: kiln.all_reduce sum, %{{.*}} group = 0 : tensor<4x8xf32>
// CHECK: kiln.all_reduce mean, %{{.*}} group = 3 : tensor<4x8xf32>
// CHECK: kiln.all_reduce max, %{{.*}} group = 0 : tensor<?x8xf64>
// CHECK: kiln.all_gather %{{.*}} dim = 1 group = 0 : tensor<4x8xf32> -> tensor<4x16xf32>
// CHECK: kiln.reduce_scatter sum, %{{.*}} dim = 0 group = 0 : tensor<4x8xf32> -> tensor<2x8xf32>
// CHECK: kiln.all_gather %{{.*}} dim = 0 group = 0 : tensor<?x8xf64> -> tensor<?x8xf64>
func.func @forms(%x: tensor<4x8xf32>, %d: tensor<?x8xf64>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<?x8xf64>, tensor<4x16xf32>, tensor<2x8xf32>, tensor<?x8xf64>) {
  %0 = kiln.all_reduce sum, %x group = 0 : tensor<4x8xf32>
  %1 = kiln.all_reduce mean, %x group = 3 : tensor<4x8xf32>
  %2 = kiln.all_reduce max, %d group = 0 : tensor<?x8xf64>
  %3 = kiln.all_gather %x dim = 1 group = 0 : tensor<4x8xf32> -> tensor<4x16xf32>
  %4 = kiln.reduce_scatter sum, %x dim = 0 group = 0 : tensor<4x8xf32> -> tensor<2x8xf32>
  %5 = kiln.all_gather %d dim = 0 group = 0 : tensor<?x8xf64> -> tensor<?x8xf64>
  return %0, %1, %2, %3, %4, %5 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<?x8xf64>, tensor<4x16xf32>, tensor<2x8xf32>, tensor<?x8xf64>
}

// -----

// KEEP-LABEL: func.func @kept
// KEEP: kiln.all_reduce sum
// KEEP: kiln.all_reduce sum
// KEEP: kiln.all_gather
// KEEP: return
func.func @kept(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = kiln.all_reduce sum, %x group = 0 : tensor<4xf32>
  %1 = kiln.all_reduce sum, %x group = 0 : tensor<4xf32>
  %unused = kiln.all_gather %x dim = 0 group = 0 : tensor<4xf32> -> tensor<8xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// The generic form's reduction attribute.
// CHECK-LABEL: func.func @generic
// CHECK: kiln.all_reduce mean, %{{.*}} group = 0 : tensor<4xf32>
func.func @generic(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "kiln.all_reduce"(%x) <{reduction = #kiln<reduction mean>, group = 0 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
