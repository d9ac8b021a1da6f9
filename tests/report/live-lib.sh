# Sourced by tests/report/t-live-*.sh, after tests/lib.sh and tests/cluster/testlib.sh: the built
# fairway-report on a running cluster, and how its figures are compared with sshare's.
report=$FAIRWAY_BUILD/tools/fairway-report
[ -x "$report" ] || fail "fairway-report is not built at $report"
require_cluster

# field ROWS ACCOUNT USER COLUMN: one column of the row for ACCOUNT/USER (indentation removed).
field() { awk -F'|' -v a="$2" -v u="$3" -v c="$4" '{ sub(/^ +/, "", $1) } $1 == a && $2 == u { print $c }' <<<"$1"; }
within_1pct() {  # within_1pct A B: |A-B| <= 1% of the larger (0.005 absolute near zero)
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = (a > b ? a : b); exit !(d <= 0.01 * m || d <= 0.005) }'
}
# same_as_sshare OURS THEIRS: the report's rows (--parsable --noheader) against sshare -a -l -P -n's,
# association by association: RawUsage where sshare shows at least 100 (below that, sshare's integer
# truncation alone exceeds 1%), EffectvUsage and FairShare everywhere. Prints each difference.
same_as_sshare() {
    local ours=$1 theirs=$2 a u col cols bad=0
    while IFS='|' read -r a u _; do
        a=${a# }; a=${a##* }
        cols="7 8"
        [ "$(field "$theirs" "$a" "$u" 5)" -ge 100 ] 2>/dev/null && cols="5 7 8"
        for col in $cols; do
            within_1pct "$(field "$ours" "$a" "$u" $col)" "$(field "$theirs" "$a" "$u" $col)" && continue
            echo "$a/$u column $col: report $(field "$ours" "$a" "$u" $col), sshare $(field "$theirs" "$a" "$u" $col)"
            bad=1
        done
    done <<<"$theirs"
    [ "$bad" = 0 ]
}

# pass_clock: the time of priority/fairway's last pass, at which sshare's figures were computed:
# the book's clock, bytes 8-15 of the state file (fairshare/README.md).
pass_clock() { od -An -t d8 -j 8 -N 8 "$STATE_FILE" | tr -d ' '; }
# agree_at_pass [REPORT OPTION...]: sshare and fairway-report read at the time of the same pass agree
# on every association (same_as_sshare) and it prints their figures. A window's edge moves usage out
# bucket by bucket, so a report read a few seconds after the pass may rightly differ by a bucket.
# Fails when a pass came in between; callers retry (agree_within).
agree_at_pass() {
    local clock theirs ours
    clock=$(pass_clock)
    theirs=$(sshare -a -l -P -n) || return 1
    [ "$clock" = "$(pass_clock)" ] || return 1
    ours=$("$report" --parsable --noheader --now "$(date -u -d "@$clock" +%Y-%m-%dT%H:%M:%SZ)" "$@") || return 1
    same_as_sshare "$ours" "$theirs" || return 1
    echo "pass $clock: $(awk -F'|' '$2 != "" { printf "%s %s; ", $2, $5 }' <<<"$theirs")"
}
# agree_within TRIES [REPORT OPTION...]: agree_at_pass, tried up to TRIES times a second apart; on
# failure the last try's differences go to stderr.
agree_within() {
    local tries=$1 try agreed; shift
    for ((try = 1; try < tries; try++)); do agreed=$(agree_at_pass "$@") && { echo "$agreed"; return 0; }; sleep 1; done
    agree_at_pass "$@" >&2
}
