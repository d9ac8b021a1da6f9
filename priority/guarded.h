// The adapter's locking rules, as types the compiler checks:
// - slurmctld's job lock: a JobWriteLocked or JobReadLocked token proves it is held. Only the
//   holders that take it (JobWriteLock, JobReadLock) make one, and the entry points Slurm calls
//   with it already held (held_by_slurm). A value under that lock (UnderJobLock) is reached only
//   with a token: to write, the write token; to read, either.
// - the adapter's own mutex: a value under it (Guarded) is reached only through the handle that
//   holds the mutex. Slurm's locks are always taken before it, never while holding it, and it is
//   held only for in-memory work.
// - pass thread only: what the calculation thread alone touches is private to CalcPass.
#pragma once

#include <mutex>
#include <utility>

#include "priority/slurmctld_symbols.h"

namespace fairway::priority {

class JobReadLocked {
public:
    JobReadLocked(const JobReadLocked&) = delete;
    JobReadLocked& operator=(const JobReadLocked&) = delete;
    // For an entry point that slurmctld calls with its job read (or write) lock held.
    static JobReadLocked held_by_slurm() { return {}; }

protected:
    JobReadLocked() = default;
    friend class JobReadLock;
};

// The job write lock lets its holder read too.
class JobWriteLocked : public JobReadLocked {
public:
    // For an entry point that slurmctld calls with its job write lock held.
    static JobWriteLocked held_by_slurm() { return {}; }

private:
    JobWriteLocked() = default;
    friend class JobWriteLock;
};

// slurmctld's job write lock and partition read lock, held for the holder's scope.
class JobWriteLock {
public:
    explicit JobWriteLock(const SlurmctldSymbols& symbols) : lock_(symbols, {.job = WRITE_LOCK, .part = READ_LOCK}) {}
    const JobWriteLocked& token() const { return token_; }

private:
    SlurmctldLock lock_;
    JobWriteLocked token_;
};

// slurmctld's job and partition read locks, held for the holder's scope.
class JobReadLock {
public:
    explicit JobReadLock(const SlurmctldSymbols& symbols) : lock_(symbols, {.job = READ_LOCK, .part = READ_LOCK}) {}
    const JobReadLocked& token() const { return token_; }

private:
    SlurmctldLock lock_;
    JobReadLocked token_;
};

// A value that slurmctld's job lock guards: written under the write lock, read under either.
template <typename T>
class UnderJobLock {
public:
    T& write(const JobWriteLocked&) { return value_; }
    const T& read(const JobReadLocked&) const { return value_; }

private:
    T value_{};
};

// A value its own mutex guards; lock() returns a handle that holds the mutex while it lives.
template <typename T>
class Guarded {
public:
    class Handle {
    public:
        T* operator->() const { return value_; }
        T& operator*() const { return *value_; }

    private:
        friend class Guarded;
        Handle(std::mutex& mutex, T* value) : lock_(mutex), value_(value) {}
        std::unique_lock<std::mutex> lock_;
        T* value_;
    };

    Handle lock() { return Handle(mutex_, &value_); }

private:
    std::mutex mutex_;
    T value_{};
};

}  // namespace fairway::priority
