//===- kiln-tblgen.cpp - kiln's TableGen backends -------------------------===//
//
//   kiln-tblgen -gen-pass-statistics Passes.td -I ... -o PassStatistics.h.inc
//
// Writes the statistics that a Passes.td declares as a table of
// kiln::PassStatisticInfo, so that kiln::addPassStatistic names them as
// Passes.td does: a Release LLVM turns mlir::Pass::Statistic into a no-op
// that keeps neither name nor description.
//
//===----------------------------------------------------------------------===//

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TableGen/Main.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

using namespace llvm;

namespace {
enum class Action { PassStatistics };

cl::opt<Action> action(cl::desc("what to generate"),
                       cl::values(clEnumValN(Action::PassStatistics,
                                             "gen-pass-statistics",
                                             "the statistics of each pass")));

/// `text` as a C string literal.
std::string quote(StringRef text) {
  std::string result = "\"";
  raw_string_ostream os(result);
  os.write_escaped(text);
  return result + "\"";
}

bool emitPassStatistics(raw_ostream &os, const RecordKeeper &records) {
  emitSourceFileHeader("The statistics of kiln's passes", os, records);
  os << "// {pass argument, C++ member, statistic name, description}, in the\n"
        "// order each pass declares them (that of Pass::getStatistics()).\n"
        "static const ::kiln::PassStatisticInfo kPassStatistics[] = {\n";
  size_t count = 0;
  // Passes by record name, as getAllDerivedDefinitions sorts them.
  for (const Record *pass : records.getAllDerivedDefinitions("PassBase")) {
    StringRef argument = pass->getValueAsString("argument");
    for (const Record *statistic : pass->getValueAsListOfDefs("statistics")) {
      os << "    {" << quote(argument) << ", "
         << quote(statistic->getValueAsString("cppName")) << ", "
         << quote(statistic->getValueAsString("name")) << ", "
         << quote(statistic->getValueAsString("description")) << "},\n";
      ++count;
    }
  }
  if (count == 0)
    os << "    {\"\", \"\", \"\", \"\"},\n";
  os << "};\n";
  return false;
}

bool generate(raw_ostream &os, const RecordKeeper &records) {
  switch (action) {
  case Action::PassStatistics:
    return emitPassStatistics(os, records);
  }
  return true;
}
} // namespace

int main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "kiln's TableGen backends\n");
  return TableGenMain(argv[0], TableGenMainFn(generate));
}
