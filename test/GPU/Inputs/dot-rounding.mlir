// A product whose operands show how they were rounded, and its gradient
// with respect to the left operand (cotangent times the right operand's
// transpose): both are matmuls only, which the stand-in cuBLAS computes.
func.func @dot(%a: tensor<1x2xf32>, %b: tensor<2x1xf32>) -> tensor<1x1xf32> {
  %m = kiln.matmul %a, %b : tensor<1x2xf32>, tensor<2x1xf32> -> tensor<1x1xf32>
  return %m : tensor<1x1xf32>
}

func.func @dot_grad(%a: tensor<1x2xf32>, %b: tensor<2x1xf32>, %ct: tensor<1x1xf32>) -> tensor<1x2xf32> {
  %g = kiln.vjp @dot(%a, %b, %ct) wrt [0] : (tensor<1x2xf32>, tensor<2x1xf32>, tensor<1x1xf32>) -> tensor<1x2xf32>
  return %g : tensor<1x2xf32>
}
