# Target 2 of tests/bench/priority-plugins from paired minutes: whole-slurmctld CPU of fairway's
# and multifactor's runs minus basic's, minute by minute, each minute paired with basic's minute of
# the same rep and the same place in the window (slurmctld's periodic work, the 300-s state save
# included, runs at the same times after each restart, so pairing takes it out of the difference).
# The minutes are taken as independent samples; the verdict needs the ratio's whole range within
# two standard errors on one side of 0.3. Where that range is too wide it says so, and estimates
# how many paired minutes would narrow it enough if the means held.
# Input: the bench's results, "PLUGIN ctld_minute_us US REP MINUTE" lines (others are ignored).
# Output: one line.
$2 == "ctld_minute_us" { cpu[$1, $4, $5] = $3; minute[$4, $5] = 1 }

function add(name, x) { count[name]++; sum[name] += x; squares[name] += x * x }
function mean(name) { return sum[name] / count[name] }
function deviation(name,   m) { m = mean(name); return sqrt((squares[name] - count[name] * m * m) / (count[name] - 1)) }

# The ratio's range within two standard errors, with standard deviations dfw and dmf over n pairs.
function low(n) { return (fw - 2 * dfw / sqrt(n)) / (mf + 2 * dmf / sqrt(n)) }
function high(n) { return mf - 2 * dmf / sqrt(n) > 0 ? (fw + 2 * dfw / sqrt(n)) / (mf - 2 * dmf / sqrt(n)) : "inf" }
function decided(n,   h) { h = high(n); return (h != "inf" && h <= 0.3) || low(n) > 0.3 }

# Paired minutes at which the range would be decided, doubling from n (0: not within 10^7).
function minutes_needed(n) {
    while (!decided(n) && n < 1e7) n *= 2
    return decided(n) ? n : 0
}

END {
    for (k in minute)
        if (("basic" SUBSEP k) in cpu && ("fairway" SUBSEP k) in cpu && ("multifactor" SUBSEP k) in cpu) {
            add("fw", (cpu["fairway", k] - cpu["basic", k]) / 1000)
            add("mf", (cpu["multifactor", k] - cpu["basic", k]) / 1000)
        }
    n = count["fw"]
    if (n < 2) { print "target 2, paired minutes: n/a (needs basic, multifactor and fairway runs of the same reps)"; exit }
    fw = mean("fw"); dfw = deviation("fw"); mf = mean("mf"); dmf = deviation("mf")
    printf "target 2, %d paired minutes: fairway - basic %.1f +- %.1f ms, multifactor - basic %.1f +- %.1f ms" \
        " (mean +- standard error); ", n, fw, dfw / sqrt(n), mf, dmf / sqrt(n)
    if (decided(n)) {
        printf "ratio %.2f, %.2f to %.2f within two standard errors: %s\n", fw / mf, low(n), high(n),
            high(n) <= 0.3 ? "met" : "missed"
        exit
    }
    needed = minutes_needed(n)
    printf "not resolved: ratio %s within two standard errors; %s\n",
        high(n) == "inf" ? "unbounded (multifactor within noise of basic)" : sprintf("%.2f to %.2f", low(n), high(n)),
        needed ? sprintf("about %d paired minutes would decide it at this noise, if the means held", needed) \
               : "the means are too close to 0.3 for any run length to decide it at this noise"
}
