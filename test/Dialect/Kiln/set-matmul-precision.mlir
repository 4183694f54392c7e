// RUN: kiln-opt %s -kiln-set-matmul-precision=precision=high | FileCheck %s
// RUN: kiln-opt %s -kiln-set-matmul-precision=precision=medium | FileCheck %s --check-prefix=MEDIUM
// RUN: kiln-opt %s -kiln-set-matmul-precision | FileCheck %s --check-prefix=HIGHEST
// RUN: kiln-opt %s -kiln-autodiff -kiln-set-matmul-precision=precision=high | FileCheck %s --check-prefix=GRAD

// Every f32 product without a precision gets the pass's; one with its own
// keeps it; other types take none.
// CHECK-LABEL: func.func @products
// CHECK: kiln.matmul %{{.*}}, %{{.*}} {precision = #kiln<precision high>} : tensor<4x8xf32>
// CHECK: kiln.matmul %{{.*}}, %{{.*}} {precision = #kiln<precision highest>} : tensor<4x8xf32>
// CHECK: kiln.matmul %{{.*}}, %{{.*}} : tensor<4x8xbf16>
// CHECK: kiln.matmul %{{.*}}, %{{.*}} : tensor<3x3xf64>
// MEDIUM-LABEL: func.func @products
// MEDIUM: {precision = #kiln<precision medium>}
// MEDIUM: {precision = #kiln<precision highest>}
// HIGHEST-LABEL: func.func @products
// HIGHEST: kiln.matmul %{{.*}}, %{{.*}} : tensor<4x8xf32>
// HIGHEST: {precision = #kiln<precision highest>}
func.func @products(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %h: tensor<4x8xbf16>, %v: tensor<8x16xbf16>, %f: tensor<3x3xf64>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xbf16>, tensor<3x3xf64>) {
  %0 = kiln.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %1 = kiln.matmul %x, %w {precision = #kiln<precision highest>} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %2 = kiln.matmul %h, %v : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xbf16>
  %3 = kiln.matmul %f, %f : tensor<3x3xf64>, tensor<3x3xf64> -> tensor<3x3xf64>
  return %0, %1, %2, %3 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xbf16>, tensor<3x3xf64>
}

// After -kiln-autodiff, the gradient's products follow the setting too.
// GRAD-LABEL: func.func @grad
// GRAD-COUNT-2: kiln.matmul {{.*}}{precision = #kiln<precision high>
// GRAD-NOT: kiln.matmul
// GRAD: return
func.func @layer(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = kiln.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
func.func @grad(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %ct: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<8x16xf32>) {
  %g:2 = kiln.vjp @layer(%x, %w, %ct) wrt [0, 1] : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<8x16xf32>)
  return %g#0, %g#1 : tensor<4x8xf32>, tensor<8x16xf32>
}

// A product's own precision carries over to its gradient's products, and
// wins over the pass's.
// GRAD-LABEL: func.func @grad_own
// GRAD-COUNT-2: kiln.matmul {{.*}}{precision = #kiln<precision medium>
// GRAD-NOT: kiln.matmul
// GRAD: return
func.func @layer_own(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = kiln.matmul %x, %w {precision = #kiln<precision medium>} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
func.func @grad_own(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %ct: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<8x16xf32>) {
  %g:2 = kiln.vjp @layer_own(%x, %w, %ct) wrt [0, 1] : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<8x16xf32>)
  return %g#0, %g#1 : tensor<4x8xf32>, tensor<8x16xf32>
}
