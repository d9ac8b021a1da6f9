# A synthetic SWF trace for fairway-sim's benchmark: JOBS jobs (default 1,000,000) from 64 users in
# 16 groups on 512 nodes x 8 cores, Poisson arrivals at about 85 % load, log-uniform run times from
# 1 minute to 1 day, limits 1-4x the run time, power-of-two sizes. Deterministic (srand(1)).
#   awk -v JOBS=1000000 -f sim-synthetic.awk > synthetic.swf
BEGIN {
    if (JOBS == "") JOBS = 1000000
    srand(1)
    print "; Computer: fairway-sim synthetic benchmark cluster"
    print "; UnixStartTime: 1767225600"
    print "; MaxNodes: 512"
    print "; MaxProcs: 4096"
    t = 0
    for (i = 1; i <= JOBS; i++) {
        procs = 2 ^ int(rand() * 8)                       # 1 .. 128
        run = int(exp(log(60) + rand() * (log(86400) - log(60))))
        limit = int(run * (1 + 3 * rand())) + 60
        user = int(rand() * rand() * 64)                   # a few heavy users, many light
        group = int(user / 4)
        # mean core-seconds per job ~ 32 x 11,900: 85 % of 4,096 cores needs one job every ~110 s
        t += int(-log(1 - rand()) * 110)
        printf "%d %d -1 %d %d -1 -1 %d %d -1 1 %d %d -1 -1 -1 -1 -1\n", i, t, run, procs, procs, limit, user, group
    }
}
