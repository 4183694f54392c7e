// Callees resolve in the nearest symbol table: a kiln.vjp in a nested module
// differentiates that module's @f (and what it calls), not a same-named
// function of the outer module, and the scratch copy leaves no symbol behind.
// RUN: kiln-opt %s -kiln-autodiff | FileCheck %s

// CHECK-LABEL: module @inner
// CHECK-NOT: __kiln_vjp_scratch
// CHECK-LABEL: func.func @main
// CHECK-NOT: kiln.vjp
// CHECK-NOT: kiln.sin
// CHECK: kiln.tanh
// CHECK-NOT: kiln.vjp
// CHECK: return
module {
  func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
    %y = kiln.sin %x : tensor<2xf32>
    return %y : tensor<2xf32>
  }
  module @inner {
    func.func private @g(%x: tensor<2xf32>) -> tensor<2xf32> {
      %y = kiln.tanh %x : tensor<2xf32>
      return %y : tensor<2xf32>
    }
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      %y = func.call @g(%x) : (tensor<2xf32>) -> tensor<2xf32>
      return %y : tensor<2xf32>
    }
    func.func @main(%x: tensor<2xf32>, %ct: tensor<2xf32>) -> tensor<2xf32> {
      %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      return %g : tensor<2xf32>
    }
  }
}
