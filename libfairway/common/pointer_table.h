// A small open-addressing map keyed by pointer, for caches that stand in for scattered records.
//
// A priority pass reads the same few fields of an association once for each of its jobs. The
// associations lie all over slurmctld's heap, so each read is a cache miss; the facts copied into
// this compact array stay in cache for the whole pass. Linear probing over a power-of-two array,
// never more than half full, so a lookup touches one or two neighbouring slots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace fairway {

template <typename Key, typename Value>
class PointerTable {
public:
    // The value stored for `key`, or nullptr.
    const Value* find(const Key* key) const {
        if (slots_.empty()) return nullptr;
        for (size_t i = home(key);; i = (i + 1) & mask()) {
            if (slots_[i].key == key) return &slots_[i].value;
            if (!slots_[i].key) return nullptr;
        }
    }

    // Stores `value` for `key` (a non-null pointer), replacing an earlier one; returns the stored value.
    const Value& insert(const Key* key, Value value) {
        if (2 * (used_ + 1) > slots_.size()) grow();
        size_t i = home(key);
        while (slots_[i].key && slots_[i].key != key) i = (i + 1) & mask();
        used_ += slots_[i].key ? 0 : 1;
        slots_[i] = Slot{key, std::move(value)};
        return slots_[i].value;
    }

    size_t size() const noexcept { return used_; }

private:
    struct Slot {
        const Key* key = nullptr;
        Value value{};
    };

    size_t mask() const noexcept { return slots_.size() - 1; }

    // Fibonacci hashing: heap pointers share their low bits (alignment), so those are mixed in.
    size_t home(const Key* key) const noexcept {
        const uint64_t mixed = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key)) * 0x9E3779B97F4A7C15ull;
        return static_cast<size_t>(mixed >> 32) & mask();
    }

    void grow() {
        std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(slots_.empty() ? 64 : 2 * slots_.size()));
        used_ = 0;
        for (Slot& slot : old) {
            if (slot.key) insert(slot.key, std::move(slot.value));
        }
    }

    std::vector<Slot> slots_;
    size_t used_ = 0;
};

}  // namespace fairway
