// RUN: kiln-opt %s -kiln-drop-binary-timings -split-input-file | FileCheck %s

// gpu-module-to-binary records how long each compile stage took in the
// object's properties (`*TimeInMs`), so two compiles of one program differ.
// The pass drops those properties and keeps every other one, the object's
// target, format and bytes.
// CHECK-LABEL: gpu.binary @kernels
// CHECK-SAME: properties = {O = 3 : i32}
// CHECK-NOT: TimeInMs
// CHECK-SAME: "PTX"
gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_80">, properties = {O = 3 : i32, LLVMIRToISATimeInMs = 12 : i64, ISAToBinaryTimeInMs = 3 : i64}, assembly = "PTX">]

// -----

// Objects without properties, and binaries with several objects, pass
// through; each object loses only its timings.
// CHECK-LABEL: gpu.binary @two
// CHECK-SAME: #gpu.object<#nvvm.target, "first">
// CHECK-SAME: #gpu.object<#nvvm.target<chip = "sm_90">, properties = {kept = 1 : i32}, "second">
gpu.binary @two [#gpu.object<#nvvm.target, "first">, #gpu.object<#nvvm.target<chip = "sm_90">, properties = {kept = 1 : i32, LLVMIRToISATimeInMs = 7 : i64}, "second">]
