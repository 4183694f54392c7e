// RUN: rm -rf %t.missing
// RUN: kiln-opt %s -kiln-export-fusion-graph=%t.missing/graph.json -verify-diagnostics -o /dev/null

// -kiln-export-fusion-graph=FILE reports, on the module, a file it cannot
// write (here, in a directory that does not exist). A missing FILE is an
// error of the pipeline option, before any IR: see export-fusion-graph.mlir.

// expected-error @+1 {{cannot write the fusion graph to '}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = kiln.exp %x : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
