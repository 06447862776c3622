// The sample bot: rookery-cpp-bot --server HOST:PORT --name NAME. Put your own logic in a Bot
// subclass (see sample_bot.h) and hand its factory to rookery::Run.
#include <cstdlib>
#include <iostream>
#include <memory>

#include "rookery/client.h"
#include "rookery/sample_bot.h"

int main(int argc, char** argv) {
  try {
    rookery::Config config = rookery::ParseConfig(argc, argv, "cpp-sample");
    if (config.help) {
      std::cout << "usage: rookery-cpp-bot [options]\n" << rookery::kUsage << std::endl;
      return 0;
    }
    // One bot per table: the factory is called for every table the server seats this bot at.
    const char* fault = std::getenv("ROOKERY_SAMPLE_FAULT");
    std::string sample_fault = fault ? fault : "";
    rookery::Stats stats = rookery::Run(config, [&sample_fault](const rookery::v1::TableJoined&) {
      return std::make_unique<rookery::SampleBot>(sample_fault);
    });
    std::cerr << "[rookery] done: " << stats.ToString() << std::endl;
    return 0;
  } catch (const rookery::ClientError& e) {
    std::cerr << "rookery-cpp-bot: " << e.what() << std::endl;
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "rookery-cpp-bot: unexpected error: " << e.what() << std::endl;
    return 1;
  }
}
