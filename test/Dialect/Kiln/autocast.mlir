// RUN: kiln-opt %s -split-input-file -kiln-autocast | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-autocast=dtype=f16 | FileCheck %s --check-prefix=F16
// RUN: not kiln-opt %s -split-input-file -kiln-autocast=dtype=f32 2>&1 | FileCheck %s --check-prefix=BAD

// Each f32 product runs narrow between converts; the flags stay, and no
// type outside the product changes.
// CHECK-LABEL: func.func @products
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>, %[[W:.+]]: tensor<16x8xf32>, %[[D:.+]]: tensor<3x3xf64>, %[[H:.+]]: tensor<2x4x8xbf16>, %[[G:.+]]: tensor<2x8x2xbf16>)
// CHECK: %[[A:.+]] = kiln.convert %[[X]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK: %[[B:.+]] = kiln.convert %[[W]] : tensor<16x8xf32> -> tensor<16x8xbf16>
// CHECK: %[[P:.+]] = kiln.matmul %[[A]], %[[B]] {transpose_b = true} : tensor<4x8xbf16>, tensor<16x8xbf16> -> tensor<4x16xbf16>
// CHECK: %[[M:.+]] = kiln.convert %[[P]] : tensor<4x16xbf16> -> tensor<4x16xf32>
// CHECK: kiln.tanh %[[M]] : tensor<4x16xf32>
// f64 and narrow products are left alone.
// CHECK: kiln.matmul %[[D]], %[[D]] : tensor<3x3xf64>
// CHECK: kiln.matmul %[[H]], %[[G]] : tensor<2x4x8xbf16>
// F16-LABEL: func.func @products
// F16: kiln.matmul {{.*}} : tensor<4x8xf16>, tensor<16x8xf16> -> tensor<4x16xf16>
func.func @products(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %d: tensor<3x3xf64>, %h: tensor<2x4x8xbf16>, %g: tensor<2x8x2xbf16>) -> (tensor<4x16xf32>, tensor<3x3xf64>, tensor<2x4x2xbf16>) {
  %0 = kiln.matmul %x, %w {transpose_b = true, precision = #kiln<precision high>} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %1 = kiln.tanh %0 : tensor<4x16xf32>
  %2 = kiln.matmul %d, %d : tensor<3x3xf64>, tensor<3x3xf64> -> tensor<3x3xf64>
  %3 = kiln.matmul %h, %g : tensor<2x4x8xbf16>, tensor<2x8x2xbf16> -> tensor<2x4x2xbf16>
  return %1, %2, %3 : tensor<4x16xf32>, tensor<3x3xf64>, tensor<2x4x2xbf16>
}

// BAD: -kiln-autocast: dtype must be bf16 or f16, not 'f32'
