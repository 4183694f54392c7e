func.func @concat_none() -> tensor<0xf32> {
  %0 = "kiln.concat"() <{dim = 0 : i64}> : () -> tensor<0xf32>
  return %0 : tensor<0xf32>
}
