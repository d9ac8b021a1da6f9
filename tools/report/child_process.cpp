#include "tools/report/child_process.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

extern char** environ;

namespace fairway::tools {
namespace {

// Spawns the command with `stdout_fd` (when >= 0) as its standard output.
pid_t spawn(const std::vector<std::string>& command, int stdout_fd, int close_fd) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (stdout_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
    if (close_fd >= 0) posix_spawn_file_actions_addclose(&actions, close_fd);
    std::vector<std::string> args = command;
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot run " + command[0] + ": " + std::strerror(rc));
    return pid;
}

// getline()'s buffer, freed however reading ends.
struct LineBuffer {
    char* data = nullptr;
    std::size_t capacity = 0;
    ~LineBuffer() { std::free(data); }
};

// Reads to the end, or until `on_line` throws; the pipe is closed either way, so a child still
// writing gets SIGPIPE and can be waited for.
void hand_over_lines(int fd, const std::function<void(const std::string&)>& on_line) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(fdopen(fd, "r"), &std::fclose);
    LineBuffer line;
    ssize_t length;
    while ((length = getline(&line.data, &line.capacity, out.get())) >= 0) {
        while (length > 0 && (line.data[length - 1] == '\n' || line.data[length - 1] == '\r'))
            line.data[--length] = '\0';
        on_line(line.data);
    }
}

void wait_for_success(pid_t pid, const std::string& name) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error(name + " failed (exit status " + std::to_string(WEXITSTATUS(status)) + ")");
}

}  // namespace

void run_program(const std::vector<std::string>& command, const std::function<void(const std::string&)>& on_line) {
    if (!on_line) {
        wait_for_success(spawn(command, -1, -1), command[0]);
        return;
    }
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
    pid_t pid = 0;
    try {
        pid = spawn(command, fds[1], fds[0]);
    } catch (...) {
        close(fds[0]);
        close(fds[1]);
        throw;
    }
    close(fds[1]);
    try {
        hand_over_lines(fds[0], on_line);
    } catch (...) {
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        throw;
    }
    wait_for_success(pid, command[0]);
}

}  // namespace fairway::tools
