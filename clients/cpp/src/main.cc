// The sample bot: rookery-cpp-bot --server HOST:PORT --name NAME. Put your own logic in a Bot
// subclass (see sample_bot.h) and hand its factory to rookery::RunMain.
#include <cstdlib>
#include <memory>
#include <string>

#include "rookery/client.h"
#include "rookery/sample_bot.h"

int main(int argc, char** argv) {
  const char* fault = std::getenv("ROOKERY_SAMPLE_FAULT");
  std::string sample_fault = fault ? fault : "";
  // One bot per table: the factory is called for every table the server seats this bot at.
  return rookery::RunMain(argc, argv, "rookery-cpp-bot", "cpp-sample",
                          [&sample_fault](const rookery::v1::TableJoined&) {
                            return std::make_unique<rookery::SampleBot>(sample_fault);
                          });
}
