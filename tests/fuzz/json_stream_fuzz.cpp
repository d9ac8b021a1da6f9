// libFuzzer target: fairway-report's streaming JSON reader (tools/report/json_stream.cpp), which
// reads usage exports of any size. Malformed text must come back as InputError; anything else
// (crash, stack overflow on deep nesting, leak, another exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "small_stack.h"
#include "tools/report/json_stream.h"

namespace {

void exercise(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return;
    std::FILE* file = fmemopen(const_cast<std::uint8_t*>(data), size, "r");
    if (!file) return;
    std::size_t elements = 0;
    try {
        fairway::report::stream_json_object(
            file, "fuzz.json", {"usage", "jobs"},
            [&](const std::string&, std::size_t, const nlohmann::json&, int, const nlohmann::json&) { ++elements; });
    } catch (const fairway::InputError&) {}
    std::fclose(file);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fairway::fuzz::on_small_stack([&] { exercise(data, size); });
    return 0;
}
