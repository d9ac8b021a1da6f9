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
