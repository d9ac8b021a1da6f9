// SwfReader: fields, header comments, unknown values and errors that name file, line and field.
#include <gtest/gtest.h>

#include <sstream>

#include "common/error.h"
#include "sim/swf_reader.h"
#include "sim/workload.h"

using namespace fairway::sim;

namespace {

const char* kTrace =
    "; Version: 2.2\n"
    "; Computer: IBM SP2\n"
    "; UnixStartTime: 843480031\n"
    "; MaxNodes: 100\n"
    "; MaxProcs: 128 (64 per partition)\n"
    "; Note: uses the EASY scheduler\n"
    ";\n"
    "\n"
    "   15   599850 192180   3477    4     -1    -1    4  53940    -1  1  12  13  -1 -1 -1 -1 -1\n"
    "; a comment between jobs\n"
    "   16   600022  11940   2488   25   2.5  1024   25   3600   2048  0  13  13   7  2  1 15  60\n";

std::string error_of(const std::string& text) {
    std::istringstream in(text);
    try {
        SwfReader reader(in, "t.swf");
        while (reader.next()) {}
    } catch (const fairway::InputError& error) {
        return error.what();
    }
    return "";
}

}  // namespace

TEST(SwfReader, ReadsHeaderFieldsAndJobs) {
    std::istringstream in(kTrace);
    SwfReader reader(in, "t.swf");
    EXPECT_EQ(reader.header().unix_start_time, 843480031);
    EXPECT_EQ(reader.header().max_nodes, 100);
    EXPECT_EQ(reader.header().max_procs, 128);  // the remark after the number is ignored
    EXPECT_EQ(reader.header().fields.at("Computer"), "IBM SP2");
    EXPECT_EQ(reader.header().fields.count("Note"), 1U);

    std::optional<SwfJob> first = reader.next();
    ASSERT_TRUE(first);
    EXPECT_EQ(first->job_id, 15);
    EXPECT_EQ(first->submit, 599850);
    EXPECT_EQ(first->wait, 192180);
    EXPECT_EQ(first->run_time, 3477);
    EXPECT_EQ(first->allocated_procs, 4);
    EXPECT_EQ(first->average_cpu_time, -1);
    EXPECT_EQ(first->requested_time, 53940);
    EXPECT_EQ(first->status, 1);
    EXPECT_EQ(first->user, 12);
    EXPECT_EQ(first->group, 13);
    EXPECT_EQ(first->line, 9);

    std::optional<SwfJob> second = reader.next();
    ASSERT_TRUE(second);
    EXPECT_EQ(second->average_cpu_time, 2.5);
    EXPECT_EQ(second->used_memory, 1024);
    EXPECT_EQ(second->requested_memory, 2048);
    EXPECT_EQ(second->executable, 7);
    EXPECT_EQ(second->queue, 2);
    EXPECT_EQ(second->partition, 1);
    EXPECT_EQ(second->preceding_job, 15);
    EXPECT_EQ(second->think_time, 60);
    EXPECT_EQ(second->line, 11);
    EXPECT_FALSE(reader.next());
    EXPECT_FALSE(reader.next());
}

TEST(SwfReader, HeaderIsOptional) {
    std::istringstream in("1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1");  // no final newline
    SwfReader reader(in, "t.swf");
    EXPECT_FALSE(reader.header().max_nodes);
    EXPECT_FALSE(reader.header().unix_start_time);
    ASSERT_TRUE(reader.next());
    EXPECT_FALSE(reader.next());
}

TEST(SwfReader, WholeNumbersWrittenAsRealsAreAccepted) {
    std::istringstream in("1 0.00 0 10.0 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n");
    SwfReader reader(in, "t.swf");
    std::optional<SwfJob> job = reader.next();
    ASSERT_TRUE(job);
    EXPECT_EQ(job->run_time, 10);
}

TEST(SwfReader, ErrorsNameFileLineAndField) {
    const std::string header = "; MaxNodes: 4\n";
    EXPECT_EQ(error_of(header + "1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1\n"),
              "t.swf:2: key 'fields': expected 18 fields, found 17");
    EXPECT_EQ(error_of(header + "1 0 0 ten 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n"),
              "t.swf:2: key 'run_time': expected an integer, found 'ten'");
    EXPECT_EQ(error_of(header + "1 0 0 10 1 -1 -1 1 60 -1 1 -7 1 -1 -1 -1 -1 -1\n"),
              "t.swf:2: key 'user_id': expected -1 (unknown) or a value >= 0, found -7");
    EXPECT_EQ(error_of(header + "1 0 0 10 1 x -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n"),
              "t.swf:2: key 'average_cpu_time': expected a number, found 'x'");
    EXPECT_EQ(error_of(header + "1 -1 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n"),
              "t.swf:2: key 'submit_time': the submit time is unknown (-1)");
    EXPECT_EQ(error_of("; MaxProcs: many\n"), "t.swf:1: key 'MaxProcs': expected a non-negative integer, found 'many'");
    EXPECT_EQ(error_of(header + "1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1 junk\n"),
              "t.swf:2: key 'fields': expected 18 fields, found 19");
}

TEST(ReplayedJob, UsesAllocatedElseRequestedProcessorsAndCutsAtTheLimit) {
    TraceShape shape{1000, ProcsAre::cores, Need{8, 0}};
    SwfJob swf;
    swf.job_id = 3;
    swf.submit = 50;
    swf.run_time = 700;
    swf.requested_time = 600;
    swf.requested_procs = 4;
    auto job = std::get<SimJob>(replayed_job(swf, shape, 5));
    EXPECT_EQ(job.submit, 1050);
    EXPECT_EQ(job.run, 600);  // killed at its limit
    EXPECT_EQ(job.limit, 600);
    EXPECT_EQ(job.need, (Need{4, 0}));
    EXPECT_EQ(job.association, 5U);

    swf.allocated_procs = 2;
    swf.requested_time = -1;  // unknown limit: the run time is the estimate
    job = std::get<SimJob>(replayed_job(swf, TraceShape{0, ProcsAre::gpus, Need{0, 8}}, 0));
    EXPECT_EQ(job.need, (Need{0, 2}));
    EXPECT_EQ(job.limit, 700);
    EXPECT_EQ(job.run, 700);

    swf.allocated_procs = 9;
    EXPECT_EQ(std::get<SkipReason>(replayed_job(swf, shape, 0)), SkipReason::larger_than_cluster);
    swf.allocated_procs = swf.requested_procs = -1;
    EXPECT_EQ(std::get<SkipReason>(replayed_job(swf, shape, 0)), SkipReason::no_processors);
    swf.allocated_procs = 1;
    swf.run_time = -1;
    EXPECT_EQ(std::get<SkipReason>(replayed_job(swf, shape, 0)), SkipReason::unknown_run_time);
}

TEST(AccountedJob, RunsForItsElapsedTimeCutAtItsLimitAndSkipsWhatDidNotRun) {
    const Need cluster{64, 16};
    AccountedRun run;
    run.id = 42;
    run.submit = 1000;
    run.start = 1030;
    run.end = 1100;
    run.elapsed = 60;  // 10 s of it suspended
    run.limit = 120;
    run.need = Need{4, 1};
    auto job = std::get<SimJob>(accounted_job(run, cluster, 7));
    EXPECT_EQ(job.id, 42);
    EXPECT_EQ(job.submit, 1000);  // accounting times are already epoch seconds
    EXPECT_EQ(job.run, 60);
    EXPECT_EQ(job.limit, 120);
    EXPECT_EQ(job.need, (Need{4, 1}));  // cores and GPUs together, as allocated
    EXPECT_EQ(job.association, 7U);

    run.limit = 0;  // no limit of its own: the run time is the estimate
    EXPECT_EQ(std::get<SimJob>(accounted_job(run, cluster, 0)).limit, 60);
    run.limit = 30;  // ran past its limit (OverTimeLimit): killed there in the replay
    EXPECT_EQ(std::get<SimJob>(accounted_job(run, cluster, 0)).run, 30);

    run.need = Need{65, 0};
    EXPECT_EQ(std::get<SkipReason>(accounted_job(run, cluster, 0)), SkipReason::larger_than_cluster);
    run.need = Need{0, 0};  // cancelled while pending: Slurm records a start (= its end), no allocation
    EXPECT_EQ(std::get<SkipReason>(accounted_job(run, cluster, 0)), SkipReason::never_started);
    run.need = Need{1, 0};
    run.end = 0;
    EXPECT_EQ(std::get<SkipReason>(accounted_job(run, cluster, 0)), SkipReason::unknown_run_time);
    run.start = 0;
    EXPECT_EQ(std::get<SkipReason>(accounted_job(run, cluster, 0)), SkipReason::never_started);
}
